"""Socket Mode: the same listeners through Bolt's socket-mode dispatch (no network).

``run_bolt_app`` is what Bolt's ``SocketModeHandler.handle`` calls for each
envelope: signature checks are skipped and ``retry_attempt`` becomes the
``X-Slack-Retry-Num`` header (docs/platform-facts.md "Socket Mode").
"""

from __future__ import annotations

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.slack.transport.socket_mode import run_socket, socket_handler
from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.slackkit import SlackHarness, mention_event


def test_slash_command_envelope_is_acked_and_answered(slack: SlackHarness) -> None:
    url = slack.fake.new_response_url()
    payload = {
        "team_id": TEAM_ID,
        "channel_id": "C0GENERAL",
        "channel_name": "general",
        "user_id": "U0ALICE",
        "command": "/paper",
        "text": "search image steganography",
        "response_url": url,
        "trigger_id": "1.2.3",
        "api_app_id": "A0PAPERBOT",
    }
    response = run_bolt_app(slack.app, SocketModeRequest("slash_commands", "env-1", payload))
    assert response.status == 200 and not response.body
    (reply,) = slack.replies(url)
    (kistego,) = slack.index.by_name("KIStego")
    assert kistego.id in str(reply["blocks"])


def test_mention_envelope_and_its_retry_answer_once(slack: SlackHarness) -> None:
    payload = {
        "team_id": TEAM_ID,
        "api_app_id": "A0PAPERBOT",
        "type": "event_callback",
        "event_id": "Ev0SOCK1",
        "event_time": 1765000000,
        "event": mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000010.000100"),
    }
    assert run_bolt_app(slack.app, SocketModeRequest("events_api", "env-2", payload)).status == 200
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["thread_ts"] == "1765000010.000100"

    retry = SocketModeRequest("events_api", "env-3", payload, retry_attempt=1, retry_reason="timeout")
    assert run_bolt_app(slack.app, retry).status == 200
    slack.drain()
    assert ("event:Ev0SOCK1", True) in slack.seen_log
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_handler_needs_an_app_token(slack: SlackHarness) -> None:
    with pytest.raises(ValueError, match="xapp"):
        run_socket(slack.app, "")
    handler = socket_handler(slack.app, "xapp-1-A0-1-x")
    assert handler.app is slack.app and handler.app_token == "xapp-1-A0-1-x"
    handler.close()
