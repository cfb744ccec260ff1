"""The journal never holds an ack past Slack's window (issue 20 point 3): while
another connection holds SQLite's write lock (a backup, a ``VACUUM``, a stalled
process), a journaled server (``tests.slack.burst.Servers``, as ``paperbot
serve``) acknowledges a command while the lock is still held and answers it
without the journal (one line); an event gets a 500 at once — Slack delivers it
again — and its retry after the lock is gone is answered once. Once a claim found
the lock held, the next ones wait only ``STUCK_WAIT_MS`` until one gets through.
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from bot.slack.delivery.journal import STUCK_WAIT_MS
from tests.fakeslack import BOT_USER_ID
from tests.kit import HeldSqliteLock
from tests.slack.burst import Servers, _post, command_fields, mention_envelope, replies_in_thread


def test_a_held_sqlite_lock_never_holds_an_ack(fake_slack, seed_index, tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO)
    db = tmp_path / "paperbot.db"
    fake_slack.add_channel("C0GENERAL", bot_member=True)
    running = Servers(fake_slack, seed_index, f"sqlite:///{db}", tmp_path, 1)
    url = running.urls[0]
    store = running.journals[0].store
    waits: list[int | None] = []  # the bound each claim was given (None: the store's 1.5 s)
    claim = store.journal_claim

    def recorded(*args, **kwargs):
        waits.append(kwargs.get("lock_timeout_ms"))
        return claim(*args, **kwargs)

    store.journal_claim = recorded
    reply_url, second_url = fake_slack.new_response_url(), fake_slack.new_response_url()
    mention = mention_envelope("Ev0LOCKED", "1766300000.000100", text=f"<@{BOT_USER_ID}> sparse attention")
    try:
        with HeldSqliteLock(db) as lock:
            command_status = _post(url, urlencode(command_fields("U0BOB", "search attention", reply_url)), None)
            command_acked_while_held = lock.held
            mention_status = _post(url, mention, None)
            mention_answered_while_held = lock.held
            second_status = _post(url, urlencode(command_fields("U0CAROL", "search attention", second_url)), None)
        for sent in (reply_url, second_url):
            fake_slack.wait_for("response_url", where=lambda c, sent=sent: sent.endswith(c.path))
        assert _post(url, mention, retry=1) == 200  # Slack's retry, the lock gone
        running.drain()
    finally:
        running.close()
    assert (command_status, command_acked_while_held) == (200, True)
    assert (mention_status, mention_answered_while_held, second_status) == (500, True, 200)
    assert waits == [None] + [STUCK_WAIT_MS] * 3  # once one found the lock held, short waits till one gets through
    assert replies_in_thread(fake_slack, "1766300000.000100") == 1
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.slack.delivery.journal"]
    assert lines == [  # one line when it starts, one when it ends: not one a request
        "cannot record a /paper command (OperationalError); answering it without the journal",
        "the journal records again; 2 more request(s) could not be recorded before",
    ]
