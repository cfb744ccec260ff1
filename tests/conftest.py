"""Shared fixtures: the real seed corpus, a real Whoosh index of it (built once
per session), real databases (a SQLite file; a uniquely named PostgreSQL
schema, dropped afterwards), a real SQLite store, and a ``Service`` over them
with an injected clock and a recording ``Poster``. Plain helpers they use
(paths, the PostgreSQL address, ``Clock``) are in ``tests.kit``.
"""

from __future__ import annotations

import os
import random
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bot import corpus, search
from bot.core.config import Settings
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.store import Store
from tests.kit import PG_DSN, PG_URL, ROOT, SEEDS, Clock, RecordingPoster

# Bytecode is cached during the tests, even where the environment sets PYTHONDONTWRITEBYTECODE
# (this project's machines do): otherwise every pytest worker and each of the ~100 `python -m bot`
# processes the tests start compiles every module again — about 30 s of CPU of a ~190 s run
# (benchmarks/results/suite_time.txt). This file is loaded before pytest-xdist starts its workers,
# so they and their children inherit the environment without it.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture
def pg_schema():
    """(url, schema, dsn): a new empty PostgreSQL schema, dropped afterwards;
    skipped, saying why, only when PostgreSQL is unreachable."""
    import psycopg

    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=3)
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
def pg_url(pg_schema) -> str:
    """A PostgreSQL URL confined to a new schema; skipped only when unreachable."""
    return pg_schema[0]


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    """A SQLite URL for a new file, ``tmp_path / "test.db"``."""
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request) -> str:
    """A fresh database URL: a SQLite file, then a PostgreSQL schema."""
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture(scope="session")
def seed_papers():
    return corpus.load_papers([SEEDS])


@pytest.fixture(scope="session")
def seed_index_dir(tmp_path_factory, seed_papers) -> Path:
    d = tmp_path_factory.mktemp("seed-index")
    search.build_index(d, seed_papers, fingerprint=corpus.seeds_fingerprint([SEEDS]))
    return d


@pytest.fixture(scope="session")
def seed_index(seed_index_dir):
    return search.SearchIndex(seed_index_dir)


#: Three papers with arXiv, OpenReview and DOI links (link unfurls, bot.service.paper_links).
LINKED = ROOT / "tests" / "slack" / "data" / "linked.jsonl"


@pytest.fixture(scope="session")
def linked_index(tmp_path_factory):
    """A real index of the seeds plus ``LINKED`` (built once per session)."""
    d = tmp_path_factory.mktemp("linked-index")
    search.build_index(d, corpus.load_papers([SEEDS, LINKED]), fingerprint="linked-test")
    return search.SearchIndex(d)


#: Five papers with an arXiv, OpenReview, DOI or plain page each (tests/data/README.md).
PAGES = ROOT / "tests" / "data" / "pages.jsonl"


@pytest.fixture(scope="session")
def pages_index(tmp_path_factory):
    """A real index of the seeds (no page) plus ``PAGES`` (built once per session)."""
    d = tmp_path_factory.mktemp("pages-index")
    search.build_index(d, corpus.load_papers([SEEDS, PAGES]), fingerprint="pages-test")
    return search.SearchIndex(d)


@pytest.fixture
def settings(tmp_path, seed_index_dir) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
        index_dir=seed_index_dir,
        seeds_dir=SEEDS,
        default_time="09:00",
        default_tz="UTC",
    )


@pytest.fixture
def store(settings):
    s = Store(settings.database_url)
    yield s
    s.close()


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc))


@pytest.fixture
def poster(clock) -> RecordingPoster:
    return RecordingPoster(clock)


@pytest.fixture
def service(seed_index, store, settings, poster, clock) -> Service:
    return Service(seed_index, store, settings, announcer=PostingAnnouncer(poster), now=clock, rng=random.Random(7))


def pytest_collection_modifyitems(items) -> None:
    """Run the ``long_wall`` tests first (a stable sort: the rest keep their order).

    The README runs the suite in four workers (``pytest -n 4``, pytest-xdist): a test that
    waits on real processes for ten seconds or more, started last, would leave the other
    workers idle until it ends; started first, it overlaps the short tests.
    """
    items.sort(key=lambda item: item.get_closest_marker("long_wall") is None)


def pytest_terminal_summary(terminalreporter) -> None:
    """Note the modules over the structure test's NOTE_LINES (docs/architecture.md "Size")."""
    from tests.test_structure import NOTE_LINES, long_modules

    long = long_modules()
    if long:
        terminalreporter.write_line(
            f"note: modules over {NOTE_LINES} lines (one reason to change each?): "
            + ", ".join(f"{rel} ({n})" for rel, n in long)
        )
