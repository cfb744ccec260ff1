"""Fixtures for the corpus tests: the two real seed files, parsed once."""

from __future__ import annotations

import pytest

from bot.corpus import load_papers
from tests.kit import SEEDS

SEED_FILES = sorted(SEEDS.glob("*.txt"))


@pytest.fixture(scope="session")
def seed_corpus():
    """All seed papers, loaded from the two real files (never empty: tests
    that check every seed paper would pass on none)."""
    papers = load_papers(SEED_FILES)
    assert len(SEED_FILES) == 2 and papers, SEED_FILES
    return papers


@pytest.fixture(scope="session")
def by_name(seed_corpus):
    """Seed papers by their derived name."""
    return {p.name: p for p in seed_corpus if p.name}


@pytest.fixture(scope="session")
def with_text(seed_corpus):
    """``with_text(fragment)`` → the one seed paper whose abstract contains ``fragment``."""

    def find(fragment: str):
        found = [p for p in seed_corpus if fragment in p.abstract]
        assert len(found) == 1, (fragment, [p.source for p in found])
        return found[0]

    return find
