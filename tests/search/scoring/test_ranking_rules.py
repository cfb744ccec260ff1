"""Issue 11 points 2-3 on small inputs: ranking orders and never hides; long
text is a query; repeated words count."""

from __future__ import annotations

import pytest

from bot.search import SearchIndex, build_index
from tests.search.searchkit import paper


@pytest.fixture(scope="module")
def common(tmp_path_factory) -> SearchIndex:
    """130 papers: "model" in 120 (92 %), "rare" in 5, "compound" in 10."""
    papers = []
    for i in range(130):
        words = ["model"] if i < 120 else ["survey"]
        if i % 26 == 0:
            words.append("rare")
        if i % 13 == 1:
            words.append("compound")
        papers.append(
            paper(f"d{i:03d}", f"We study a {' '.join(words)} of item {i} in depth.", title=f"Paper number {i}")
        )
    d = tmp_path_factory.mktemp("common")
    build_index(d, papers)
    return SearchIndex(d)


def test_papers_with_only_common_words_are_still_candidates(common):
    page = common.search("model rare", limit=100)
    with_any = 120 + sum(1 for i in range(120, 130) if i % 26 == 0)
    assert page.total == with_any  # plain BM25's candidate set: any term
    rare = {h.paper.id for h in page.hits[:5]}
    assert rare == {f"d{i:03d}" for i in range(130) if i % 26 == 0}  # ordered, not hidden


def test_a_word_run_never_hides_papers_with_one_of_its_words(common):
    page = common.search("rare compound", limit=100)
    assert page.total == sum(1 for i in range(130) if i % 26 == 0 or i % 13 == 1)


@pytest.fixture(scope="module")
def topics(tmp_path_factory) -> SearchIndex:
    """Papers on distinct rare topics, plus filler."""
    papers = [
        paper("alpha", "Glaciers retreat as the climate warms over decades."),
        paper("beta", "Volcanoes erupt basalt flows near tectonic plates."),
        paper("gamma", "Coral reefs bleach when oceans heat up."),
        paper("delta", "Glaciers and volcanoes both shape mountain valleys."),
    ]
    papers += [paper(f"f{i}", f"General survey number {i} of earth science methods.") for i in range(20)]
    d = tmp_path_factory.mktemp("topics")
    build_index(d, papers)
    return SearchIndex(d)


def test_a_repeated_word_ranks_higher_than_a_word_said_once(topics):
    once = topics.search("glaciers volcanoes")
    assert {h.paper.id for h in once.hits[:1]} == {"delta"}
    said_twice = [h.paper.id for h in topics.search("volcanoes glaciers volcanoes").hits]
    said_thrice = [h.paper.id for h in topics.search("glaciers glaciers glaciers volcanoes").hits]
    assert said_twice.index("beta") < said_twice.index("alpha")
    assert said_thrice.index("alpha") < said_thrice.index("beta")


def test_a_3000_character_text_is_answered_from_all_its_parts(topics):
    filler = "we describe methods in general terms and compare them carefully. "
    text = "Glaciers. " + filler * 22 + "Coral reefs. " + filler * 23 + "Basalt."
    assert 2900 <= len(text) <= 3100
    page = topics.search(text, limit=10)
    found = [h.paper.id for h in page.hits]
    assert {"alpha", "gamma", "beta"} <= set(found[:4])  # start, middle and end
    assert not page.notes  # not cut


def test_a_long_text_scores_at_most_max_groups_groups(topics):
    words = " ".join(f"w{i}x" for i in range(200)) + " glaciers"
    page = topics.search(words)
    assert page.hits and page.hits[0].paper.id in {"alpha", "delta"}
