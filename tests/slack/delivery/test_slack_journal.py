"""The journal (``bot.slack.delivery.journal``): what was acknowledged survives a crash,
and is answered once (docs/architecture.md "Idempotency and the journal").

A crash right after the acknowledgement is the journal middleware running with
a ``next`` that does nothing (the listener never ran); the restarted process is
a second app with its own journal on the same database. Requests go through
Bolt's Socket Mode dispatch here; ``test_slack_crash.py`` kills a real server.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.slack.delivery.journal import Journal, work_of
from bot.store import EntryState
from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.burst import Servers, mention_envelope, replies_in_thread


@pytest.fixture
def restarted(fake_slack, seed_index, shared_db, tmp_path):
    """(crashed journal, the restarted server's app, journal and store, servers)."""
    fake_slack.add_channel("C0GENERAL", bot_member=True)  # Slack sends app_mention only from channels the bot is in
    running = Servers(fake_slack, seed_index, shared_db, tmp_path, 2)
    yield running.journals[0], running.apps[1], running.journals[1], running
    running.close()


def _ack_then_crash(journal: Journal, body: dict) -> None:
    journal.middleware(body, {}, lambda: None)


def _command(fake, text: str = "search image steganography") -> tuple[dict, str]:
    url = fake.new_response_url()
    return (
        {
            "team_id": TEAM_ID,
            "channel_id": "C0GENERAL",
            "channel_name": "general",
            "user_id": "U0ALICE",
            "command": "/paper",
            "text": text,
            "response_url": url,
            "trigger_id": "1.2.3",
            "api_app_id": "A0PAPERBOT",
        },
        url,
    )


def test_work_acknowledged_before_a_crash_is_answered_once_after_the_restart(restarted, fake_slack) -> None:
    crashed, app, journal, running = restarted
    events = [
        json.loads(mention_envelope(f"Ev0CRASH{i}", f"176530000{i}.000100", text=f"<@{BOT_USER_ID}> KIStego"))
        for i in range(5)
    ]
    command, url = _command(fake_slack)
    for body in [*events, command]:
        _ack_then_crash(crashed, body)
    assert fake_slack.calls("chat.postMessage") == [] and fake_slack.calls("response_url") == []
    assert journal.release_dead_owners() == 6  # same host, and that "process" is gone
    assert journal.tick(app) == 6
    running.drain()
    assert [replies_in_thread(fake_slack, b["event"]["ts"]) for b in events] == [1] * 5
    assert len([c for c in fake_slack.calls("response_url") if url.endswith(c.path)]) == 1
    assert journal.tick(app) == 0  # nothing left, nothing twice
    state = journal.store.journal_state(f"event:{events[0]['event_id']}")
    assert state[0] == EntryState.DONE and state[2] is False  # payload purged


def test_a_slack_retry_after_the_restart_is_answered_once(restarted, fake_slack) -> None:
    crashed, app, journal, running = restarted
    body = json.loads(mention_envelope("Ev0RETRY", "1765310000.000100"))
    _ack_then_crash(crashed, body)
    journal.release_dead_owners()
    retry = SocketModeRequest("events_api", "env-r", body, retry_attempt=1, retry_reason="timeout")
    assert run_bolt_app(app, retry).status == 200  # takes the expired claim over
    assert run_bolt_app(app, retry).status == 200  # a second retry: the claim is live
    running.drain()
    assert journal.tick(app) == 0
    assert replies_in_thread(fake_slack, "1765310000.000100") == 1


def test_a_reply_posted_before_the_crash_is_not_posted_again(restarted, fake_slack) -> None:
    crashed, app, journal, running = restarted
    body = json.loads(mention_envelope("Ev0POSTED", "1765320000.000100", text=f"<@{BOT_USER_ID}> KIStego"))
    crashed.done = lambda key: None  # crash between the post and "done"
    run_bolt_app(running.apps[0], SocketModeRequest("events_api", "env-p", body))
    fake_slack.wait_for("chat.postMessage")
    journal.release_dead_owners()
    _settled(journal)
    assert journal.tick(app) == 1
    running.drain()
    assert fake_slack.calls("conversations.replies")  # it looked before posting
    assert replies_in_thread(fake_slack, "1765320000.000100") == 1
    assert journal.store.journal_state("event:Ev0POSTED")[0] == EntryState.DONE


def _settled(journal: Journal) -> None:
    """Move ``journal``'s clock past ``POST_SETTLE``: a reply marked as going out
    is left alone that long (it may still be on its way through Slack)."""
    from datetime import timedelta

    from bot.daily.post_times import utc_now
    from bot.store.journal import POST_SETTLE

    journal.clock = lambda: utc_now() + POST_SETTLE + timedelta(seconds=1)


def _post_started_then_crash(journal: Journal, body: dict) -> None:
    """The listener got as far as its fencing check (the reply is marked as going out), then died."""
    journal.middleware(body, {}, lambda: None)
    assert journal.still_mine(work_of(body)[0])


def test_work_that_never_started_posting_is_answered_without_looking(restarted, fake_slack) -> None:
    crashed, app, journal, running = restarted
    fake_slack.fail_method("conversations.replies", "missing_scope")  # looking would fail: it does not look
    _ack_then_crash(crashed, json.loads(mention_envelope("Ev0FRESH", "1765330000.000200")))
    journal.release_dead_owners()
    assert journal.tick(app) == 1
    running.drain()
    assert replies_in_thread(fake_slack, "1765330000.000200") == 1
    assert fake_slack.calls("conversations.replies") == []


def test_when_the_thread_cannot_be_read_the_retake_is_skipped_and_logged(restarted, fake_slack, caplog) -> None:
    crashed, app, journal, running = restarted
    fake_slack.fail_method("conversations.replies", "missing_scope")
    _post_started_then_crash(crashed, json.loads(mention_envelope("Ev0BLIND", "1765330000.000100")))
    journal.release_dead_owners()
    _settled(journal)
    with caplog.at_level(logging.WARNING):
        assert journal.tick(app) == 1
        running.drain()
    assert replies_in_thread(fake_slack, "1765330000.000100") == 0
    assert "cannot read the thread" in caplog.text
    assert journal.store.journal_state("event:Ev0BLIND")[0] == EntryState.DONE


def test_an_ephemeral_mention_reply_that_may_be_out_is_not_sent_again(restarted, fake_slack, caplog) -> None:
    crashed, app, journal, running = restarted
    body = json.loads(mention_envelope("Ev0EPH", "1765330000.000300", text=f"<@{BOT_USER_ID}> help"))
    _post_started_then_crash(crashed, body)
    journal.release_dead_owners()
    _settled(journal)
    with caplog.at_level(logging.WARNING):
        assert journal.tick(app) == 1
        running.drain()
    assert fake_slack.calls("conversations.replies")  # it looked: no public reply there …
    assert fake_slack.calls("chat.postEphemeral") == []  # … but an ephemeral one cannot be seen
    assert "ephemeral reply may have gone out" in caplog.text


def test_a_command_whose_reply_may_be_out_is_not_answered_again(restarted, fake_slack, caplog) -> None:
    # A crash between the response_url POST and "done": a command reply cannot be looked up,
    # so the restarted process skips it (logged) rather than answer twice.
    crashed, app, journal, running = restarted
    command, url = _command(fake_slack)
    _post_started_then_crash(crashed, command)
    journal.release_dead_owners()
    _settled(journal)
    with caplog.at_level(logging.WARNING):
        assert journal.tick(app) == 1
        running.drain()
    assert [c for c in fake_slack.calls("response_url") if url.endswith(c.path)] == []
    assert "cannot be looked up" in caplog.text and url not in caplog.text
    assert journal.store.journal_state(work_of(command)[0])[0] == EntryState.DONE
    assert journal.tick(app) == 0


def test_only_an_expired_lease_is_taken_over(restarted, fake_slack) -> None:
    crashed, app, journal, running = restarted
    _ack_then_crash(crashed, json.loads(mention_envelope("Ev0LIVE", "1765340000.000100")))
    # Its owner may still be working (another host, or slow): no release, so its lease holds.
    assert journal.tick(app) == 0
    assert (
        run_bolt_app(
            app,
            SocketModeRequest(
                "events_api",
                "env-l",
                json.loads(mention_envelope("Ev0LIVE", "1765340000.000100")),
                retry_attempt=1,
                retry_reason="timeout",
            ),
        ).status
        == 200
    )
    running.drain()
    assert replies_in_thread(fake_slack, "1765340000.000100") == 0
    assert journal.store.journal_state("event:Ev0LIVE")[:2] == (EntryState.PENDING, crashed.owner)


def test_an_owner_that_stalled_past_its_lease_does_not_answer_too(restarted, fake_slack) -> None:
    # Process 0 works on a command, stalls past its lease, process 1 takes the work over and
    # answers; when process 0 wakes up, its renewal right before posting fails (fencing).
    stalled, app, journal, running = restarted
    command, url = _command(fake_slack)
    path = url[url.index("/", len("http://")) :]
    renew = stalled.still_mine

    def woke_up_late(key: str) -> bool:
        journal.store.journal_release(stalled.owner)  # its lease ran out meanwhile
        assert journal.tick(app) == 1  # process 1 takes it over
        fake_slack.wait_for("response_url", where=lambda c: c.path == path)
        return renew(key)

    stalled.still_mine = woke_up_late
    run_bolt_app(running.apps[0], SocketModeRequest("slash_commands", "env-s", command))
    running.drain()
    assert len([c for c in fake_slack.calls("response_url") if c.path == path]) == 1


def test_a_running_process_takes_over_a_dead_neighbours_work_without_waiting_for_the_lease(
    restarted, fake_slack
) -> None:
    # Another process on this host (a real, finished pid) claimed a mention and died; the
    # running journal loop releases its lease on its next tick, not 60 s later. A live
    # neighbour's claim and this process's own earlier owners (same pid) are left alone.
    crashed, app, journal, running = restarted
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = socket.gethostname()[:40]
    crashed.owner = f"{host}:{dead.pid}:deadbeef"
    alive = Journal(journal.store, owner=f"{host}:{os.getppid()}:cafe0000")  # a live neighbour
    thread = journal.start(app, tick_s=0.05)
    try:
        time.sleep(0.3)  # the loop is past its start-up check …
        _ack_then_crash(crashed, json.loads(mention_envelope("Ev0NEIGH", "1765360000.000100")))
        _ack_then_crash(alive, json.loads(mention_envelope("Ev0ALIVE", "1765360001.000100")))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and replies_in_thread(fake_slack, "1765360000.000100") == 0:
            time.sleep(0.05)
        running.drain()
        assert journal.release_dead_owners(starting=False) == 0  # nothing of the dead left
    finally:
        journal.stop()
        thread.join(timeout=10)
    assert replies_in_thread(fake_slack, "1765360000.000100") == 1
    assert replies_in_thread(fake_slack, "1765360001.000100") == 0
    assert journal.store.journal_state("event:Ev0ALIVE")[:2] == (EntryState.PENDING, alive.owner)


def test_a_deferral_racing_the_loops_renewal_keeps_its_short_pause(restarted) -> None:
    # The loop renews the leases of work in flight; a reply that just failed is deferred
    # (lease cut to RETRY_AFTER_S[0]). If the renewal read the key before the deferral and
    # wrote after it, the retry would wait a whole lease (seen: 58-59 s late after start-up).
    from datetime import timedelta

    from bot.daily.post_times import utc_now
    from bot.slack.delivery.journal import RETRY_AFTER_S

    crashed, app, journal, running = restarted
    body = json.loads(mention_envelope("Ev0RACE", "1765370000.000100"))
    key = work_of(body)[0]
    journal.middleware(body, {}, lambda: None)  # in flight in this process
    renew, racer = journal.store.journal_renew, []

    def slow_renew(keys, *args, **kwargs):
        if key in keys and not racer:  # the reply fails meanwhile
            racer.append(threading.Thread(target=journal.retry, args=(key, 1, "test")))
            racer[0].start()
            time.sleep(0.3)
        return renew(keys, *args, **kwargs)

    journal.store.journal_renew = slow_renew
    try:
        journal.tick(app)
        racer[0].join(timeout=10)
    finally:
        journal.store.journal_renew = renew
    later = utc_now() + timedelta(seconds=RETRY_AFTER_S[0] + 1)
    assert [e.key for e in journal.store.journal_stale("event", later - timedelta(minutes=10), now=later)] == [key]


def test_a_due_attempt_not_yet_taken_is_looked_at_again_shortly(restarted) -> None:
    # A deferred reply whose pause is over but which the last tick could not take yet (its
    # lease had not quite run out) must not wait a whole tick (seen: 2 s retries after 12 s).
    crashed, app, journal, running = restarted
    journal._due["event:EvDUE"] = time.monotonic() - 0.5
    assert journal._pause(10.0) <= 0.5
    journal._due.clear()
    assert journal._pause(10.0) == 10.0


def test_the_journal_loop_is_what_purges_old_event_keys(tmp_path) -> None:
    """Slack's event keys are purged by the process that handles events — its
    journal loop, the one purge owner of ``bot.store.claims`` — once they are older
    than ``KEPT["event"]``; newer ones stay."""
    from datetime import timedelta

    from bot.daily.post_times import utc_now
    from bot.store import Store
    from bot.store.claims import KEPT
    from tests.slack.slackkit import wait_until

    store = Store(f"sqlite:///{tmp_path / 'purge.db'}")
    store.claim_keys(["event:Ev0OLD", "msg:T0:C0:1.0"], now=utc_now() - KEPT["event"] - timedelta(hours=1))
    store.claim_keys(["event:Ev0NEW"])
    journal = Journal(store)
    journal.start(app=None, tick_s=0.05)  # no stale work here: the loop never dispatches
    try:
        wait_until(lambda: store.mark("event", "event:Ev0OLD") == (False, None), what="the old key purged")
    finally:
        journal.stop()
    assert store.mark("event", "msg:T0:C0:1.0") == (False, None)
    assert store.mark("event", "event:Ev0NEW") == (True, None)
    store.close()
