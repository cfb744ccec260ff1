"""Shared fixtures: the real seed corpus, a real Whoosh index of it (built once
per session), a real SQLite store, and a ``Service`` over them with an
injected clock and a recording ``Poster``.
"""
from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bot import corpus, search
from bot.config import Settings
from bot.ports import Message, PostError
from bot.service import Service
from bot.store import Store

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"


class RecordingPoster:
    """A ``Poster`` that records posts; ``fail[channel] = code`` makes it raise."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Message, str | None]] = []
        self.fail: dict[str, str] = {}

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        if channel_id in self.fail:
            raise PostError(self.fail[channel_id])
        self.posts.append((channel_id, message, thread_ts))
        return f"{1700000000 + len(self.posts)}.000100"

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        return None


class Clock:
    """A settable clock returning aware UTC datetimes."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


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


@pytest.fixture
def settings(tmp_path, seed_index_dir) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'paperbot.db'}", index_dir=seed_index_dir,
                    seeds_dir=SEEDS, default_time="09:00", default_tz="UTC")


@pytest.fixture
def store(settings):
    s = Store(settings.database_url)
    yield s
    s.close()


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc))


@pytest.fixture
def poster() -> RecordingPoster:
    return RecordingPoster()


@pytest.fixture
def service(seed_index, store, settings, poster, clock) -> Service:
    return Service(seed_index, store, settings, poster=poster, now=clock, rng=random.Random(7))
