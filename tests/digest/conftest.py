"""Digest test fixtures: papers and their index, and real SQLite and
PostgreSQL databases (a uniquely named schema, dropped afterwards; skipped
only when PostgreSQL is unreachable). Helpers live in ``digestkit``.
"""
from __future__ import annotations

import pytest

from bot.models import Paper
from tests.digest.digestkit import ListIndex, make_papers


@pytest.fixture
def papers() -> list[Paper]:
    return make_papers()


@pytest.fixture
def index(papers) -> ListIndex:
    return ListIndex(papers)


@pytest.fixture
def pg_url(pg_schema) -> str:
    """A PostgreSQL URL confined to a new schema; skipped only when unreachable."""
    return pg_schema[0]


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'digest.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'digest.db'}"
    return request.getfixturevalue("pg_url")

