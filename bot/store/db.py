"""Engine set-up and transactions for the store (SQLite and PostgreSQL).

SQLite: WAL journal (readers never block the writer), ``busy_timeout`` 30 s
(a second process waits for the lock instead of failing), and transactions
begun explicitly — ``BEGIN IMMEDIATE`` for writes, so a read-then-write
transaction cannot fail half-way with ``SQLITE_BUSY`` on the upgrade. This is
the pysqlite recipe from SQLAlchemy's SQLite dialect docs ("Serializable
isolation / Savepoints / Transactional DDL"). This process's own writers take
turns at a lock first (``_one_writer``), so SQLite's polling busy handler only
ever waits for other processes. A transaction that must not wait
that long (the journal's claim before an ack) asks for its own bound,
``lock_timeout_ms``: SQLite's ``busy_timeout`` for that transaction's ``BEGIN``
(https://sqlite.org/pragma.html#pragma_busy_timeout), PostgreSQL's
``lock_timeout``. PostgreSQL: psycopg 3, READ COMMITTED, ``pool_pre_ping``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from contextlib import contextmanager, nullcontext
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool

from bot.core.config import normalise_database_url

#: How long a SQLite writer waits for another process's lock (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: SQLite connections opened beyond the pool's 5 kept ones, closed again when
#: returned. SQLAlchemy's default (10) makes the 16th thread wait up to 30 s
#: for a connection; with writers waiting ``SQLITE_BUSY_TIMEOUT_MS`` for a lock
#: held elsewhere, that wait would reach the journal's claim before an ack,
#: past its own ``lock_timeout_ms``. Every thread of a process (request,
#: listener, journal, clock threads: fewer than this) gets a connection at once.
SQLITE_OVERFLOW = 256


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
    kwargs: dict = {"connect_args": {"check_same_thread": False}}
    if memory:
        kwargs["poolclass"] = StaticPool
    else:
        kwargs["max_overflow"] = SQLITE_OVERFLOW
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
        options = conn.get_execution_options()
        busy_ms = int(options.get("paperbot_busy_ms") or SQLITE_BUSY_TIMEOUT_MS)
        info = conn.connection.info  # per DB-API connection: set the PRAGMA only when it changes
        if info.get("busy_ms", SQLITE_BUSY_TIMEOUT_MS) != busy_ms:
            conn.exec_driver_sql(f"PRAGMA busy_timeout={busy_ms}")
            info["busy_ms"] = busy_ms
        mode = options.get("paperbot_begin", "")
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
        lock_timeout_ms: give up waiting for another transaction's lock after
            this long and raise, instead of waiting as long as the other one
            holds it: on PostgreSQL a row lock (``SET LOCAL lock_timeout``:
            https://www.postgresql.org/docs/current/runtime-config-client.html),
            on SQLite the database's write lock (``busy_timeout`` for this
            transaction instead of ``SQLITE_BUSY_TIMEOUT_MS``).

    Raises:
        sqlalchemy.exc.IntegrityError: a unique key was violated (rolled back).
        sqlalchemy.exc.OperationalError: (``lock_timeout_ms``) the lock was
            still held after that long ("database is locked", "lock timeout").
    """
    sqlite = engine.dialect.name == "sqlite"
    with _one_writer(engine, lock_timeout_ms) if sqlite and write else nullcontext(lock_timeout_ms) as left_ms:
        with engine.connect() as conn:
            if sqlite:
                conn = conn.execution_options(
                    paperbot_begin="IMMEDIATE" if write else "NONE", paperbot_busy_ms=left_ms or 0
                )
            with conn.begin():
                if lock_timeout_ms and engine.dialect.name == "postgresql":
                    conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
                yield conn


_WRITERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # engine -> its writers' gate
_WRITERS_MADE = threading.Lock()


@contextmanager
def _one_writer(engine: sa.Engine, timeout_ms: int | None) -> Iterator[int | None]:
    """This process's SQLite writers, one at a time, in the order the gate wakes them.

    SQLite takes one writer at a time, and a writer that finds the lock taken
    waits in its busy handler, which polls with sleeps of up to 100 ms and
    favours no one (https://sqlite.org/c3ref/busy_timeout.html): under load a
    writer can lose every round for seconds. Here a thread waits on a lock that
    wakes it as soon as the writer before it is done; SQLite's busy handler is
    left with other processes' writers. Yields the milliseconds of
    ``timeout_ms`` left for those (None: no bound).

    Raises:
        sqlalchemy.exc.OperationalError: ``timeout_ms`` passed before this
            process's other writers were done.
    """
    with _WRITERS_MADE:
        gate = _WRITERS.setdefault(engine, threading.RLock())  # re-entrant: a nested write fails in SQLite, not here
    started = time.monotonic()
    if not gate.acquire(timeout=timeout_ms / 1000 if timeout_ms else -1):
        raise sa.exc.OperationalError(
            "BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked (by this process's writers)")
        )
    try:
        yield None if not timeout_ms else max(1, timeout_ms - int((time.monotonic() - started) * 1000))
    finally:
        gate.release()


#: SQLite primary result codes (the low byte of an extended one) meaning the file cannot be
#: written: SQLITE_READONLY 8, SQLITE_IOERR 10, SQLITE_FULL 13 (https://www.sqlite.org/rescode.html).
SQLITE_UNWRITABLE = frozenset({8, 10, 13})
#: PostgreSQL SQLSTATEs meaning the same: read_only_sql_transaction, disk_full, io_error
#: (https://www.postgresql.org/docs/current/errcodes-appendix.html).
POSTGRES_UNWRITABLE = frozenset({"25006", "53100", "58030"})


def unwritable(exc: BaseException | None) -> str | None:
    """The driver's one-line reason when ``exc`` — or an exception it came from — says
    the database cannot be written (read-only, full, an I/O error), else None.
    ``"attempt to write a readonly database"`` for a SQLite file made immutable."""
    for _ in range(5):  # exc, its cause, theirs …: a short chain
        if exc is None:
            return None
        orig = getattr(exc, "orig", None) or exc
        code = getattr(orig, "sqlite_errorcode", None)
        if (isinstance(code, int) and code & 0xFF in SQLITE_UNWRITABLE) or (
            getattr(orig, "sqlstate", None) in POSTGRES_UNWRITABLE
        ):
            return (str(orig).strip().splitlines() or [type(orig).__name__])[0][:200]
        exc = exc.__cause__ or exc.__context__
    return None


def database_place(database_url: str) -> str:
    """Where the database is, for a log line: a SQLite file's path, else the URL
    without its password."""
    url = sa.make_url(normalise_database_url(database_url))
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    return url.render_as_string(hide_password=True)
