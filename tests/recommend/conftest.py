"""A real Whoosh index of hand-made papers on three topics, for the
recommendation tests (``kit.TOPICS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.search import SearchIndex, build_index
from tests.recommend.kit import papers


@pytest.fixture(scope="module")
def topic_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("topics") / "index"
    build_index(d, papers(), fingerprint="topics")
    return d


@pytest.fixture(scope="module")
def topics(topic_dir) -> SearchIndex:
    return SearchIndex(topic_dir)
