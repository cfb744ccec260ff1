"""Onboarding end to end (issue 12 point 5): signed events through the real HTTP
server (and one through Socket Mode's dispatch), the real store, the strict fake."""

from __future__ import annotations

import time

from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.slackkit import SlackHarness, shown_strings, wait_until


def opened(tab: str, user: str = "U0ALICE", channel: str = "D0ALICE") -> dict:
    return {"type": "app_home_opened", "user": user, "channel": channel, "tab": tab, "event_ts": f"{time.time():.6f}"}


def joined(user: str, channel: str = "C0NEW") -> dict:
    """``member_joined_channel`` (docs.slack.dev/reference/events/member_joined_channel)."""
    return {
        "type": "member_joined_channel",
        "user": user,
        "channel": channel,
        "channel_type": "C",
        "team": TEAM_ID,
        "inviter": "U0ALICE",
        "event_ts": f"{time.time():.6f}",
    }


def posts(slack: SlackHarness, channel: str) -> list:
    return [c for c in slack.fake.calls("chat.postMessage") if c.body.get("channel") == channel]


def test_first_open_of_the_messages_tab_says_hello_once(slack: SlackHarness) -> None:
    slack.event(opened("messages"), event_id="Ev0W1")
    (hello,) = slack.fake.wait_for("chat.postMessage")
    slack.event(opened("messages"), event_id="Ev0W2")  # second open: silence
    slack.event(opened("messages", user="U0BOB", channel="D0BOB"), event_id="Ev0W3")
    slack.fake.wait_for("chat.postMessage", 2)
    slack.drain()
    assert hello.body["channel"] == "D0ALICE"
    text = " ".join(shown_strings(hello.body))
    assert "/paper subscribe" in text and "search" in text
    assert len(posts(slack, "D0ALICE")) == 1 and len(posts(slack, "D0BOB")) == 1
    assert slack.fake.calls("views.publish") == []  # the Home tab is not drawn


def test_the_home_tab_gets_no_hello(slack: SlackHarness) -> None:
    slack.event(opened("home"), event_id="Ev0W4")
    slack.fake.wait_for("views.publish")
    slack.drain()
    assert slack.fake.calls("chat.postMessage") == []


def test_the_bot_added_to_a_channel_says_hello_there_once(slack: SlackHarness) -> None:
    slack.fake.add_channel("C0NEW", bot_member=True)
    slack.event(joined("U0CAROL"), event_id="Ev0J0")  # someone else: nothing
    slack.event(joined(BOT_USER_ID), event_id="Ev0J1")
    (hello,) = slack.fake.wait_for("chat.postMessage")
    slack.event(joined(BOT_USER_ID), event_id="Ev0J2")  # re-added: already said
    slack.drain()
    assert [c.body["channel"] for c in slack.fake.calls("chat.postMessage")] == ["C0NEW"]
    assert "paper of the day here" in " ".join(shown_strings(hello.body))


def test_a_hello_slack_refused_is_tried_again_next_time(slack: SlackHarness) -> None:
    slack.fake.fail_method("chat.postMessage", "ratelimited")
    slack.event(opened("messages"), event_id="Ev0W5")
    slack.fake.wait_for("chat.postMessage")
    wait_until(
        lambda: slack.store.mark("onboard", f"user:{TEAM_ID}:U0ALICE") == (False, None), what="the mark forgotten"
    )
    slack.fake.stop_failing("chat.postMessage")
    slack.event(opened("messages"), event_id="Ev0W6")
    wait_until(lambda: len(slack.fake.calls("chat.postMessage")) >= 2, what="second try")
    slack.drain()
    assert slack.fake.calls("chat.postMessage")[-1].answer["ok"] is True


def test_socket_mode_member_joined_channel_says_hello(slack: SlackHarness) -> None:
    envelope = {
        "token": "x",
        "team_id": TEAM_ID,
        "api_app_id": "A0PAPERBOT",
        "type": "event_callback",
        "event": joined(BOT_USER_ID, "C0SOCK"),
        "event_id": "Ev0JS",
        "event_time": 1,
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }
    response = run_bolt_app(slack.app, SocketModeRequest("events_api", "env-w-1", envelope))
    assert response.status == 200
    (hello,) = slack.fake.wait_for("chat.postMessage")
    assert hello.body["channel"] == "C0SOCK"
