"""Every pick says why: its words occur in the paper, and ``like`` is the
positive nearest to it (tests/recommend/kit.py)."""

from __future__ import annotations

from bot.recommend import Recommender
from bot.recommend.explain import MAX_TERMS, MIN_TERMS
from tests.recommend.kit import topic_of


def test_the_words_occur_in_the_recommended_paper(topics):
    picks = Recommender(topics).recommend(["attn0", "astro1", "chem2"], limit=100)
    for pick in picks:
        paper = topics.get(pick.paper_id)
        text = f"{paper.title} {paper.abstract}".casefold()
        assert MIN_TERMS <= len(pick.why.terms) <= MAX_TERMS, pick
        assert all(term.casefold() in text for term in pick.why.terms), pick
        assert len({t.casefold() for t in pick.why.terms}) == len(pick.why.terms)


def test_like_is_the_positive_of_the_same_topic(topics):
    picks = Recommender(topics).recommend(["attn0", "astro1", "chem2"], limit=100)
    assert all(topic_of(p.why.like) == topic_of(p.paper_id) for p in picks)


def test_words_side_by_side_twice_are_one_phrase(topics):
    picks = Recommender(topics).recommend(["attn0", "attn1", "attn2"], limit=5)
    assert all("sparse attention" in p.why.terms for p in picks), [p.why.terms for p in picks]
