"""The ``/paper`` listener's failure paths: never a traceback, never a 404 after ack."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.core.replies import NoticeReply
from bot.slack.app import WORK_SLOTS
from bot.slack.delivery.fallback import SORRY
from tests.slack.slackkit import shown_strings, wait_until


class BrokenService:
    """A service whose every answer fails — the adapter's error path, nothing else."""

    def command(self, text, ctx):
        raise RuntimeError("index exploded at /secret/path")

    mention = command


class EchoService:
    """Answers with what it was given, to show what the listener passes on."""

    def __init__(self) -> None:
        self.calls = []

    def command(self, text, ctx):
        self.calls.append((text, ctx))
        return NoticeReply(text=f"got {text}")

    mention = command


def test_an_exception_after_ack_becomes_a_polite_ephemeral_message(
    slack_factory, caplog: pytest.LogCaptureFixture
) -> None:
    slack = slack_factory(service=BrokenService())
    response, url = slack.command("search image steganography")

    assert response.status == 200 and response.body == b""
    (reply,) = slack.replies(url)
    assert reply["response_type"] == "ephemeral"
    assert reply["text"] == SORRY
    assert not any("exploded" in s or "Traceback" in s for s in shown_strings(reply))
    assert "index exploded" in caplog.text  # logged with its traceback


def test_the_listener_passes_decoded_text_and_context(slack_factory) -> None:
    service = EchoService()
    slack = slack_factory(service=service)
    _, url = slack.command("show a &amp;lt; b &gt; c", user="U0BOB", channel="C0RANDOM")
    slack.replies(url)
    ((text, ctx),) = service.calls
    assert text == "show a &lt; b > c"  # decoded exactly once
    assert (ctx.team_id, ctx.channel_id, ctx.user_id, ctx.user_tz, ctx.channel_name) == (
        "T0TEST",
        "C0RANDOM",
        "U0BOB",
        None,
        "general",
    )


def test_subscribe_context_carries_the_user_zone(slack_factory) -> None:
    service = EchoService()
    slack = slack_factory(service=service)
    slack.fake.user_tz["U0NYC"] = "America/New_York"
    _, url = slack.command("SUBSCRIBE", user="U0NYC")
    slack.replies(url)
    assert service.calls[0][1].user_tz == "America/New_York"


def test_a_dead_response_url_is_logged_not_raised(slack_factory, caplog: pytest.LogCaptureFixture) -> None:
    slack = slack_factory(service=EchoService())
    response, _ = slack.command("help", response_url=slack.fake.base_url + "/nowhere/1")  # fake: 404
    assert response.status == 200
    slack.fake.wait_for("unknown")
    wait_until(lambda: "response_url answered 404" in caplog.text, what="the 404 to be logged")


class SlowService:
    """Holds each call briefly, recording how many run at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0

    def command(self, text, ctx):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        time.sleep(0.05)  # overlap for the calls, not a timing assertion
        with self.lock:
            self.running -= 1
        return NoticeReply(text="done")

    mention = command


def test_service_calls_are_bounded_but_every_command_is_acked(slack_factory) -> None:
    service = SlowService()
    slack = slack_factory(service=service)
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda i: slack.command(f"search q{i}", user=f"U0USER{i}"), range(12)))
    assert [r.status for r, _ in results] == [200] * 12
    for _, url in results:
        slack.replies(url)
    assert 1 <= service.peak <= WORK_SLOTS


def test_a_reply_whose_connection_dropped_after_sending_is_not_sent_twice(slack_factory, caplog) -> None:
    # Slack took the body, then the line went dead: sending it again could show it twice
    # (a Share twice in the channel) — Bolt's own respond() would retry; ours does not.
    slack = slack_factory(service=EchoService())
    slack.fake.drop_connection("response_url", 1)
    _, url = slack.command("help")
    (reply,) = slack.replies(url)
    assert reply["text"] == "got help"
    time.sleep(3)  # a retry would come at once, or on a journal tick
    assert len(slack.fake.calls("response_url")) == 1
    assert "may or may not have arrived" in caplog.text
