"""Schema migration: a database written by an older version still opens.

The "older" databases are written by hand with the drivers (sqlite3,
psycopg), not with the code under test, using the version-1 shape
documented in ``bot.store.schema``.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from datetime import date, datetime, timedelta, timezone

import pytest

from bot.core.models import DeliveryState as State
from bot.core.models import ReadingListEntry
from bot.store import SCHEMA_VERSION, Store, StoreError

V1_DDL = [
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "INSERT INTO schema_version (version) VALUES (1)",
    """CREATE TABLE subscriptions (team VARCHAR(32) NOT NULL, channel VARCHAR(32) NOT NULL,
        local_time VARCHAR(5) NOT NULL, tz VARCHAR(64) NOT NULL, active BOOLEAN NOT NULL,
        created_at TIMESTAMP, PRIMARY KEY (team, channel))""",
    """CREATE TABLE deliveries (team VARCHAR(32) NOT NULL, channel VARCHAR(32) NOT NULL,
        local_date DATE NOT NULL, paper_id VARCHAR(200) NOT NULL, message_ts VARCHAR(32),
        state VARCHAR(16) NOT NULL, PRIMARY KEY (team, channel, local_date))""",
    "CREATE TABLE daily_picks (local_date DATE PRIMARY KEY, paper_id VARCHAR(200) NOT NULL)",
]
V1_ROWS = [
    "INSERT INTO subscriptions VALUES ('T1', 'C1', '09:30', 'Europe/Berlin', {true}, '2026-02-01 08:00:00')",
    "INSERT INTO subscriptions VALUES ('T1', 'C2', '07:00', 'UTC', {false}, '2026-02-02 08:00:00')",
    "INSERT INTO deliveries VALUES ('T1', 'C1', '2026-03-01', 'p-old', '1772352000.000100', 'posted')",
    "INSERT INTO daily_picks VALUES ('2026-03-01', 'p-old')",
]
CREATED = datetime(2026, 2, 1, 8, 0, tzinfo=timezone.utc)


def _write_v1_sqlite(path, with_version=True) -> None:
    conn = sqlite3.connect(path)
    for sql in V1_DDL if with_version else V1_DDL[2:]:
        conn.execute(sql)
    for sql in V1_ROWS:
        conn.execute(sql.format(true=1, false=0))
    conn.commit()
    conn.close()


def _check_v1_data_survived(store: Store) -> None:
    assert store.schema_version() == SCHEMA_VERSION
    c1 = store.get_subscription("T1", "C1")
    assert (c1.local_time, c1.tz, c1.active, c1.inactive_reason, c1.subscribed_by) == (
        "09:30",
        "Europe/Berlin",
        True,
        None,
        None,
    )
    assert c1.created_at == CREATED and c1.updated_at == CREATED  # backfilled by the v2 step
    assert store.get_subscription("T1", "C2").active is False
    old = store.get_delivery("T1", "C1", date(2026, 3, 1))
    assert (old.state, old.paper_id, old.message_ts) == (State.POSTED, "p-old", "1772352000.000100")
    # the old claim still guards its date; the old pick is kept
    assert store.claim_delivery("T1", "C1", date(2026, 3, 1), "p-new") is False
    assert store.paper_for_date(date(2026, 3, 1), lambda d: "p-new") == "p-old"
    # and every v2 feature works on the migrated database
    assert store.first_time("Ev1") is True and store.first_time("Ev1") is False
    assert store.deactivate("T1", "C1", "is_archived") is True
    assert store.get_subscription("T1", "C1").inactive_reason == "is_archived"
    now = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    assert store.claim_delivery("T1", "C1", date(2026, 3, 2), "p2", now=now)
    assert [d.channel_id for d, _ in store.stale_claims(now + timedelta(minutes=5))] == ["C1"]
    # the v3 columns have their defaults, and topics and reading lists work (issue 13)
    assert (c1.topic, c1.days, c1.papers) == (None, (), 1)
    store.upsert_subscription("T1", "C2", "07:00", "UTC", "U1", now, topic="reasoning", days=(0,), papers=3)
    c2 = store.get_subscription("T1", "C2")
    assert (c2.topic, c2.days, c2.papers, c2.local_time) == ("reasoning", (0,), 3, "07:00")
    assert store.picks_for_date(
        "T1", "C2", date(2026, 3, 2), "reasoning", lambda cycle, seen: [("p1", cycle), ("p2", cycle)]
    ) == ["p1", "p2"]
    assert store.add_reading_list_entry("T1", "U1", ReadingListEntry("p1", "A title", authors=("A B",)), now)
    assert [e.authors for e in store.reading_list_entries("T1", "U1")] == [("A B",)]


def test_v1_sqlite_database_opens_and_migrates(tmp_path):
    path = tmp_path / "old.db"
    _write_v1_sqlite(path)
    store = Store(f"sqlite:///{path}")
    assert store.migrated_from == 1
    _check_v1_data_survived(store)
    store.close()
    again = Store(f"sqlite:///{path}")  # a second open is a no-op
    assert again.migrated_from == SCHEMA_VERSION
    again.close()
    cols = {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(deliveries)")}
    assert {"claimed_at", "updated_at", "attempts"} <= cols


def test_unversioned_sqlite_database_counts_as_version_0(tmp_path):
    path = tmp_path / "older.db"
    _write_v1_sqlite(path, with_version=False)
    store = Store(f"sqlite:///{path}")
    assert store.migrated_from == 0
    _check_v1_data_survived(store)
    store.close()


def test_v1_postgresql_database_opens_and_migrates(pg_schema):
    import psycopg

    url, schema, dsn = pg_schema
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        for sql in V1_DDL:
            conn.execute(sql)
        for sql in V1_ROWS:
            conn.execute(sql.format(true="true", false="false"))
    store = Store(url)
    assert store.migrated_from == 1
    _check_v1_data_survived(store)
    store.close()


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.db"
    Store(f"sqlite:///{path}").close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(f"sqlite:///{path}")


def _open(url, barrier, results):
    barrier.wait(timeout=30)
    try:
        store = Store(url)
        results.put(store.schema_version())
        store.close()
    except Exception as exc:  # noqa: BLE001 — reported to the parent
        results.put(repr(exc))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_processes_opening_a_fresh_database_at_once_all_succeed(backend, tmp_path, request):
    url = f"sqlite:///{tmp_path / 'fresh.db'}" if backend == "sqlite" else request.getfixturevalue("pg_schema")[0]
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_open, args=(url, barrier, results)) for _ in range(4)]
    for p in procs:
        p.start()
    got = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert got == [SCHEMA_VERSION] * 4


def test_opening_waits_while_another_connection_holds_the_write_lock(tmp_path):
    """Switching a fresh file to WAL needs a lock SQLite does not wait for (the
    busy handler is skipped), so the store retries: a writer holding BEGIN
    IMMEDIATE for a moment delays the open instead of failing it."""
    path = tmp_path / "held.db"
    holding, release = threading.Event(), threading.Event()

    def writer():
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("CREATE TABLE other (x)")
        conn.execute("BEGIN IMMEDIATE")
        holding.set()
        release.wait(30)
        conn.execute("COMMIT")
        conn.close()

    thread = threading.Thread(target=writer)
    thread.start()
    assert holding.wait(30)
    threading.Timer(0.3, release.set).start()
    try:
        store = Store(f"sqlite:///{path}")
    finally:
        release.set()
        thread.join(30)
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
