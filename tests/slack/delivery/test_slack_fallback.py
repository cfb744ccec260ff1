"""When Slack refuses a message anyway, the user still gets an answer (issue 9 point 2).

The strict fake refuses a reply with a broken block (two buttons sharing an
action_id); the bot logs Slack's reasons once and sends the plain text —
through a ``response_url``, ``chat.postMessage`` and ``views.*``.
"""

from __future__ import annotations

import logging
import time

import pytest

from bot.core.config import Settings
from bot.core.ports import Message
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from bot.slack.listeners import common, slash_command
from tests.slack.slackkit import BOT_TOKEN, SlackHarness

BROKEN = {
    "type": "actions",
    "elements": [
        {"type": "button", "action_id": "same", "text": {"type": "plain_text", "text": "A"}},
        {"type": "button", "action_id": "same", "text": {"type": "plain_text", "text": "B"}},
    ],
}
BROKEN_MESSAGE = Message(text="*3 papers* match “sparse”", blocks=(BROKEN,))

pytestmark = pytest.mark.slack_rejects


def refusal_logs(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]


def test_a_refused_command_reply_is_sent_again_as_plain_text(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(slash_command, "render", lambda reply: BROKEN_MESSAGE)
    _, url = slack.command("search sparse")
    first, second = slack.replies(url, 2)
    assert first["blocks"] == [BROKEN] and "blocks" not in second
    assert second["text"] == BROKEN_MESSAGE.text and second["response_type"] == "ephemeral"
    calls = slack.fake.calls("response_url")
    assert [(c.status, c.answer) for c in calls] == [(400, "invalid_blocks"), (200, "ok")]
    slack.drain()
    (logged,) = refusal_logs(caplog)
    assert "invalid_blocks" in logged


def test_a_refused_post_is_posted_as_plain_text_with_slacks_reasons_logged(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=slack.fake.api_url)))
    ts = poster.post("C0GENERAL", BROKEN_MESSAGE)
    refused, plain = slack.fake.calls("chat.postMessage")
    assert refused.answer["error"] == "invalid_blocks" and plain.answer["ts"] == ts
    assert slack.fake.history["C0GENERAL"][-1]["text"] == BROKEN_MESSAGE.text
    (logged,) = refusal_logs(caplog)
    assert "[json-pointer:/blocks/0/elements/1/action_id]" in logged  # Slack's own words, once


def test_a_refused_home_tab_is_published_as_plain_text(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(common, "home_view", lambda *a: {"type": "home", "blocks": [BROKEN]})
    slack.event(
        {
            "type": "app_home_opened",
            "user": "U0ALICE",
            "channel": "D0ALICE",
            "tab": "home",
            "event_ts": f"{time.time():.6f}",
        },
        event_id="Ev0FALL1",
    )
    refused, plain = slack.fake.wait_for("views.publish", 2)
    assert refused.answer["error"] == "invalid_arguments" and plain.answer["ok"]
    assert "/paper help" in str(plain.body["view"])
    slack.drain()
    (logged,) = refusal_logs(caplog)
    assert "action_id must be unique" in logged


def test_a_response_url_answering_200_without_ok_counts_as_refused(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter([(200, "invalid_blocks"), (200, "ok")])
    monkeypatch.setattr(slack.fake, "_respond", lambda path, body: next(answers))
    monkeypatch.setattr(slash_command, "render", lambda reply: BROKEN_MESSAGE)
    _, url = slack.command("search sparse")
    first, second = slack.replies(url, 2)
    assert "blocks" in first and "blocks" not in second and second["text"] == BROKEN_MESSAGE.text


def test_a_response_url_that_is_not_a_url_is_one_warning_and_not_tried_again(caplog) -> None:
    from slack_bolt.context.respond import Respond

    from bot.slack.delivery.response_url import respond_or_plain

    caplog.set_level(logging.DEBUG)
    assert respond_or_plain(Respond(response_url="not a url"), Message(text="hi")) is True
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "the request's response_url is not an http(s) URL; the reply cannot be sent"
    ]
    assert warnings[0].exc_info is None


def test_slack_sdks_first_failure_line_is_a_warning(caplog) -> None:
    import bot.slack.app  # noqa: F401 — installs the filter

    caplog.set_level(logging.DEBUG)
    sdk = logging.getLogger("slack_sdk.web.base_client")
    sdk.error("Failed to send a request to Slack API server: <urlopen error [Errno 111] refused>")
    sdk.error("Failed to decode Slack API response: x")
    assert [(r.levelname, r.getMessage()[:24]) for r in caplog.records if r.name == sdk.name] == [
        ("WARNING", "Failed to send a request"),
        ("ERROR", "Failed to decode Slack A"),
    ]
