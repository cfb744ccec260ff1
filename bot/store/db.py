"""Engine set-up and transactions for the store (SQLite and PostgreSQL).

SQLite: WAL journal (readers never block the writer), ``busy_timeout`` 30 s
(a second process waits for the lock instead of failing), and transactions
begun explicitly — ``BEGIN IMMEDIATE`` for writes, so a read-then-write
transaction cannot fail half-way with ``SQLITE_BUSY`` on the upgrade. This is
the pysqlite recipe from SQLAlchemy's SQLite dialect docs ("Serializable
isolation / Savepoints / Transactional DDL"). PostgreSQL: psycopg 3, READ
COMMITTED, ``pool_pre_ping``.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool

from bot.core.config import normalise_database_url

#: How long a SQLite writer waits for another process's lock (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(database_url: str) -> sa.Engine:
    """An ``Engine`` for ``database_url`` with the settings above.

    Args:
        database_url: SQLAlchemy URL; ``postgres://`` and ``postgresql://`` are
            mapped to ``postgresql+psycopg://``. ``sqlite://`` (memory) gets a
            single shared connection so every thread sees the same database.

    Raises:
        sqlalchemy.exc.ArgumentError: the URL cannot be parsed.
    """
    url = sa.make_url(normalise_database_url(database_url))
    if url.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True)
    memory = url.database in (None, "", ":memory:")
    kwargs = {"connect_args": {"check_same_thread": False}}
    if memory:
        kwargs["poolclass"] = StaticPool
    engine = sa.create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        if not memory:
            set_wal(cursor)
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        mode = conn.get_execution_options().get("paperbot_begin", "")
        if mode != "NONE":
            conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


def set_wal(cursor: sqlite3.Cursor, timeout_s: float = SQLITE_BUSY_TIMEOUT_MS / 1000) -> None:
    """Switch a SQLite file to WAL, retrying while another connection holds its lock.

    Changing the journal mode needs an exclusive lock, and SQLite does not call
    the busy handler for it when another connection holds a RESERVED lock (a
    ``BEGIN IMMEDIATE`` writer, or a second process switching the same fresh
    file at the same moment): the PRAGMA fails at once with "database is
    locked" whatever ``busy_timeout`` says (https://sqlite.org/wal.html
    "Activating And Configuring WAL Mode"; https://sqlite.org/c3ref/busy_handler.html).
    So it is retried here, with backoff, for up to ``timeout_s`` — as long as
    ``busy_timeout`` would have waited. A file already in WAL mode is left as it is.

    Args:
        cursor: a DB-API cursor on the file.
        timeout_s: give up after this many seconds.

    Raises:
        sqlite3.OperationalError: still locked after ``timeout_s``, or any other error.
    """
    deadline = time.monotonic() + timeout_s
    pause = 0.005
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def writer(engine: sa.Engine) -> sa.Engine:
    """``engine`` for code that opens its own transactions to read and then write
    (slack_sdk's stores: ``engine.begin()``, a SELECT, then an INSERT or UPDATE): on
    SQLite each begins ``BEGIN IMMEDIATE``, so it waits for another writer
    (``busy_timeout``) instead of failing with "database is locked" when its read
    snapshot went stale (WAL, https://sqlite.org/isolation.html). PostgreSQL: unchanged.

    Args:
        engine: from ``make_engine``.
    """
    return engine.execution_options(paperbot_begin="IMMEDIATE") if engine.dialect.name == "sqlite" else engine


@contextmanager
def transaction(
    engine: sa.Engine, *, write: bool = False, lock_timeout_ms: int | None = None
) -> Iterator[sa.Connection]:
    """A connection inside one transaction, committed on success.

    Args:
        engine: from ``make_engine``.
        write: True for a transaction that writes (SQLite ``BEGIN IMMEDIATE``).
            A read on SQLite runs without an explicit BEGIN: callers read with
            a single SELECT, which SQLite runs atomically on its own.
        lock_timeout_ms: on PostgreSQL, give up waiting for another
            transaction's row lock after this long (``SET LOCAL lock_timeout``:
            https://www.postgresql.org/docs/current/runtime-config-client.html)
            and raise, instead of waiting as long as the other one holds it.

    Raises:
        sqlalchemy.exc.IntegrityError: a unique key was violated (rolled back).
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(paperbot_begin="IMMEDIATE" if write else "NONE")
        with conn.begin():
            if lock_timeout_ms and engine.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
            yield conn
