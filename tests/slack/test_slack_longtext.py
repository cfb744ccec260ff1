"""A pasted paragraph is a query on every Slack surface (issue 11 point 2).

Signed payloads through the real HTTP server, the real store and index, the
strict fake Slack (every button value ≤ 2,000 characters, every view and
message within Block Kit's limits; the fixture fails a test Slack would have
refused anything in). The paragraph is the openings of three seed papers'
abstracts, so each part has its own paper — and all three must be found.
"""

from __future__ import annotations

import html
import json

import pytest

from bot.render import ACTION_DETAILS, ACTION_PAGE, ACTION_SHARE, PAGE_ACTIONS
from bot.render.blocks import ACTION_MODAL_PAGE
from bot.render.echo import ECHO_MAX
from tests.fakeslack import BOT_USER_ID
from tests.slack.payloads import values, view_of
from tests.slack.slackkit import SlackHarness, dm_event, mention_event, shown_strings, view_submission

PARTS = ("KIStego", "UniSparse", "MemOCR")
NOTES = ("cut to", "repeats only")


def paragraph(slack: SlackHarness, size: int = 3000) -> tuple[str, list[str]]:
    """``size`` characters: the opening of each ``PARTS`` paper's abstract in
    turn (repeated when the abstracts are short) → (text, the papers' ids)."""
    papers = [slack.index.by_name(name)[0] for name in PARTS]
    per = size // len(papers)
    chunks = [((p.abstract + " ") * (per // len(p.abstract) + 1))[: per - 1].strip() for p in papers]
    text = " ".join(chunks)
    text += " " + papers[-1].abstract[: size - len(text) - 1]
    return text[:size], [p.id for p in papers]


def encoded(text: str) -> str:
    """``text`` as Slack sends it: ``&``, ``<``, ``>`` entity-encoded."""
    return html.escape(text, quote=False)


def posted(slack: SlackHarness) -> dict:
    """The one ``chat.postMessage`` the bot made, as ``{"blocks", "text", "channel", "thread_ts"}``."""
    (post,) = slack.fake.wait_for("chat.postMessage")
    blocks = post.body["blocks"]
    return {
        "blocks": json.loads(blocks) if isinstance(blocks, str) else blocks,
        "text": post.body.get("text"),
        "channel": post.body.get("channel"),
        "thread_ts": post.body.get("thread_ts"),
    }


def ids(message: dict) -> list[str]:
    return [v["id"] for v in values(message, ACTION_DETAILS)]


def page_values(message: dict) -> list[dict]:
    return [
        json.loads(e["value"])
        for b in message.get("blocks") or []
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") in PAGE_ACTIONS
    ]


def shown(message: dict) -> str:
    return " ".join(shown_strings(message.get("blocks"))) + " " + (message.get("text") or "")


def assert_short_echo(message: dict, text: str) -> None:
    """The reply repeats at most ``ECHO_MAX`` characters of ``text``, and says so once.
    (Only the header and the fallback text echo the query: a hit's snippet may
    quote the same words when ``text`` is that paper's own abstract.)"""
    echo = " ".join(shown_strings((message.get("blocks") or [])[:1])) + " " + (message.get("text") or "")
    assert text[: ECHO_MAX // 2] in echo  # the query is named …
    assert text[ECHO_MAX + 20 : ECHO_MAX + 80] not in echo  # … but not repeated whole
    assert sum(s.count(n) for s in shown_strings(message.get("blocks")) for n in NOTES) == 1
    assert sum((message.get("text") or "").count(n) for n in NOTES) == 1


def assert_buttons_fit(message: dict) -> None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or []:
            assert len(element.get("value") or "") <= 2000


def test_a_pasted_paragraph_in_paper_search_finds_every_part_and_pages(slack: SlackHarness) -> None:
    text, wanted = paragraph(slack)
    assert len(text) == 3000
    _, url = slack.command("search " + encoded(text))
    (first,) = slack.replies(url)
    assert set(wanted) <= set(ids(first)), ids(first)  # beginning, middle and end
    assert_short_echo(first, text)
    assert_buttons_fit(first)
    (nxt,) = page_values(first)
    assert set(nxt) == {"k", "o"} and nxt["o"] == 5  # a key, not 3,000 characters
    assert all(set(v) == {"id", "k", "o"} for v in values(first, ACTION_SHARE))

    _, url2 = slack.click(ACTION_PAGE, nxt)
    (second,) = slack.replies(url2)
    expected = slack.service.search(text, offset=5).page
    assert second["replace_original"] is True
    assert ids(second) == [h.paper.id for h in expected.hits]  # the same ranking, page 2
    assert not set(ids(second)) & set(ids(first))
    assert f"Showing 6–10 of {expected.total}" in shown(second)
    assert [v["o"] for v in page_values(second)] == [0, 10] or expected.total <= 10
    _, url3 = slack.click(ACTION_PAGE, page_values(second)[0])  # ‹ Previous
    (back,) = slack.replies(url3)
    assert ids(back) == ids(first)


def test_a_pasted_paragraph_in_a_mention_gets_results_in_the_thread(slack: SlackHarness) -> None:
    text, wanted = paragraph(slack)
    slack.event(mention_event(f"<@{BOT_USER_ID}> " + encoded(text), ts="1765200000.000100"), event_id="Ev0LONG1")
    message = posted(slack)
    assert message["thread_ts"] == "1765200000.000100"
    assert set(wanted) <= set(ids(message))
    assert_short_echo(message, text)
    assert_buttons_fit(message)
    (nxt,) = page_values(message)
    _, url = slack.click(ACTION_PAGE, nxt, ephemeral=False)
    (second,) = slack.replies(url)
    assert ids(second) == [h.paper.id for h in slack.service.search(text, offset=5).page.hits]


def test_a_pasted_paragraph_in_a_dm_gets_results(slack: SlackHarness) -> None:
    text, wanted = paragraph(slack)
    slack.event(dm_event(encoded(text), ts="1765200001.000100"), event_id="Ev0LONG2")
    message = posted(slack)
    assert message["channel"] == "D0ALICE"
    assert set(wanted) <= set(ids(message))
    assert_short_echo(message, text)


@pytest.mark.parametrize("surface", ["command", "mention"])
def test_5000_characters_are_cut_to_4000_with_one_note(slack: SlackHarness, surface: str) -> None:
    text, wanted = paragraph(slack, 5000)
    if surface == "command":
        _, url = slack.command("search " + encoded(text))
        (reply,) = slack.replies(url)
    else:
        slack.event(mention_event(f"<@{BOT_USER_ID}> " + encoded(text), ts="1765200002.000100"), event_id="Ev0LONG3")
        reply = posted(slack)
    notes = [s for s in shown_strings(reply["blocks"]) if any(n in s for n in NOTES)]
    assert len(notes) == 1 and "cut to 4,000 characters" in notes[0], notes
    assert "repeats only the first" in notes[0]  # cut and shortened: one sentence
    assert set(wanted[:2]) <= set(ids(reply))  # the parts before the cut
    assert_buttons_fit(reply)


def test_the_modal_takes_3000_characters_and_pages_them(slack: SlackHarness) -> None:
    text, wanted = paragraph(slack)
    slack.interact(view_submission(text))
    update = slack.fake.wait_for("views.update")[0]
    view = view_of(update)
    (field,) = [b["element"] for b in view["blocks"] if b["type"] == "input"]
    assert field["max_length"] == 3000 and field["initial_value"] == text
    assert set(wanted) <= set(ids(view))
    assert sum(s.count(n) for s in shown_strings(view["blocks"]) for n in NOTES) == 1
    (nxt,) = values(view, ACTION_MODAL_PAGE)
    assert set(nxt) == {"k", "o"}
    slack.click(ACTION_MODAL_PAGE, nxt, in_view="modal", view_id="V0MODAL")
    second = view_of(slack.fake.wait_for("views.update", 2)[1])
    assert ids(second) == [h.paper.id for h in slack.service.search(text, offset=10, limit=10).page.hits]


def test_an_unknown_key_asks_to_search_again(slack: SlackHarness) -> None:
    _, url = slack.click(ACTION_PAGE, {"k": "0" * 20, "o": 5})
    (reply,) = slack.replies(url)
    assert "run it again" in shown(reply) and reply["replace_original"] is False


def test_share_from_a_long_query_redraws_that_page(slack: SlackHarness) -> None:
    text, wanted = paragraph(slack)
    _, url = slack.command("search " + encoded(text))
    (first,) = slack.replies(url)
    value = values(first, ACTION_SHARE)[1]
    _, url2 = slack.click(ACTION_SHARE, value)
    (redrawn,) = slack.replies(url2)
    assert redrawn["replace_original"] is True and ids(redrawn) == ids(first)
    assert "Shared in <#C0GENERAL> ✓" in json.dumps(redrawn["blocks"], ensure_ascii=False)
