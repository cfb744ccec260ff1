"""A reply Slack failed to take (HTTP 500, ``ok: false`` ``internal_error``, a
dropped connection) leaves the journal row pending; the journal tries again a
few times with pauses, and never posts a mention reply twice
(docs/architecture.md "Idempotency and the journal")."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.daily.post_times import utc_now
from bot.slack.delivery.journal import MAX_ATTEMPTS, RETRY_AFTER_S
from bot.store import EntryState
from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.burst import Servers, mention_envelope, replies_in_thread


@pytest.fixture
def server(fake_slack, seed_index, shared_db, tmp_path):
    """(app, journal) of one server on the shared database."""
    fake_slack.add_channel("C0GENERAL", bot_member=True)
    running = Servers(fake_slack, seed_index, shared_db, tmp_path, 1)
    yield running.apps[0], running.journals[0]
    running.close()


def _fail_next(fake, monkeypatch, method: str, times: int = 1, status: int = 500, page: str | None = None) -> None:
    """The next ``times`` calls of ``method`` (or "response_url") get HTTP ``status``
    — Slack's JSON ``internal_error``, or ``page`` as plain text (a proxy's error
    page); nothing is posted."""
    left = {"n": times}
    answer, respond = fake._answer, fake._respond

    def failing_answer(name, body):
        if name == method and left["n"] > 0:
            left["n"] -= 1
            if page is not None:
                return status, {"Content-Type": "text/plain"}, page
            return status, {}, {"ok": False, "error": "internal_error"}
        return answer(name, body)

    def failing_respond(path, body):
        if method == "response_url" and left["n"] > 0:
            left["n"] -= 1
            return 500, "internal error"
        return respond(path, body)

    monkeypatch.setattr(fake, "_answer", failing_answer)
    monkeypatch.setattr(fake, "_respond", failing_respond)


def _wait_until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.02)


def _later(journal, seconds: float) -> None:
    """Move the journal's clock past a deferred attempt's pause."""
    journal.clock = lambda: utc_now() + timedelta(seconds=seconds)


def _mention(event_id: str, ts: str) -> dict:
    return json.loads(mention_envelope(event_id, ts, text=f"<@{BOT_USER_ID}> KIStego"))


def test_a_mention_reply_refused_with_http_500_is_posted_on_the_next_attempt(server, fake_slack, monkeypatch) -> None:
    app, journal = server
    _fail_next(fake_slack, monkeypatch, "chat.postMessage")
    run_bolt_app(app, SocketModeRequest("events_api", "env-500", _mention("Ev0FAIL500", "1765400000.000100")))
    _wait_until(lambda: journal.retries_due() == 1)
    assert replies_in_thread(fake_slack, "1765400000.000100") == 1  # the refused one (HTTP 500)
    assert journal.store.journal_state("event:Ev0FAIL500")[0] == EntryState.PENDING
    assert journal.tick(app) == 0  # not before its pause
    _later(journal, RETRY_AFTER_S[0] + 1)
    assert journal.tick(app) == 1
    _wait_until(lambda: journal.store.journal_state("event:Ev0FAIL500")[0] == EntryState.DONE)
    statuses = [
        c.status for c in fake_slack.calls("chat.postMessage") if c.body.get("thread_ts") == "1765400000.000100"
    ]
    assert statuses == [500, 200]
    assert fake_slack.calls("conversations.replies")  # it looked before posting again


def test_a_proxy_error_page_instead_of_slack_json_is_tried_again(server, fake_slack, monkeypatch) -> None:
    app, journal = server
    _fail_next(fake_slack, monkeypatch, "chat.postMessage", status=503, page="Service Unavailable")
    run_bolt_app(app, SocketModeRequest("events_api", "env-503", _mention("Ev0PROXY", "1765405000.000100")))
    _wait_until(lambda: journal.retries_due() == 1)
    assert journal.store.journal_state("event:Ev0PROXY")[0] == EntryState.PENDING
    _later(journal, RETRY_AFTER_S[0] + 1)
    assert journal.tick(app) == 1
    _wait_until(lambda: journal.store.journal_state("event:Ev0PROXY")[0] == EntryState.DONE)
    statuses = [
        c.status for c in fake_slack.calls("chat.postMessage") if c.body.get("thread_ts") == "1765405000.000100"
    ]
    assert statuses == [503, 200]


def test_a_post_that_landed_before_the_connection_dropped_is_not_posted_again(server, fake_slack) -> None:
    app, journal = server
    fake_slack.drop_connection("chat.postMessage")  # taken in, then no answer: did it post?
    run_bolt_app(app, SocketModeRequest("events_api", "env-drop", _mention("Ev0DROP", "1765410000.000100")))
    _wait_until(lambda: journal.retries_due() == 1)
    _later(journal, RETRY_AFTER_S[0] + 1)
    assert journal.tick(app) == 1
    _wait_until(lambda: journal.store.journal_state("event:Ev0DROP")[0] == EntryState.DONE)
    assert replies_in_thread(fake_slack, "1765410000.000100") == 1  # the first one, found in the thread


def test_a_reply_that_keeps_failing_is_given_up_after_a_few_attempts(server, fake_slack, caplog) -> None:
    app, journal = server
    fake_slack.fail_method("chat.postMessage", "internal_error")
    run_bolt_app(app, SocketModeRequest("events_api", "env-down", _mention("Ev0DOWN", "1765420000.000100")))
    shift = 0.0
    for attempt in range(1, MAX_ATTEMPTS):
        _wait_until(lambda: journal.retries_due() == 1)
        shift += RETRY_AFTER_S[attempt - 1] + 1
        _later(journal, shift)
        assert journal.tick(app) == 1
    _wait_until(lambda: journal.store.journal_state("event:Ev0DOWN")[0] == EntryState.EXPIRED)
    assert replies_in_thread(fake_slack, "1765420000.000100") == MAX_ATTEMPTS
    assert "given up" in caplog.text
    _later(journal, shift + 60)
    assert journal.tick(app) == 0


def test_a_command_reply_refused_by_the_response_url_is_sent_again(server, fake_slack, monkeypatch) -> None:
    app, journal = server
    url = fake_slack.new_response_url()
    body = {
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
    _fail_next(fake_slack, monkeypatch, "response_url")
    run_bolt_app(app, SocketModeRequest("slash_commands", "env-cmd", body))
    _wait_until(lambda: journal.retries_due() == 1)
    _later(journal, RETRY_AFTER_S[0] + 1)
    assert journal.tick(app) == 1
    replies = fake_slack.wait_for("response_url", 2, where=lambda c: url.endswith(c.path))
    assert [c.status for c in replies] == [500, 200]
    assert "image" in json.dumps(replies[1].body).lower()
