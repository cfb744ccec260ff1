"""The CPU budget of a request's search work (``bot.core.budget``): the scoring loop
stops when it is used up and the page says its results may be incomplete."""

from __future__ import annotations

import time

from bot.core import budget
from bot.core.models import Context
from bot.core.replies import ResultsReply
from bot.service import service

CTX = Context(team_id="T1", channel_id="C1", user_id="U1")
CUT = "took too long"


def test_cpu_time_counts_work_not_waiting() -> None:
    with budget.limit(0.05) as b:
        time.sleep(0.1)  # waiting uses no CPU
        assert not budget.exhausted()
        for _ in range(10**8):  # work does, until the budget says stop
            if budget.exhausted():
                break
        assert budget.exhausted() and b.spent() > 0.05
    assert not budget.exhausted()  # outside a budget: never exhausted


def test_an_exhausted_budget_stops_scoring_with_a_note(seed_index) -> None:
    full = seed_index.search("language models", limit=5)
    assert not any(CUT in n for n in full.notes) and full.total > 5
    with budget.limit(0.0):
        cut = seed_index.search("language models", limit=5)
    assert any(CUT in n for n in cut.notes) and cut.total < full.total


def test_every_service_search_runs_under_its_budget(monkeypatch, seed_index, store, settings) -> None:
    monkeypatch.setattr(service, "SEARCH_CPU_S", 0.0)
    svc = service.Service(seed_index, store, settings)
    reply = svc.command("search language models", CTX)
    assert isinstance(reply, ResultsReply) and any(CUT in n for n in reply.page.notes)
    monkeypatch.setattr(service, "SEARCH_CPU_S", 0.5)
    reply = svc.command("search language models", CTX)
    assert not any(CUT in n for n in reply.page.notes)


def test_an_exhausted_budget_also_stops_the_search_for_corrections(seed_index) -> None:
    assert seed_index.search("steganografy", limit=5).corrected_query == "steganography"
    with budget.limit(0.0):
        assert seed_index.search("steganografy", limit=5).corrected_query is None
