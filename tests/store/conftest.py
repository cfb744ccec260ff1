"""Store test fixtures: a fresh SQLite file, and a uniquely named PostgreSQL
schema on the local server (``pg_schema`` from tests/conftest.py), so every
test runs against both real databases."""
from __future__ import annotations

import pytest

@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh database URL: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_schema")[0]
