"""A database that cannot be written (issue 20's outside run: ``chattr +i`` on
``paperbot.db`` and its ``-wal``/``-shm``): each failed write logged two full
SQLAlchemy tracebacks (~55 lines). Now it is one ERROR line naming the database
and the cause (``bot.slack.delivery.fallback.quiet_unwritable``), and the user gets
the usual short apology. Through the real HTTP server, signed, against the
strict fake Slack; the file is made read-only for SQLite's own reasons with
``PRAGMA query_only`` on every new connection (``chattr`` needs a privilege CI
does not have) — SQLite answers ``attempt to write a readonly database``
(SQLITE_READONLY), the error an immutable file gives."""

from __future__ import annotations

import logging

import sqlalchemy as sa

from bot.render import ACTION_SAVE
from bot.slack.delivery.fallback import quiet_unwritable
from bot.store.db import unwritable
from tests.slack.slackkit import SlackHarness


def read_only(slack: SlackHarness) -> None:
    """Every connection the store opens from now on refuses writes."""
    engine = slack.store._engine

    @sa.event.listens_for(engine, "connect")
    def no_writes(dbapi_connection, _record) -> None:
        dbapi_connection.execute("PRAGMA query_only = ON")

    engine.dispose()  # the pooled connections go: new ones get the pragma


def test_a_write_to_a_read_only_database_is_one_line_and_a_short_apology(slack: SlackHarness, caplog) -> None:
    read_only(slack)
    caplog.set_level(logging.INFO)
    _, url = slack.command("subscribe 10:00 UTC")
    (reply,) = slack.replies(url)
    _, click_url = slack.click(ACTION_SAVE, {"id": slack.index.ids()[0], "q": "x", "o": 0})
    (clicked,) = slack.replies(click_url)
    slack.drain()

    assert reply["text"].startswith("Sorry, something went wrong") and reply["response_type"] == "ephemeral"
    assert clicked["text"].startswith("Sorry") and clicked["response_type"] == "ephemeral"
    assert [r for r in caplog.records if r.exc_info] == []
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2, errors  # one per failed request
    place = str(slack.store._engine.url.database)
    assert all(f"the database at {place} cannot be written: attempt to write a readonly database" in e for e in errors)


def test_other_errors_keep_their_traceback() -> None:
    assert unwritable(ValueError("boom")) is None
    try:
        try:
            raise sa.exc.OperationalError("BEGIN", {}, _sqlite_error("database or disk is full", 13))
        except sa.exc.OperationalError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert unwritable(outer) == "database or disk is full"
    assert unwritable(sa.exc.OperationalError("BEGIN", {}, _sqlite_error("database is locked", 5))) is None


def _sqlite_error(message: str, code: int) -> Exception:
    import sqlite3

    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


def test_a_logger_made_after_start_up_logs_an_unwritable_database_in_one_line(caplog, monkeypatch) -> None:
    monkeypatch.setattr(logging, "_logRecordFactory", logging.getLogRecordFactory())  # restored after
    quiet_unwritable("sqlite:////srv/paperbot.db")
    late = logging.getLogger("bot.imported.later.on.first.use")  # did not exist at start-up
    caplog.set_level(logging.INFO)
    try:
        raise sa.exc.OperationalError("INSERT", {}, _sqlite_error("attempt to write a readonly database", 8))
    except sa.exc.OperationalError:
        late.exception("/paper failed (%s)", "T1")
    (record,) = [r for r in caplog.records if r.name == late.name]
    assert record.exc_info is None
    assert record.getMessage() == (
        "/paper failed (T1): the database at /srv/paperbot.db cannot be written: attempt to write a readonly database"
    )
