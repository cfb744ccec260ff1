"""Store test fixtures: a fresh SQLite file, and a uniquely named PostgreSQL
schema on the local server (dropped afterwards), so every test runs against
both real databases."""
from __future__ import annotations

import os
import uuid

import pytest

PG_DSN = os.environ.get("PAPERBOT_TEST_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
PG_URL = os.environ.get("PAPERBOT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _pg_connect():
    import psycopg
    return psycopg.connect(PG_DSN, autocommit=True, connect_timeout=3)


@pytest.fixture
def pg_schema():
    """(url, schema, dsn): a new empty schema; skipped only when PostgreSQL is unreachable."""
    try:
        conn = _pg_connect()
    except Exception as exc:  # noqa: BLE001 — any failure to connect means "not available"
        pytest.skip(f"PostgreSQL unreachable at {PG_DSN}: {exc}")
    schema = f"pbtest_{uuid.uuid4().hex[:12]}"
    conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}", schema, PG_DSN
    finally:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh database URL: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_schema")[0]
