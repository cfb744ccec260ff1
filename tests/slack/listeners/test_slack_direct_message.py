"""Direct messages (``message.im``) end to end: answered like a mention, once, in the DM.

Signed Events API envelopes through the real HTTP server; the answer is a
``chat.postMessage`` recorded by the fake Slack (issue 5 item 5).
"""

from __future__ import annotations

import json

from tests.fakeslack import BOT_ID, BOT_USER_ID, TEAM_ID
from tests.slack.slackkit import SlackHarness, dm_event, shown_strings


def kistego_id(slack: SlackHarness) -> str:
    (paper,) = slack.index.by_name("KIStego")
    return paper.id


def test_a_dm_gets_exactly_one_answer_in_the_dm_and_a_retry_none(slack: SlackHarness) -> None:
    event = dm_event("KIStego", ts="1765100000.000100")

    assert slack.event(event, event_id="Ev0DM1").status == 200
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["channel"] == "D0ALICE"
    assert "thread_ts" not in post.body  # a plain reply, not a thread
    assert kistego_id(slack) in json.dumps(post.body["blocks"])

    assert slack.event(event, event_id="Ev0DM1", retry_num=1).status == 200
    slack.drain()
    assert ("event:Ev0DM1", True) in slack.seen_log
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_words_in_a_dm_are_searched_like_a_mention(slack: SlackHarness) -> None:
    slack.event(dm_event("image steganography", ts="1765100001.000100"), event_id="Ev0DM2")
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert kistego_id(slack) in json.dumps(post.body["blocks"])


def test_a_dm_in_a_thread_is_answered_in_that_thread(slack: SlackHarness) -> None:
    event = dm_event("UniSparse", ts="1765100002.000200", thread_ts="1765100000.000001")
    slack.event(event, event_id="Ev0DM3")
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["thread_ts"] == "1765100000.000001"


def test_an_edit_with_a_new_event_id_is_not_answered_again(slack_factory) -> None:
    slack = slack_factory(store_seen=True)
    event = dm_event("UniSparse", ts="1765100003.000300")
    slack.event(event, event_id="Ev0DM4")
    slack.fake.wait_for("chat.postMessage")
    # Slack's edit of a DM: subtype message_changed, ignored outright …
    changed = {
        "type": "message",
        "subtype": "message_changed",
        "channel": "D0ALICE",
        "channel_type": "im",
        "ts": "1765100009.000100",
        "hidden": True,
        "message": dict(event, text="UniSparse please", edited={"user": "U0ALICE"}),
    }
    slack.event(changed, event_id="Ev0DM5")
    # … and the same message delivered again under another event id: the ts key.
    slack.event(event, event_id="Ev0DM6")
    slack.drain()
    assert (f"msg:{TEAM_ID}:D0ALICE:1765100003.000300", True) in slack.seen_log
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_bots_and_other_subtypes_are_never_answered(slack: SlackHarness) -> None:
    own = dm_event("KIStego", ts="1765100010.0", user=BOT_USER_ID, bot_id=BOT_ID)
    other_bot = dm_event("KIStego", ts="1765100011.0", bot_id="B0OTHER", subtype="bot_message")
    deleted = {
        "type": "message",
        "subtype": "message_deleted",
        "channel": "D0ALICE",
        "channel_type": "im",
        "ts": "1765100012.0",
        "deleted_ts": "1765100000.000100",
    }
    joined = dm_event("joined", ts="1765100013.0", subtype="channel_join")
    in_a_channel = dict(dm_event("KIStego", ts="1765100014.0", channel="C0GENERAL"), channel_type="channel")
    for n, event in enumerate([own, other_bot, deleted, joined, in_a_channel]):
        assert slack.event(event, event_id=f"Ev0DMIGN{n}").status == 200
    human = dm_event("KIStego", ts="1765100015.0")
    slack.event(human, event_id="Ev0DMHUMAN")
    slack.fake.wait_for("chat.postMessage")
    slack.drain()
    (post,) = slack.fake.calls("chat.postMessage")
    assert post.body["channel"] == "D0ALICE"
    assert [k for k, _ in slack.seen_log if k.startswith("event:")] == ["event:Ev0DMHUMAN"]


def test_the_bots_own_reply_event_is_not_answered(slack: SlackHarness) -> None:
    # What Slack sends back after our answer is posted in the DM.
    slack.event(dm_event("KIStego", ts="1765100020.0"), event_id="Ev0DM7")
    (post,) = slack.fake.wait_for("chat.postMessage")
    echo = dm_event(post.body["text"], ts="1765100021.0", user=BOT_USER_ID, bot_id=BOT_ID, app_id="A0PAPERBOT")
    assert slack.event(echo, event_id="Ev0DM8").status == 200
    slack.drain()
    assert len(slack.fake.calls("chat.postMessage")) == 1


def _dm_answer(slack: SlackHarness, text: str, n: int) -> str:
    before = len(slack.fake.calls("chat.postMessage"))
    slack.event(dm_event(text, ts=f"17651000{n:02d}.000500"), event_id=f"Ev0DMW{n}")
    posts = slack.fake.wait_for("chat.postMessage", count=before + 1)
    return " ".join(shown_strings(posts[-1].body))


def test_help_in_a_dm_is_written_for_a_dm(slack: SlackHarness) -> None:
    shown = _dm_answer(slack, "help", 1)
    assert "searches this workspace's conference papers" in shown
    assert "`@paperbot subscribe" not in shown and "Anything after `@paperbot`" not in shown
    assert "in this channel" not in shown
    assert "`subscribe me [HH:MM] [zone] [about &lt;topic&gt;]` — your personal paper of the day, posted here" in shown
    named = slack.index.examples().paper()  # a paper of the loaded index (issue 18 point 7)
    assert f"`show &lt;id|name&gt;` — one paper in full, e.g. `show {named}`" in shown
    # a mistyped or half-typed command in a DM is offered without `@paperbot` too
    assert "Did you mean `subscribe me 08:00`?" in _dm_answer(slack, "subscibe me 08:00", 2)
    assert "Did you mean `status`?" in _dm_answer(slack, "status please", 3)


def test_a_hello_or_thanks_in_a_dm_is_greeted_with_how_to_start(slack: SlackHarness) -> None:
    for n, text in enumerate(("hi!", "Hello there :wave:", "thanks", "thank you so much!"), start=4):
        shown = _dm_answer(slack, text, n)
        assert "not confident" not in shown, shown
        assert ("Hi! " in shown or "You're welcome!" in shown) and "`help`" in shown, shown
        assert "@paperbot" not in shown
