"""Reconciling a claim a crash or an ambiguous error left without a ``ts``
(docs/architecture.md "The path of a digest"): found in the history →
posted; the whole history read and not there → posted once, late; history
unreadable → unknown, never a second post that date."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core.models import DeliveryState as State
from bot.digest import run_due
from tests.digest import test_digest_run as base
from tests.digest.test_digest_run import AT_0900, DAY, subscribe, tick_through

#: The same fixtures as test_digest_run (a SQLite store, a clock, a recording poster).
store, clock, poster = base.store, base.clock, base.poster


@pytest.mark.parametrize("readable", [True, False])
def test_ambiguous_error_is_posted_once_at_most(store, index, poster, clock, readable):
    subscribe(store, "C1")
    poster.fail["C1"] = "request_failed"  # a timeout: Slack may have posted it
    poster.history_unavailable = not readable
    run_due(store, index, poster, AT_0900)
    poster.fail.clear()
    clock.now = AT_0900 + timedelta(seconds=30)
    tick_through(store, index, poster, clock, AT_0900 + timedelta(hours=3))
    if readable:  # the history says it never arrived: posted once, late — never skipped
        assert len(poster.parents) == 1 and poster.attempts == 2
        assert store.get_delivery("T1", "C1", DAY).state == State.POSTED
    else:  # cannot know: never a second post that date
        assert poster.parents == [] and poster.attempts == 1
        assert store.get_delivery("T1", "C1", DAY).state == State.UNKNOWN
    channel, marker, oldest = poster.lookups[0]
    assert channel == "C1" and marker.startswith("potd-2026-12-01-")
    assert oldest <= AT_0900.timestamp()


def test_stale_claim_found_in_history_is_marked_posted(store, index, poster, clock):
    subscribe(store, "C1")
    paper_id = store.paper_for_date(DAY, lambda d: "p00q")
    store.claim_delivery("T1", "C1", DAY, paper_id, now=AT_0900)  # then the process died
    poster.found[f"potd-2026-12-01-{paper_id}"] = "1764579600.000200"
    run_due(store, index, poster, AT_0900 + timedelta(seconds=30))
    assert poster.lookups == []  # too fresh: another process may still be posting
    summary = run_due(store, index, poster, AT_0900 + timedelta(minutes=5))
    assert summary.reconciled == 1 and poster.parents == []
    d = store.get_delivery("T1", "C1", DAY)
    assert (d.state, d.message_ts) == (State.POSTED, "1764579600.000200")
