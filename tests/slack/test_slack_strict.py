"""Every kind of message the bot sends, through the strict fake Slack: zero rejections.

Walks what a user can reach — all pages of a 3-page search, a corrected
search and its "search instead", every card (show, similar, random, today,
share), help, status, subscribe/unsubscribe, errors, a mention and a DM
answer, the Home tab, the search modal, modals opened and pushed from views,
and the digest — under each manifest (the ``fake_slack`` fixture), and
requires that Slack would have accepted every message and view
(docs/slack-rules.md). The fixture fails any test with a rejection too; the
explicit checks here say which message it was.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

from bot.core.config import Settings
from bot.digest import send
from bot.render import ACTION_ANOTHER, ACTION_DETAILS, ACTION_HOME_SEARCH, ACTION_SHARE, ACTION_SIMILAR, PAGE_ACTIONS
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from tests.fakeslack import BOT_USER_ID
from tests.slack.slackkit import BOT_TOKEN, SlackHarness, dm_event, mention_event, view_submission


def page_buttons(reply: dict) -> list[dict]:
    return [
        json.loads(e["value"])
        for b in reply.get("blocks") or []
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") in PAGE_ACTIONS
    ]


def accepted(slack: SlackHarness, what: str) -> None:
    """Slack would have taken every call so far; ``what`` names the last step."""
    assert slack.fake.rejections == [], f"{what}: {slack.fake.rejections}"


def reply_to(slack: SlackHarness, url: str) -> dict:
    (reply,) = slack.replies(url)
    return reply


def test_every_page_of_a_three_page_search_is_accepted(slack: SlackHarness) -> None:
    assert 10 < slack.index.search("learning", limit=5).total <= 15  # exactly three pages
    _, url = slack.command("search learning")
    page, seen = reply_to(slack, url), 1
    while nxt := [v for v in page_buttons(page) if v["o"] > (seen - 1) * 5]:
        _, url = slack.click(PAGE_ACTIONS[0], nxt[0])
        page, seen = reply_to(slack, url), seen + 1
        accepted(slack, f"page {seen}")
    assert seen == 3


def test_a_corrected_search_and_its_search_instead_are_accepted(slack: SlackHarness) -> None:
    _, url = slack.command("search sparce attention")  # corrected; "attention" alone finds papers
    first = reply_to(slack, url)
    accepted(slack, "corrected first page")
    instead = [v for v in page_buttons(first) if v.get("exact")]
    nxt = [v for v in page_buttons(first) if not v.get("exact")]
    assert instead and nxt  # both buttons on one page
    for action_id, value in (("results_page_instead", instead[0]), ("results_page", nxt[0])):
        _, url = slack.click(action_id, value)
        reply_to(slack, url)
        accepted(slack, f"page for {value}")


def test_every_card_notice_and_error_is_accepted(slack: SlackHarness) -> None:
    (kistego,) = slack.index.by_name("KIStego")
    for text in (
        "show KIStego",
        "similar UniSparse",
        "random",
        "today",
        "help",
        "",
        "status",
        "subscribe 09:30 Europe/Berlin",
        "status",
        "unsubscribe",
        "subscribe 25:99",
        "show nosuchpaperatall",
        "search qqqzzzxxy",
        "search " + "attention " * 60,
        "search NOT NOT attention",
        "show sparse",
        "frobnicate the widgets",
    ):
        _, url = slack.command(text)
        assert slack.replies(url), text
        accepted(slack, f"/paper {text}")
    for action_id, value in ((ACTION_SHARE, {"id": kistego.id}), (ACTION_DETAILS, "{not json")):
        _, url = slack.click(action_id, value)
        reply_to(slack, url)
        accepted(slack, f"button {action_id} {value}")
    for n, action_id in enumerate((ACTION_DETAILS, ACTION_SIMILAR, ACTION_ANOTHER), start=1):
        slack.click(action_id, {"id": kistego.id})  # answered in a modal
        (opened,) = slack.fake.wait_for("views.open", n)[n - 1 :]
        assert opened.answer["ok"], opened.answer
        accepted(slack, f"button {action_id} (modal)")


def test_mention_dm_home_and_modals_are_accepted(slack: SlackHarness) -> None:
    (kistego,) = slack.index.by_name("KIStego")
    slack.event(mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000100.000100"), event_id="Ev0S1")
    slack.event(mention_event(f"<@{BOT_USER_ID}> sparse attention", ts="1765000101.000100"), event_id="Ev0S2")
    slack.event(dm_event("show UniSparse", ts="1765000102.000100"), event_id="Ev0S3")
    slack.fake.wait_for("chat.postMessage", 3)
    slack.event(
        {
            "type": "app_home_opened",
            "user": "U0ALICE",
            "channel": "D0ALICE",
            "tab": "home",
            "event_ts": f"{time.time():.6f}",
        },
        event_id="Ev0S4",
    )
    slack.fake.wait_for("views.publish")
    slack.click(ACTION_HOME_SEARCH, {"open": 1}, in_view="home")
    slack.fake.wait_for("views.open")
    for query in ("image steganography", "qqqzzzxxy", "NOT NOT attention"):
        slack.interact(view_submission(query))
    slack.fake.wait_for("views.update", 3)
    slack.click(ACTION_DETAILS, {"id": kistego.id}, in_view="home")
    slack.fake.wait_for("views.open", 2)
    slack.click(ACTION_SIMILAR, {"id": kistego.id}, in_view="modal", view_id="V0DETAILS")
    slack.fake.wait_for("views.push")
    slack.drain()
    assert all(c.answer.get("ok") for c in slack.fake.calls() if isinstance(c.answer, dict)), [
        c.answer for c in slack.fake.calls() if isinstance(c.answer, dict) and not c.answer.get("ok")
    ]
    accepted(slack, "mentions, DM, Home, modals")


def test_the_digest_and_its_thread_are_accepted(slack: SlackHarness, tmp_path) -> None:
    _, url = slack.command("subscribe 09:30 Europe/Berlin", channel="C0DIGEST")
    reply_to(slack, url)
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=slack.fake.api_url)))
    summary = send(slack.store, slack.index, poster, datetime.now(timezone.utc))
    assert summary.posted == 1
    posts = [c for c in slack.fake.calls("chat.postMessage") if c.body.get("channel") == "C0DIGEST"]
    assert len(posts) == 3 and all(c.answer["ok"] for c in posts)  # confirmation, parent, abstract
    parent = posts[1].answer["message"]
    assert parent["text"].startswith("Paper of the day · ") and "potd-" not in parent["text"]
    assert parent["metadata"]["event_payload"]["marker"].startswith("potd-")  # the marker is here
    accepted(slack, "digest")
