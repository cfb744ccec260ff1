"""Socket Mode over a real websocket (``tests/fakesocket.py``): the bot survives a dropped
connection, ``disconnect`` messages and missing pongs, and stops on ``link_disabled``."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading

import pytest
from slack_sdk import WebClient

from bot.slack.transport.socket_mode import DISABLED_MESSAGE, SocketModeDisabled, run_socket
from tests.fakeslack import TEAM_ID
from tests.fakesocket import FakeSocketMode
from tests.kit import ROOT
from tests.slack.slackkit import SlackHarness, wait_until

APP_TOKEN = "xapp-1-A0PAPERBOT-1-test"


def command_envelope(envelope_id: str, response_url: str, text: str = "search image steganography") -> dict:
    payload = {
        "team_id": TEAM_ID,
        "channel_id": "C0GENERAL",
        "channel_name": "general",
        "user_id": "U0ALICE",
        "command": "/paper",
        "text": text,
        "response_url": response_url,
        "trigger_id": "1.2.3",
        "api_app_id": "A0PAPERBOT",
    }
    return {"envelope_id": envelope_id, "type": "slash_commands", "payload": payload, "accepts_response_payload": True}


class Running:
    """``run_socket`` in a thread; ``stop()`` ends it the way Slack can (``link_disabled``)."""

    def __init__(self, slack: SlackHarness, fake: FakeSocketMode, ping_interval: float = 10.0) -> None:
        self.slack, self.fake, self.error = slack, fake, None
        client = WebClient(base_url=fake.api_url)
        self.thread = threading.Thread(target=self._run, args=(client, ping_interval), daemon=True)
        self.thread.start()

    def _run(self, client: WebClient, ping_interval: float) -> None:
        try:
            run_socket(self.slack.app, APP_TOKEN, web_client=client, ping_interval=ping_interval)
        except BaseException as e:  # noqa: BLE001 — handed to the test
            self.error = e

    def answered(self, envelope_id: str) -> None:
        """Send a search envelope on the newest connection; check the ack and the results."""
        url = self.slack.fake.new_response_url()
        self.fake.send(command_envelope(envelope_id, url))
        self.fake.wait_for_ack(envelope_id)
        (reply,) = self.slack.replies(url)
        (kistego,) = self.slack.index.by_name("KIStego")
        assert kistego.id in str(reply["blocks"])

    def stop(self) -> None:
        if self.thread.is_alive() and self.fake.links:
            self.fake.disconnect("link_disabled")
        self.thread.join(15)
        assert not self.thread.is_alive()


@pytest.fixture
def sockfake():
    with FakeSocketMode() as fake:
        yield fake


@pytest.fixture
def running(slack: SlackHarness, sockfake: FakeSocketMode):
    started: list[Running] = []

    def start(**kwargs) -> Running:
        started.append(Running(slack, sockfake, **kwargs))
        return started[-1]

    yield start
    for r in started:
        r.stop()


def test_a_dropped_connection_reconnects_and_the_next_envelope_is_answered(running, sockfake):
    bot = running()
    sockfake.wait_for_links(1)
    bot.answered("env-1")
    sockfake.drop()  # the server goes away mid-stream, no close frame
    sockfake.wait_for_links(2)
    assert sockfake.opened == 2  # a fresh URL from apps.connections.open
    bot.answered("env-2")


@pytest.mark.parametrize("reason", ["warning", "refresh_requested"])
def test_a_disconnect_message_moves_to_a_new_connection(running, sockfake, reason):
    bot = running()
    sockfake.wait_for_links(1)
    sockfake.disconnect(reason)
    sockfake.wait_for_links(2)
    wait_until(lambda: not sockfake.links[0].open, what="the old connection closed by the bot")
    bot.answered("env-after-" + reason)


def test_no_pong_is_a_dead_connection_and_the_bot_reconnects(running, sockfake):
    sockfake.answer_pings = False  # the network stops delivering; the socket stays "open"
    bot = running(ping_interval=0.5)  # stale after 4 intervals without a pong
    sockfake.wait_for_links(1)
    sockfake.wait_for_links(2, timeout=20)
    sockfake.answer_pings = True
    assert sockfake.links[0].pings >= 2 and not sockfake.links[0].open
    bot.answered("env-after-silence")


def test_an_envelope_slack_would_not_send_is_acked_with_one_warning(running, sockfake, caplog):
    # A view submission whose view is null made Bolt's own matchers raise (a 500, a
    # traceback, and over Socket Mode no ack at all); the same shape checks as over HTTP.
    caplog.set_level(logging.INFO)
    bot = running()
    sockfake.wait_for_links(1)
    payload = {"type": "view_submission", "user": {"id": "U0ALICE"}, "team": {"id": TEAM_ID}, "view": None}
    sockfake.send({"envelope_id": "env-bad", "type": "interactive", "payload": payload})
    assert sockfake.wait_for_ack("env-bad")["envelope_id"] == "env-bad"
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING and "connected to Slack" not in r.getMessage()]
    assert len(loud) == 1 and "without a view" in loud[0].getMessage() and loud[0].exc_info is None
    bot.answered("env-after")  # and the connection goes on


def test_link_disabled_stops_with_one_error_instead_of_reconnecting(running, sockfake, caplog):
    caplog.set_level(logging.INFO)
    bot = running()
    sockfake.wait_for_links(1)
    bot.answered("env-1")
    sockfake.disconnect("link_disabled")
    bot.thread.join(15)
    assert isinstance(bot.error, SocketModeDisabled)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == [DISABLED_MESSAGE]
    assert sockfake.opened == 1 and not any(link.open for link in sockfake.links)


@pytest.mark.long_wall
def test_paperbot_socket_exits_1_with_one_error_line_on_link_disabled(tmp_path, fake_slack):
    with FakeSocketMode(upstream=fake_slack.base_url) as sockfake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
        env.update(
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_APP_TOKEN=APP_TOKEN,
            SLACK_API_URL=sockfake.api_url,
            PAPERBOT_SEEDS=str(ROOT / "seeds"),
            PAPERBOT_INDEX_DIR=str(tmp_path / "index"),
            DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}",
            PYTHONPATH=str(ROOT),
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "socket", "--no-clock"],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            sockfake.wait_for_links(1, timeout=60)
            url = fake_slack.new_response_url()
            sockfake.send(command_envelope("env-cli", url))
            sockfake.wait_for_ack("env-cli")
            fake_slack.wait_for("response_url", where=lambda c: url.endswith(c.path))
            sockfake.disconnect("link_disabled")
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 1, err
    errors = [line for line in err.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "Socket Mode is switched off in the app settings" in errors[0], err
    assert "Traceback" not in err and sockfake.opened == 1
