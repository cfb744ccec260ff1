"""Posts titled for what they are (issue 19 point 7): a weekly post says "of the week",
a post of several papers says how many (and its topic), ``/paper today`` says the
same and marks a date still ahead, and the other papers of a post are buttons, not
commands to type. Through the real service, digest run and renderer over the real
seed index on SQLite with an injected clock; every message passes the strict fake's
Block Kit rules.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timezone

import pytest

from bot.core.models import Context
from bot.core.replies import PaperReply
from bot.digest import run_due
from bot.render import ACTION_DETAILS, render
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.store import Store
from tests.kit import Clock, RecordingPoster
from tests.strict.surfaces import check_message

UTC = timezone.utc
CTX = Context(team_id="T1", channel_id="C1", user_id="U1", user_tz="UTC")
TUESDAY = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
MONDAY_AFTER_POST = datetime(2026, 12, 7, 10, 1, tzinfo=UTC)


@pytest.fixture
def world(sqlite_url, seed_index, settings):
    store = Store(sqlite_url)
    clock, poster = Clock(TUESDAY), RecordingPoster()
    service = Service(seed_index, store, settings, announcer=PostingAnnouncer(poster), now=clock, rng=random.Random(5))
    yield service, store, clock, poster
    store.close()


def strict(message) -> dict:
    body = {"text": message.text, "blocks": list(message.blocks)}
    assert check_message(body) is None, check_message(body)
    return body


def title_of(message) -> str:
    return message.blocks[0]["text"]["text"]


def posted(world, command: str, when: datetime):
    service, store, clock, poster = world
    service.command(command, CTX)
    clock.now = when
    run_due(store, service.index, poster, when)
    parents = [m for c, m, _ in poster.parents if c == "C1" and m.metadata]
    assert len(parents) == 1, [m.text for _, m, _ in poster.parents]
    strict(parents[0])
    return parents[0]


@pytest.mark.parametrize(
    "command, title",
    [
        (
            "subscribe weekly mon 10:00 UTC 3 papers about reasoning",
            "3 papers of the week about “reasoning” · Mon 2026-12-07",
        ),
        ("subscribe weekly mon 10:00 UTC", "Paper of the week · Mon 2026-12-07"),
        ("subscribe 10:00 UTC 2 papers", "2 papers of the day · 2026-12-07"),
        ("subscribe 10:00 UTC", "Paper of the day · 2026-12-07"),
    ],
)
def test_a_post_is_titled_for_what_it_is(world, command, title):
    message = posted(world, command, MONDAY_AFTER_POST)
    assert title_of(message) == f"*{title}*"
    assert message.text.startswith(f"{title}: ")  # what a notification shows
    if "of the week" in title or "papers" in title:
        assert "Papers of the day" not in json.dumps(list(message.blocks), ensure_ascii=False)


def test_every_button_of_a_multi_paper_post_names_its_paper(world, seed_index):
    message = posted(world, "subscribe weekly mon 10:00 UTC 3 papers about reasoning", MONDAY_AFTER_POST)
    buttons = [e for b in message.blocks if b["type"] == "actions" for e in b["elements"]]
    assert len(buttons) == 9
    for button in buttons:
        title = seed_index.get(json.loads(button["value"])["id"]).title
        assert title[:20] in button["accessibility_label"], button


def test_today_in_a_weekly_channel_names_the_post_and_its_date_ahead(world):
    service, store, clock, poster = world
    service.command("subscribe weekly mon 10:00 UTC 3 papers about reasoning", CTX)
    reply = service.command("today", CTX)  # a Tuesday: the first post is next Monday
    assert isinstance(reply, PaperReply)
    body = strict(render(reply))
    head = body["blocks"][0]["text"]["text"]
    assert head.startswith("*3 papers of the week about “reasoning” · Mon 2026-12-07 (the next post)")
    assert "of the day" not in head
    clock.now = MONDAY_AFTER_POST
    run_due(store, service.index, poster, clock.now)
    clock.now = datetime(2026, 12, 9, 12, 0, tzinfo=UTC)  # Wednesday: that week's post, no longer ahead
    head = strict(render(service.command("today", CTX)))["blocks"][0]["text"]["text"]
    assert "Mon 2026-12-07" in head and "next post" not in head


def test_today_lists_the_other_papers_of_a_post_as_buttons(world, seed_index):
    service, store, clock, poster = world
    service.command("subscribe 09:00 UTC 3 papers about reasoning", CTX)
    clock.now = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    reply = service.command("today", CTX)
    body = strict(render(reply))
    shown = json.dumps(body, ensure_ascii=False)
    assert "/paper show" not in shown  # nothing to type
    details = [
        json.loads(b["accessory"]["value"])["id"]
        for b in body["blocks"]
        if (b.get("accessory") or {}).get("action_id") == ACTION_DETAILS
    ]
    picks = store.channel_picks("T1", "C1", clock.now.date(), "reasoning")
    assert [reply.paper.id, *details] == picks and len(picks) == 3
    for b in body["blocks"]:
        if (b.get("accessory") or {}).get("action_id") == ACTION_DETAILS:
            title = seed_index.get(json.loads(b["accessory"]["value"])["id"]).title
            assert title[:20] in b["accessory"]["accessibility_label"]


@pytest.mark.parametrize(
    "topic, shown",
    [
        ('"language models"', "“language models”"),  # a quoted phrase: one pair of quotes, not “"…"”
        ("“language models”", "“language models”"),
        ('"language models" reasoning', "‘\"language models\" reasoning’"),  # quotes inside: single ones
    ],
)
def test_a_quoted_topic_is_shown_in_one_pair_of_quotes(world, topic, shown):
    service, store, clock, poster = world
    done = service.command(f"subscribe 10:00 UTC about {topic}", CTX)
    (announced,) = [m for c, m, _ in poster.parents if c == "C1"]  # the channel's confirmation
    today = strict(render(service.command("today", CTX)))["blocks"][0]["text"]["text"]
    status = render(service.command("status", CTX)).text
    for text in (announced.text, today, status):
        assert f"about {shown}" in text, text
        assert '“"' not in text and '"”' not in text and "““" not in text, text
    assert '“"' not in render(done).text
    message = posted(world, "subscribe 10:00 UTC", MONDAY_AFTER_POST)  # the digest's post title
    assert title_of(message).startswith(f"*Paper of the day about {shown} · ")
