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
        papers.append(paper(f"d{i:03d}", f"We study a {' '.join(words)} of item {i} in depth.",
                            title=f"Paper number {i}"))
    d = tmp_path_factory.mktemp("common")
    build_index(d, papers)
    return SearchIndex(d)


def test_papers_with_only_common_words_are_still_candidates(common):
    page = common.search("model rare", limit=100)
    with_any = 120 + sum(1 for i in range(120, 130) if i % 26 == 0)
    assert page.total == with_any       # plain BM25's candidate set: any term
    rare = {h.paper.id for h in page.hits[:5]}
    assert rare == {f"d{i:03d}" for i in range(130) if i % 26 == 0}   # ordered, not hidden


def test_a_word_run_never_hides_papers_with_one_of_its_words(common):
    page = common.search("rare compound", limit=100)
    assert page.total == sum(1 for i in range(130) if i % 26 == 0 or i % 13 == 1)
