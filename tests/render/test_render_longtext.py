"""Long queries in rendered replies (issue 11 point 2): the echo is shortened,
one note says so (one sentence when the input was also cut), and no button
value can pass Slack's 2,000 characters, whatever the query."""

from __future__ import annotations

import json

from bot.core.models import Hit, Paper, SearchPage
from bot.core.replies import PickListReply, ResultsReply, carried_inline
from bot.render import render
from bot.render.echo import ECHO_MAX, echo, length_note, query_value
from bot.render.home import search_modal

LONG = "Steganography hides a secret message inside an ordinary cover image. " * 50  # 3,450


def paper(n: int) -> Paper:
    return Paper(
        id=f"p{n}",
        title=f"Paper {n}",
        abstract="An abstract.",
        tldr="A TL;DR.",
        authors=("A. Author",),
        venue="ICLR 2026",
    )


def page(query: str, total: int = 12, corrected: str | None = None) -> SearchPage:
    return SearchPage(
        query=query,
        total=total,
        offset=5,
        limit=5,
        hits=tuple(Hit(paper(i), 1.0, "") for i in range(5)),
        took_ms=1.0,
        corrected_query=corrected,
    )


def values(message) -> list[dict]:
    return [json.loads(e["value"]) for b in message.blocks if b["type"] == "actions" for e in b["elements"]]


def notes(message) -> list[str]:
    return [
        e["text"] for b in message.blocks if b["type"] == "context" for e in b["elements"] if "characters" in e["text"]
    ]


def test_echo_keeps_short_text_and_shortens_long_text_at_a_space():
    assert echo("sparse attention") == "sparse attention"
    short = echo(LONG)
    assert short.endswith("…") and len(short) <= ECHO_MAX + 1 and LONG.startswith(short[:-1])
    assert not short[:-1].endswith(" ")


def test_a_long_query_with_a_key_pages_by_key_and_says_once_it_was_shortened():
    reply = ResultsReply(page=page(LONG), query_keys=((LONG, "a" * 20),))
    message = render(reply)
    pages = [v for v in values(message) if "id" not in v]
    assert pages == [{"k": "a" * 20, "o": 0}, {"k": "a" * 20, "o": 10}]
    assert all(v.get("k") == "a" * 20 for v in values(message) if "q" in v or "k" in v)
    assert LONG[:200] not in json.dumps([b for b in message.blocks], ensure_ascii=False)
    assert LONG[:200] not in message.text
    (note,) = notes(message)
    assert "3,450 characters" in note and message.text.count("repeats only") == 1


def test_cut_and_shortened_make_one_note_and_cut_alone_another():
    both = render(ResultsReply(page=page(LONG[:4000]), query_keys=((LONG[:4000], "b" * 20),), cut_to=4000))
    (note,) = notes(both)
    assert "cut to 4,000 characters" in note and "repeats only" in note
    cut_only = length_note(ResultsReply(page=page("sparse attention"), cut_to=4000))
    assert cut_only == "Your input was cut to 4,000 characters."
    assert length_note(ResultsReply(page=page("sparse attention"))) is None
    pick = length_note(PickListReply(query=LONG, papers=(paper(1), paper(2))))
    assert pick and "repeats only" in pick


def test_a_long_query_without_a_key_gets_no_page_buttons_rather_than_a_refused_value():
    message = render(ResultsReply(page=page(LONG, corrected=LONG.lower())))
    assert all(set(v) == {"id"} for v in values(message))  # Share / Details / Similar only
    assert all(len(json.dumps(v)) <= 2000 for v in values(message))


def test_what_a_button_carries_inline():
    assert query_value("sparse attention") == {"q": "sparse attention"}
    assert carried_inline("x" * 300) and not carried_inline("x" * 301)
    assert not carried_inline('"' * 200)  # 400 characters once escaped
    assert query_value('"' * 200) is None and query_value('"' * 200, (('"' * 200, "c" * 20),)) == {"k": "c" * 20}


def test_the_modal_input_takes_3000_and_its_long_pages_go_by_key():
    view = search_modal(LONG[:3000], page=page(LONG[:3000]), keys=((LONG[:3000], "d" * 20),))
    (field,) = [b["element"] for b in view["blocks"] if b["type"] == "input"]
    assert field["max_length"] == 3000
    pages = [
        json.loads(e["value"])
        for b in view["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"].startswith("modal_page")
    ]
    assert pages and all(v.get("k") == "d" * 20 for v in pages)
