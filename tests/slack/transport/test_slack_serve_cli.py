"""``paperbot serve`` as an operator runs it: a real process, configured by the
environment, answering signed requests; idempotency through the SQL store."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeslack import BOT_USER_ID, FakeSlack
from tests.kit import ROOT, stop_process
from tests.slack.slackkit import SECRET, SEEDS, SlackHarness, mention_event


@pytest.fixture
def served(fake_slack: FakeSlack, tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        SLACK_BOT_TOKEN="xoxb-test-token",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake_slack.api_url.rstrip("/"),  # the "/" is added by Settings
        PAPERBOT_INDEX_DIR=str(tmp_path / "index"),
        PAPERBOT_SEEDS=str(SEEDS),
        DATABASE_URL=f"sqlite:///{tmp_path / 'paperbot.db'}",
        PORT="0",  # a free port
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1"],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        match, lines = None, []
        for line in proc.stderr:  # index build, then the line naming the port
            lines.append(line)
            if match := re.search(r"serving on http://127\.0\.0\.1:(\d+)", line):
                break
        assert match, f"no line names the port; stderr: {''.join(lines)[-2000:]}"
        yield proc, SlackHarness(f"http://127.0.0.1:{match.group(1)}", fake_slack, None, None, None, None)
    finally:
        stop_process(proc)
        proc.stderr.close()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])  # Ctrl-C; Heroku/Docker stop
def test_serve_answers_commands_and_mentions_once(served, stop: signal.Signals) -> None:
    proc, slack = served
    assert slack.request("GET", "/healthz").body == b"ok"

    response, url = slack.command("search image steganography")
    assert response.status == 200
    (reply,) = slack.replies(url)
    assert "KIStego" in json.dumps(reply["blocks"])

    event = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000100.000100")
    slack.event(event, event_id="Ev0SERVE1")
    slack.fake.wait_for("chat.postMessage")
    assert slack.event(event, event_id="Ev0SERVE1", retry_num=1).status == 200

    # Stopping the process joins its listener threads (concurrent.futures
    # waits for submitted work at exit): after this nothing more can be posted.
    proc.send_signal(stop)
    assert proc.wait(timeout=15) == 0
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_url_verification_against_the_real_process_and_what_a_wrong_secret_logs(served) -> None:
    """README "Connecting a real workspace", step 5: Slack's signed challenge is echoed; a
    challenge signed with another secret is refused with the one log line the README shows."""
    from bot.slack.transport.http_server import MISMATCH, STALE
    from tests.signing import JSON, signed_headers

    proc, slack = served
    challenge = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    body = json.dumps({"token": "deprecated", "challenge": challenge, "type": "url_verification"})
    good = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=JSON))
    assert good.status == 200 and json.loads(good.body) == {"challenge": challenge}

    wrong = slack.request(
        "POST", "/slack/events", body, signed_headers("the-client-secret-instead", body, content_type=JSON)
    )
    old = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=JSON, age_s=600))
    assert wrong.status == 401 and old.status == 401 and challenge not in (wrong.text + old.text)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=15)
    rejected = [line for line in proc.stderr.read().splitlines() if "rejected a request" in line]
    assert len(rejected) == 2, rejected
    assert (
        " WARNING bot.slack.transport.http_server: rejected a request to /slack/events (401): " + MISMATCH
        in rejected[0]
    )
    assert STALE.split("{age}")[0] in rejected[1] and "600 s" in rejected[1]
