"""Digest test fixtures: papers and their index, and real SQLite and
PostgreSQL databases (a uniquely named schema, dropped afterwards; skipped
only when PostgreSQL is unreachable). Helpers live in ``digestkit``.
"""
from __future__ import annotations

import uuid

import pytest

from bot.models import Paper
from tests.digest.digestkit import PG_DSN, PG_URL, ListIndex, make_papers


@pytest.fixture
def papers() -> list[Paper]:
    return make_papers()


@pytest.fixture
def index(papers) -> ListIndex:
    return ListIndex(papers)


@pytest.fixture
def pg_url():
    """A PostgreSQL URL confined to a new schema; skipped only when unreachable."""
    import psycopg
    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=3)
    except Exception as exc:  # noqa: BLE001 — any failure to connect means "not available"
        pytest.skip(f"PostgreSQL unreachable at {PG_DSN}: {exc}")
    schema = f"pbtest_{uuid.uuid4().hex[:12]}"
    conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'digest.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'digest.db'}"
    return request.getfixturevalue("pg_url")

