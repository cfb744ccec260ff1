"""Rendering: escaping, Block Kit limits and text fallbacks for every reply type."""

import json
import re
from datetime import date

import pytest

from bot.core.models import Hit, Paper, SearchPage, Subscription
from bot.core.ports import Message
from bot.core.replies import (
    DigestReply,
    ErrorReply,
    HelpReply,
    NoticeReply,
    PaperReply,
    PickListReply,
    ResultsReply,
    SimilarReply,
    StatusReply,
)
from bot.render import PAGE_ACTIONS, render, render_digest, to_text
from bot.render import mrkdwn as md
from tests.strict.surfaces import check_message

EVIL = "<!channel> & <@U123> <https://evil.example|click>"


def paper(i=1, **kw) -> Paper:
    base = dict(
        id=f"p{i:03d}",
        title=f"Title {i} {EVIL}",
        abstract=("word " * 900) + EVIL,
        name="Evil<Name>",
        tldr="TL;DR " + EVIL,
        keywords=("a<b", "c&d"),
        code_urls=("https://github.com/x/y", "javascript:alert(1)"),
        venue="ICML 2026",
        authors=("A <B>", "C"),
    )
    base.update(kw)
    return Paper(**base)


def page(n=5, total=12, offset=0, **kw) -> SearchPage:
    hits = tuple(Hit(paper(i), 1.0 / (i + 1), f"a *match* {EVIL}") for i in range(offset, offset + n))
    return SearchPage(query=f"q {EVIL}", total=total, offset=offset, limit=5, hits=hits, took_ms=1.0, **kw)


ALL = [
    ResultsReply(page=page()),
    ResultsReply(page=page(n=2, total=7, offset=5)),
    ResultsReply(page=page(n=0, total=0)),
    ResultsReply(page=page(corrected_query="fixed <!here>", suggestion="fixed <!here>")),
    PaperReply(paper=paper(), others=tuple(page().hits[:3]), visibility="in_channel"),
    PaperReply(paper=paper(), headline="*Shared by* <@U1>"),
    SimilarReply(paper=paper(), hits=page().hits),
    PickListReply(query=EVIL, papers=tuple(paper(i) for i in range(3))),
    HelpReply(),
    ErrorReply(message=EVIL, example=EVIL),
    NoticeReply(text=EVIL, actor="U42"),
    StatusReply(subscription=None),
    StatusReply(
        subscription=Subscription(
            "T", "C", "09:30", "Europe/Berlin", active=False, inactive_reason="is_archived <!channel>"
        )
    ),
    DigestReply(paper=paper(), day=date(2026, 12, 1)),
]


def _strip_values(obj):
    """Button values are opaque to Slack (never displayed or parsed): leave them out."""
    if isinstance(obj, dict):
        return {k: _strip_values(v) for k, v in obj.items() if k != "value"}
    if isinstance(obj, list):
        return [_strip_values(v) for v in obj]
    return obj


def _all_text(message: Message) -> str:
    out = json.dumps([message.text, _strip_values(list(message.blocks))], ensure_ascii=False)
    for m in message.thread:
        out += _all_text(m)
    return out


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_slack_would_accept_every_rendering(reply):
    m = render(reply)
    for part in (m, *m.thread):
        assert check_message({"text": part.text, "blocks": list(part.blocks)}) is None


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_fallback_text_is_for_people(reply):
    """Notifications, the sidebar and screen readers show ``text``: no markers
    or block ids in it (issue 9 point 6)."""
    m = render(reply)
    for part in (m, *m.thread):
        ids = {b["block_id"] for b in part.blocks if b.get("block_id")}
        assert not re.search(r"\[?potd-\d{4}-\d\d-\d\d", part.text), part.text
        assert not any(i in part.text for i in ids), part.text


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_no_live_control_sequences(reply):
    text = _all_text(render(reply))
    for live in ("<!channel>", "<!here>", "<@U123>", "<https://evil.example|click>", "<Name>", "javascript:"):
        assert live not in text
    assert (
        "&lt;!channel&gt;" in text
        or isinstance(reply, (HelpReply, StatusReply, PickListReply))
        or "&lt;!here&gt;" in text
    )


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_within_block_kit_limits(reply):
    for m in (render(reply),) + render(reply).thread:
        assert m.text and len(m.text) <= 4000
        assert 0 < len(m.blocks) <= 50
        total = 0
        for b in m.blocks:
            if b["type"] == "section":
                assert len(b["text"]["text"]) <= 3000
                total += len(b["text"]["text"])
            if b["type"] == "header":
                assert len(b["text"]["text"]) <= 150
            for el in b.get("elements", []):
                if el.get("type") == "button":
                    assert len(el["value"]) <= 2000 and len(el["text"]["text"]) <= 75
        assert total < 12000


def test_actor_mention_is_live_but_text_is_not():
    m = render(NoticeReply(text="subscribed <!channel>", actor="U42"))
    assert m.text.startswith("<@U42> ") and "&lt;!channel&gt;" in m.text


def test_results_page_buttons_first_and_last_page():
    first = render(ResultsReply(page=page(n=5, total=7, offset=0)))
    labels = [e["text"]["text"] for b in first.blocks if b["type"] == "actions" for e in b["elements"]]
    assert "Next ›" in labels and "‹ Previous" not in labels
    last = render(ResultsReply(page=page(n=2, total=7, offset=5)))
    nav = [e for b in last.blocks if b["type"] == "actions" for e in b["elements"] if e["action_id"] in PAGE_ACTIONS]
    assert [e["text"]["text"] for e in nav] == ["‹ Previous"]
    assert json.loads(nav[0]["value"])["o"] == 0


@pytest.mark.parametrize("offset,corrected", [(0, None), (5, None), (10, None), (0, "learning"), (5, "learning")])
def test_every_results_page_passes_slacks_block_rules(offset: int, corrected: str | None):
    """First, middle and last page, corrected or not: Slack's own rules
    (docs/slack-rules.md, checked by tests/strict) accept the message."""
    reply = ResultsReply(page=page(n=5, total=15, offset=offset, corrected_query=corrected))
    m = render(reply)
    assert check_message({"text": m.text, "blocks": list(m.blocks)}) is None
    nav = [[e["action_id"] for e in b["elements"]] for b in m.blocks if b["type"] == "actions"][-1]
    assert len(nav) == len(set(nav)) >= (2 if offset == 5 or corrected else 1)


def test_digest_has_marker_thread_and_full_abstract():
    p = paper(abstract="Short abstract about <!here> things.")
    m = render_digest(p, date(2026, 12, 1))
    assert m.text == f"Paper of the day · 2026-12-01: {md.escape(p.title)}"  # what a notification shows
    assert m.blocks[0]["block_id"] == "potd-2026-12-01-p001"
    assert m.metadata == {
        "event_type": "paperbot_digest",
        "event_payload": {"marker": "potd-2026-12-01-p001", "day": "2026-12-01", "paper_id": "p001"},
    }
    assert "Paper of the day · 2026-12-01" in m.blocks[0]["text"]["text"]
    assert m.visibility == "in_channel" and len(m.thread) == 1
    assert "&lt;!here&gt;" in m.thread[0].blocks[0]["text"]["text"]


def test_to_text_is_readable():
    out = to_text(render(ResultsReply(page=page())))
    assert "<!channel>" in out  # decoded for the terminal, where it is inert
    assert "[Next ›: more]" in out and "/paper show p000" in out


def test_mrkdwn_helpers():
    assert md.escape("a<b>&c") == "a&lt;b&gt;&amp;c"
    assert md.unescape("&lt;!channel&gt; &amp;amp;") == "<!channel> &amp;"
    assert md.cut("abc def ghi", 8).endswith("…") and len(md.cut("abc def ghi", 8)) <= 8
    assert (
        md.link("https://github.com/a/b?x=1&y=2") == "<https://github.com/a/b?x=1&amp;y=2|github.com/a/b?x=1&amp;y=2>"
    )
    assert md.link("https://x.org/a|b") == "https://x.org/a|b"
    assert len(md.cut_escaped("<" * 100, 50)) <= 50
    assert md.quoted("a<b") == "“a&lt;b”"
    assert md.quoted("“exact phrase” test-time") == "‘“exact phrase” test-time’"
    assert md.quoted('"x" y') == "‘\"x\" y’"


def test_to_text_context_elements_are_separated():
    from bot.core.models import Paper
    from bot.render.blocks import paper_blocks

    paper = Paper(
        id="p1", title="T", abstract="A.", keywords=("sparse attention",) * 3, code_urls=("https://github.com/x/y",)
    )
    out = to_text(Message(text="t", blocks=tuple(paper_blocks(paper))))
    assert "Keywords: sparse attention, sparse attention, sparse attention · Code: github.com/x/y" in out


LIVE_OK = re.compile(r"^<(@[UW][A-Z0-9]+|#[CG][A-Z0-9]+|https?://[^\s<>|]+\|[^<>]*)>$")


def _mrkdwn_strings(message: Message):
    yield message.text
    for b in message.blocks:
        texts = [b.get("text")] + list(b.get("elements", [])) + list(b.get("fields", []) or [])
        for t in texts:
            if isinstance(t, dict) and t.get("type") == "mrkdwn":
                yield t["text"]


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_every_angle_bracket_is_a_deliberate_token(reply):
    message = render(reply)
    for m in (message,) + message.thread:
        for text in _mrkdwn_strings(m):
            for token in re.findall(r"<[^>]*>", text):
                assert LIVE_OK.match(token), (token, text[:200])


def test_huge_fields_stay_within_the_message_budget():
    long_url = "https://github.com/" + "a" * 2500
    big = paper(
        authors=tuple("Author " + "x" * 500 for _ in range(30)),
        code_urls=(long_url,),
        name="N" * 500,
        abstract="y " * 5000,
    )
    hits = tuple(Hit(big, 1.0, "s" * 3000) for _ in range(5))
    for reply in (
        ResultsReply(page=SearchPage("q", 5, 0, 5, hits, 1.0)),
        PaperReply(paper=big),
        DigestReply(paper=big, day=date(2026, 12, 1)),
    ):
        m = render(reply)
        assert len(json.dumps(list(m.blocks), ensure_ascii=False)) < 12_000
        assert long_url not in json.dumps(list(m.blocks))


def test_an_id_too_long_for_a_button_renders_without_buttons():
    p = paper(id="i" * 2100)
    m = render(ResultsReply(page=SearchPage("q", 1, 0, 5, (Hit(p, 1.0, "x"),), 1.0)))
    assert all(len(e.get("value", "")) <= 2000 for b in m.blocks for e in b.get("elements", []))


@pytest.mark.parametrize(
    "code, said",
    [
        ("is_archived", "the channel was archived"),
        ("not_in_channel", "/invite @paperbot"),
        ("bad time or zone: x", "bad time or zone: x"),
    ],
)
def test_status_says_why_a_subscription_is_off_in_words(code, said):
    sub = Subscription("T", "C", "09:30", "Europe/Berlin", active=False, inactive_reason=code)
    text = render(StatusReply(subscription=sub)).text
    assert said in text
    if code != said:  # a Slack error code is never shown raw
        assert code not in text
