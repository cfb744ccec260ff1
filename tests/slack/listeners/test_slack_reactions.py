"""Signals end to end (issue 22 point 1; docs/slack-rules.md [reactions]): signed ``reaction_added`` /
``reaction_removed`` events, *Save* and *Share* clicks, a mention and ``/paper
forget`` through the real HTTP server, against the strict fake Slack, on SQLite
and PostgreSQL. 👍 / 👎 on the bot's own post about one paper count for the user
and the channel; anything else is ignored without a reply; a save never counts
for a channel.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from bot.digest import send
from bot.render import ACTION_SAVE, ACTION_SHARE
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from tests.fakeslack import TEAM_ID
from tests.slack.listeners.test_slack_buttons import buttons
from tests.slack.slackkit import SlackHarness, make_settings, mention_event, shown_strings, wait_until

T0 = 1765000000.0


def react(
    slack: SlackHarness,
    name: str,
    ts: str,
    *,
    user: str,
    event_id: str,
    at: float,
    channel: str = "C0GENERAL",
    added: bool = True,
    retry_num: int | None = None,
    item: dict | None = None,
) -> int:
    """Send a signed reaction event as Slack does; the HTTP status."""
    event = {
        "type": "reaction_added" if added else "reaction_removed",
        "user": user,
        "reaction": name,
        "item_user": "UBOT",
        "item": item if item is not None else {"type": "message", "channel": channel, "ts": ts},
        "event_ts": f"{at:.6f}",
    }
    return slack.event(event, event_id=event_id, retry_num=retry_num).status


def signals(slack: SlackHarness, subject: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = slack.service.signals(TEAM_ID, subject)
    return found.positives, found.negatives


def save_and_share(slack: SlackHarness, saves: int) -> tuple[list[str], str]:
    """Alice saves the first ``saves`` papers, then shares the first result of a
    search in C0GENERAL: ``(saved ids, shared id)``."""
    ids = slack.index.ids()[:saves]
    for pid in ids:
        _, url = slack.click(ACTION_SAVE, {"id": pid})
        slack.replies(url)
    wait_until(lambda: set(signals(slack, "U0ALICE")[0]) == set(ids), what="saves as positives")
    assert signals(slack, "C0GENERAL") == ((), ())  # nothing private shapes the channel
    _, url = slack.command("search sparse attention")
    value = buttons(slack.replies(url)[0], ACTION_SHARE)[0]
    _, url = slack.click(ACTION_SHARE, value)
    slack.replies(url)
    return ids, value["id"]


def posts(slack: SlackHarness) -> list:
    """Every message the bot posted or answered (chat.*, response_url)."""
    return [c for c in slack.fake.calls() if c.method in ("chat.postMessage", "chat.postEphemeral", "response_url")]


def test_thumbs_on_the_digest_post_count_for_the_user_and_the_channel_and_nothing_else_does(
    slack_factory, db_url, tmp_path
):
    slack = slack_factory(store_seen=True, database_url=db_url)
    now = datetime.now(timezone.utc)
    slack.store.upsert_subscription(TEAM_ID, "C0GENERAL", "09:00", "UTC", "U0ALICE", now)
    poster = SlackPoster(make_client(make_settings(slack.fake, tmp_path)))
    assert send(slack.store, slack.index, poster, now).posted == 1
    (parent,) = [c for c in slack.fake.calls("chat.postMessage") if not c.body.get("thread_ts")]
    ts = parent.answer["ts"]
    pid = slack.store.get_delivery(TEAM_ID, "C0GENERAL", now.date()).paper_id
    before = len(posts(slack))

    assert react(slack, "+1::skin-tone-3", ts, user="U0ALICE", event_id="Ev0A1", at=T0 + 10) == 200
    wait_until(lambda: signals(slack, "U0ALICE") == ((pid,), ()), what="Alice's 👍")
    wait_until(lambda: signals(slack, "C0GENERAL") == ((pid,), ()), what="the channel's 👍")
    # Slack sends it again: claimed once
    assert react(slack, "+1::skin-tone-3", ts, user="U0ALICE", event_id="Ev0A1", at=T0 + 10, retry_num=1) == 200
    wait_until(lambda: ("event:Ev0A1", True) in slack.seen_log, what="the retry seen as handled")

    assert react(slack, "thumbsdown", ts, user="U0BOB", event_id="Ev0B1", at=T0 + 20) == 200
    wait_until(lambda: signals(slack, "U0BOB") == ((), (pid,)), what="Bob's 👎")
    # one up, one down: the newest decides for the channel
    wait_until(lambda: signals(slack, "C0GENERAL") == ((), (pid,)), what="the channel's tie")

    assert react(slack, "+1::skin-tone-3", ts, user="U0ALICE", event_id="Ev0A2", at=T0 + 30, added=False) == 200
    wait_until(lambda: signals(slack, "U0ALICE") == ((), ()), what="Alice's 👍 taken back")

    # a removal that arrives before the reaction it undoes leaves nothing, in either order of handling
    assert react(slack, "thumbsup", ts, user="U0CAROL", event_id="Ev0C2", at=T0 + 50, added=False) == 200
    assert react(slack, "thumbsup", ts, user="U0CAROL", event_id="Ev0C1", at=T0 + 40) == 200

    # ignored, without a reply: another emoji, someone's own message, a file, a deleted
    # or unknown post, a malformed item, a thread reply of the digest, and a flood
    slack.fake.user_message("C0GENERAL", "1765000500.000100", user="U0ERIN")
    thread_reply = [c for c in slack.fake.calls("chat.postMessage") if c.body.get("thread_ts")][0].answer["ts"]
    odd = [
        ("heart", ts, None),
        ("+1", "1765000500.000100", None),
        ("+1", "", {"type": "file", "file": "F0PAPER"}),
        ("-1", "1765999999.000100", None),
        ("+1", "", {"type": "message"}),
        ("+1", thread_reply, None),
        ("thumbsup", ts, "not an object"),
    ]
    for n, (name, where, item) in enumerate(odd):
        assert react(slack, name, where, user="U0DAVE", event_id=f"Ev0D{n}", at=T0 + 60, item=item) == 200
    for n in range(40):
        assert react(slack, "+1", f"1765000{n:03d}.000100", user="U0DAVE", event_id=f"Ev0F{n}", at=T0 + 70) == 200
    slack.drain()

    assert signals(slack, "U0CAROL") == ((), ())
    assert signals(slack, "U0DAVE") == ((), ()) and signals(slack, "U0ERIN") == ((), ())
    assert signals(slack, "C0GENERAL") == ((), (pid,))  # Bob's 👎 alone
    assert len(posts(slack)) == before  # not one reply to any reaction


def test_saves_are_private_shares_and_answers_count_where_they_were_made(slack_factory, db_url):
    slack = slack_factory(database_url=db_url)
    ids, shared = save_and_share(slack, 3)
    wait_until(lambda: signals(slack, "C0GENERAL") == ((shared,), ()), what="the share counted for the channel")
    assert shared in signals(slack, "U0ALICE")[0]
    (card,) = [
        c
        for c in slack.fake.calls("chat.postMessage")
        if c.body.get("channel") == "C0GENERAL" and not c.body.get("thread_ts")
    ]
    # the card is recorded right after Slack took it (a person reacts later than that)
    wait_until(lambda: slack.store.post_paper(TEAM_ID, "C0GENERAL", card.answer["ts"]) == shared, what="the card")
    assert react(slack, "thumbsup", card.answer["ts"], user="U0BOB", event_id="Ev0S1", at=T0) == 200
    wait_until(lambda: signals(slack, "U0BOB") == ((shared,), ()), what="Bob's 👍 on the shared card")

    # a mention answered with one paper: a 👍 on the answer counts
    other = ids[1]
    assert slack.event(mention_event(f"<@UBOT> {other}", ts="1765000300.000100"), event_id="Ev0M1").status == 200
    answer = slack.fake.wait_for("chat.postMessage", where=lambda c: c.body.get("thread_ts") == "1765000300.000100")[0]
    assert other in json.dumps(answer.body)
    wait_until(lambda: slack.store.post_paper(TEAM_ID, "C0GENERAL", answer.answer["ts"]) == other, what="the answer")
    assert react(slack, "+1", answer.answer["ts"], user="U0CAROL", event_id="Ev0M2", at=T0) == 200
    wait_until(lambda: signals(slack, "U0CAROL") == ((other,), ()), what="Carol's 👍 on the answer")
    wait_until(lambda: set(signals(slack, "C0GENERAL")[0]) == {shared, other}, what="the channel's 👍")

    # Remove takes the save back
    _, url = slack.click("saved_remove", {"id": ids[2]})
    slack.replies(url)
    wait_until(lambda: ids[2] not in signals(slack, "U0ALICE")[0], what="the removed save")


def test_forget_deletes_the_users_signals_and_only_with_everything_their_reading_list(slack_factory, db_url):
    slack = slack_factory(database_url=db_url)
    ids, shared = save_and_share(slack, 2)
    wait_until(lambda: signals(slack, "C0GENERAL")[0], what="the share")
    slack.service.record_signal(TEAM_ID, "U0BOB", ids[0], "more")  # Bob's: kept
    (card,) = [
        c
        for c in slack.fake.calls("chat.postMessage")
        if c.body.get("channel") == "C0GENERAL" and not c.body.get("thread_ts")
    ]
    wait_until(lambda: slack.store.post_paper(TEAM_ID, "C0GENERAL", card.answer["ts"]), what="the card")
    assert react(slack, "+1", card.answer["ts"], user="U0ALICE", event_id="Ev0FG1", at=T0) == 200
    wait_until(lambda: len(slack.store.signal_rows(TEAM_ID, "C0GENERAL")) == 2, what="Alice's 👍 for the channel")

    _, url = slack.command("forget")
    (said,) = slack.replies(url)
    text = " ".join(shown_strings(said))
    assert said.get("response_type", "ephemeral") == "ephemeral"
    # four things done (2 saves, a share, a 👍), though the share and the 👍 count for the channel too
    assert "forgot 4 signals of yours: 2 saves, 1 share and 1 👍." in text and "reading list is kept" in text
    assert signals(slack, "U0ALICE") == ((), ()) and signals(slack, "C0GENERAL") == ((), ())
    assert signals(slack, "U0BOB") == ((ids[0],), ())
    assert slack.store.reading_list_count(TEAM_ID, "U0ALICE") == 2

    _, url = slack.command("forget everything")
    text = " ".join(shown_strings(slack.replies(url)[0]))
    assert "no signals of yours" in text and "removed 2 papers from your reading list" in text
    assert slack.store.reading_list_count(TEAM_ID, "U0ALICE") == 0
    _, url = slack.command("forget please")  # filler: asked, not searched
    assert "Did you mean" in " ".join(shown_strings(slack.replies(url)[0]))
