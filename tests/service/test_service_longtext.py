"""Long text through the service and the console (issue 11 point 2): a pasted
paragraph is searched whole, its pages carry a key kept in the real store, and
the second page is the first page's ranking continued."""

from __future__ import annotations

from bot.cli.console import Console
from bot.core.models import Context
from bot.core.replies import IN_CHANNEL, PaperReply, ResultsReply
from bot.service.service import Service

CTX = Context(team_id="T1", channel_id="C1", user_id="U1")
PARTS = ("KIStego", "UniSparse", "MemOCR")


def paragraph(index, size: int = 3000) -> tuple[str, list[str]]:
    """The opening of each ``PARTS`` paper's abstract in turn, ``size`` characters at most."""
    papers = [index.by_name(name)[0] for name in PARTS]
    per = size // len(papers)
    text = " ".join(((p.abstract + " ") * (per // len(p.abstract) + 1))[: per - 1].strip() for p in papers)
    return text, [p.id for p in papers]


def test_a_long_search_keeps_its_query_for_the_buttons(service, seed_index):
    text, wanted = paragraph(seed_index)
    reply = service.command("search " + text, CTX)
    assert isinstance(reply, ResultsReply) and reply.cut_to is None
    assert set(wanted) <= {h.paper.id for h in reply.page.hits}
    ((kept, key),) = reply.query_keys
    assert kept == reply.page.query and len(key) == 20
    again = service.search(service.queries.text_of(key), offset=5)
    assert [h.paper.id for h in again.page.hits] == [h.paper.id for h in service.search(text, offset=5).page.hits]
    assert service.search("sparse attention").query_keys == ()  # short: carried inline


def test_a_passage_mention_gets_results_and_a_short_one_a_paper(service, seed_index):
    text, wanted = paragraph(seed_index)
    reply = service.mention(text, CTX)
    assert isinstance(reply, ResultsReply) and reply.visibility == IN_CHANNEL
    assert set(wanted) <= {h.paper.id for h in reply.page.hits}
    assert isinstance(service.mention("KIStego", CTX), PaperReply)


class FailingStore:
    """The real store, except that keeping a long query fails."""

    def __init__(self, store) -> None:
        self._store = store

    def __getattr__(self, name):
        return getattr(self._store, name)

    def keep_query(self, *args):
        raise OSError("disk full")


def test_a_store_failure_costs_the_page_buttons_not_the_results(seed_index, store, settings, caplog):
    service = Service(seed_index, FailingStore(store), settings)
    text, wanted = paragraph(seed_index)
    reply = service.command("search " + text, CTX)
    assert set(wanted) <= {h.paper.id for h in reply.page.hits} and reply.query_keys == ()
    assert "long query not kept" in caplog.text


def test_the_console_answers_a_long_paragraph_and_pages_it(service, seed_index):
    text, wanted = paragraph(seed_index)
    console = Console(service)
    first = console.handle(text)
    assert all(pid in first for pid in wanted)
    assert text[150:250] not in first and first.count("repeats only") == 1
    second = console.handle("more")
    for hit in service.search(text, offset=5).page.hits:
        assert hit.paper.id in second
    mention = console.handle("@paperbot " + text)
    assert all(pid in mention for pid in wanted)
    cut = console.handle("/paper search " + text + " " + text)  # 6,000 characters
    assert cut.count("cut to 4,000 characters") == 1 and "cut to 4000" not in cut
