"""What every test package shares, defined once: the repository's paths, the
local PostgreSQL server's address and a settable clock. Fixtures built on
them (``pg_schema``, ``sqlite_url``, ``db_url``, ``clock``, ...) live in
tests/conftest.py.
"""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
#: The local PostgreSQL server (this machine's kind runs one; override for others).
PG_DSN = os.environ.get("PAPERBOT_TEST_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
PG_URL = os.environ.get("PAPERBOT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


class Clock:
    """A settable clock returning aware UTC datetimes: ``clock()`` → ``clock.now``."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
