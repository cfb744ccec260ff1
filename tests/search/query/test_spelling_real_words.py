"""Issue 11 point 4: spelling correction never replaces a real word."""

from __future__ import annotations

import pytest

from bot.search import SearchIndex, build_index
from bot.search.query.word_readings import is_english
from tests.search.searchkit import paper


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> SearchIndex:
    texts = [
        "Rocket thrust and nozzle design for small launchers.",
        "Thrust vectoring improves rocket control.",
        "Situations where agents cooperate in traffic situations.",
        "The pointed tip of the probe was pointed at the sample.",
        "A toll road pricing study with toll booths.",
        "Image steganography hides messages in pictures.",
    ]
    d = tmp_path_factory.mktemp("spell")
    build_index(d, [paper(f"s{i}", t) for i, t in enumerate(texts)])
    return SearchIndex(d)


@pytest.mark.parametrize("word", ["trust", "stations", "pointer", "TCOLL"])
def test_a_real_word_or_acronym_is_never_replaced(index, word):
    page = index.search(word)
    assert page.corrected_query is None and page.suggestion is None
    assert page.total == 0  # searched as typed: no paper has it


def test_a_real_word_beside_a_typo_stays(index):
    page = index.search("trust steganografy")
    assert page.corrected_query == "trust steganography"


def test_typos_are_still_corrected(index):
    assert index.search("steganografy").corrected_query == "steganography"
    assert index.search("rockett thrust").corrected_query == "rocket thrust"


def test_the_word_list():
    assert is_english("trust") and is_english("Stations") and is_english("pointer")
    assert not is_english("steganografy") and not is_english("tranformer")
