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

from contextlib import contextmanager
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool

from bot.config import normalise_database_url

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
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        mode = conn.get_execution_options().get("paperbot_begin", "")
        if mode != "NONE":
            conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


@contextmanager
def transaction(engine: sa.Engine, *, write: bool = False) -> Iterator[sa.Connection]:
    """A connection inside one transaction, committed on success.

    Args:
        engine: from ``make_engine``.
        write: True for a transaction that writes (SQLite ``BEGIN IMMEDIATE``).
            A read on SQLite runs without an explicit BEGIN: callers read with
            a single SELECT, which SQLite runs atomically on its own.

    Raises:
        sqlalchemy.exc.IntegrityError: a unique key was violated (rolled back).
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(paperbot_begin="IMMEDIATE" if write else "NONE")
        with conn.begin():
            yield conn
