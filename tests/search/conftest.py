"""Fixtures for the search tests: hand-made papers and real Whoosh indexes in
tmp_path (the seed index itself comes from the top-level conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.search import SearchIndex, build_index
from tests.search.searchkit import SMALL


@pytest.fixture
def small_dir(tmp_path) -> Path:
    d = tmp_path / "index"
    build_index(d, SMALL, fingerprint="fp-small")
    return d


@pytest.fixture
def small(small_dir) -> SearchIndex:
    return SearchIndex(small_dir)
