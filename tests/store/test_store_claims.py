"""Claiming work once (``bot.store.claims``) on SQLite and PostgreSQL: one table
for keys claimed once (Slack event keys and marks), the journal's aliases in it,
one retention policy per kind applied by ``purge_claims``, and a version-7
database (``marks`` and ``handled_events``) upgraded in place.

The version-7 tables are written by hand with the drivers (sqlite3, psycopg),
in the shape version 7 of ``bot.store.schema`` created them.
"""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from bot.core.models import DeliveryState as State
from bot.store import EntryState, Store
from bot.store.claims import KEPT

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
DAY = date(2026, 12, 1)
LEASE = timedelta(seconds=60)

#: What version 7 had instead of ``claims``, and a few rows in it.
V7_TABLES = [
    "DROP TABLE claims",
    "CREATE TABLE handled_events (key VARCHAR(255) NOT NULL PRIMARY KEY, at TIMESTAMP NOT NULL)",
    "CREATE INDEX ix_handled_events_at ON handled_events (at)",
    """CREATE TABLE marks (kind VARCHAR(32) NOT NULL, key VARCHAR(255) NOT NULL, at TIMESTAMP NOT NULL,
        detail VARCHAR(200), PRIMARY KEY (kind, key))""",
    "INSERT INTO handled_events VALUES ('event:Ev7', '2026-12-01 08:00:00')",
    "INSERT INTO handled_events VALUES ('msg:T1:C1:1.0', '2026-11-01 08:00:00')",
    "INSERT INTO marks VALUES ('onboard', 'user:T1:U1', '2026-10-01 08:00:00', NULL)",
    "INSERT INTO marks VALUES ('share', 'T1:C1:1.0:p1', '2026-10-01 08:00:00', 'C9')",
    "UPDATE schema_version SET version = 7",
]


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def _journal(store: Store, key: str, now: datetime, aliases=()) -> int:
    return store.journal_claim(key, kind="event", payload="{}", owner="a", lease=LEASE, aliases=aliases, now=now)


def test_event_keys_marks_and_journal_aliases_are_claims_of_one_table(store):
    assert _journal(store, "event:Ev1", T0, aliases=["msg:T1:C1:1.0"]) == 1
    assert store.mark("event", "msg:T1:C1:1.0") == (True, None)  # the alias is an event claim
    assert store.claim_keys(["event:Ev2", "msg:T1:C1:1.0"]) is False  # an edit of that message
    assert store.mark("event", "event:Ev2") == (False, None)  # the refused claim added nothing
    assert store.mark_once("share", "msg:T1:C1:1.0", detail="C9") is True  # kinds do not collide
    with pytest.raises(ValueError):
        store.claim_keys([])
    with pytest.raises(ValueError):
        store.mark_once("k" * 33, "x")


def test_each_kind_is_kept_as_long_as_its_policy_says(store):
    old = T0 - KEPT["event"] - timedelta(minutes=1)
    store.claim_keys(["event:EvOld", "msg:T1:C1:1.0"], now=old)
    store.claim_keys(["event:EvNew"], now=T0)
    store.mark_once("onboard", "user:T1:U1", now=old - timedelta(days=365))
    _journal(store, "event:EvDone", old)
    store.journal_done("event:EvDone")
    _journal(store, "event:EvPending", old)
    assert store.claim_delivery("T1", "C1", DAY - timedelta(days=400), "p1", now=old - timedelta(days=393))
    assert store.purge_claims(T0) == 3  # two old event keys and the finished journal row
    assert store.first_time("event:EvOld", now=T0) is True  # forgotten: new again
    assert store.mark("event", "event:EvNew") == (True, None)
    assert store.mark_once("onboard", "user:T1:U1") is False  # kept for good
    assert store.journal_state("event:EvDone") is None
    assert store.journal_state("event:EvPending")[0] == EntryState.PENDING  # kept until done
    assert store.get_delivery("T1", "C1", DAY - timedelta(days=400)).state == State.CLAIMED  # kept for good
    assert store.purge_claims(T0) == 0


def _check_v7_claims_survived(store: Store, url: str) -> None:
    assert store.migrated_from == 7
    assert store.mark("share", "T1:C1:1.0:p1") == (True, "C9")
    assert store.mark_once("onboard", "user:T1:U1") is False
    assert store.claim_keys(["event:Ev8", "msg:T1:C1:1.0"]) is False  # the old message key still guards
    assert store.first_time("event:Ev7") is False
    assert store.purge_events(T0 - timedelta(days=7)) == 1  # the old key, with its old time
    assert store.first_time("msg:T1:C1:1.0") is True
    engine = sa.create_engine(url)
    tables = set(sa.inspect(engine).get_table_names())
    engine.dispose()
    assert "claims" in tables and not tables & {"marks", "handled_events"}


def test_a_version_7_sqlite_database_merges_marks_and_event_keys_into_claims(tmp_path):
    path = tmp_path / "v7.db"
    Store(f"sqlite:///{path}").close()
    conn = sqlite3.connect(path)
    for statement in V7_TABLES:
        conn.execute(statement)
    conn.commit()
    conn.close()
    store = Store(f"sqlite:///{path}")
    _check_v7_claims_survived(store, f"sqlite:///{path}")
    store.close()


def test_a_version_7_postgresql_database_merges_marks_and_event_keys_into_claims(pg_schema):
    import psycopg

    url, schema, dsn = pg_schema
    Store(url).close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        for statement in V7_TABLES:
            conn.execute(statement)
    store = Store(url)
    _check_v7_claims_survived(store, url)
    store.close()
