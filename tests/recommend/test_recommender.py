"""Recommender.recommend over a real Whoosh index of three topics (tests/recommend/kit.py)."""

from __future__ import annotations

import pytest

from bot.recommend import MIN_POSITIVES, Recommender, TooFewPositives
from bot.search import SearchIndex, add_to_index, build_index
from tests.recommend.kit import PER_TOPIC, TOPICS, papers, topic_of

ALL = 3 * PER_TOPIC


def test_the_best_picks_share_the_positives_topic(topics):
    picks = Recommender(topics).recommend(["astro0", "astro1", "astro2"], limit=5)
    assert len(picks) == 5
    assert {topic_of(p.paper_id) for p in picks} == {"astro"}


def test_picks_are_best_first_and_never_a_positive_negative_or_excluded(topics):
    positives, negatives, exclude = ["attn0", "attn1", "attn2"], ["chem0"], {"attn3", "astro5"}
    picks = Recommender(topics).recommend(positives, negatives, exclude, limit=100)
    got = [p.paper_id for p in picks]
    assert len(got) == len(set(got)) == ALL - 3 - 1 - 2
    assert not set(got) & (set(positives) | set(negatives) | exclude)
    assert [p.score for p in picks] == sorted((p.score for p in picks), reverse=True)


@pytest.mark.parametrize(
    "positives",
    [["attn0", "attn1"], ["attn0", "attn1", "nosuchpaper"], ["attn0", "attn0", "attn1"], []],
)
def test_fewer_than_three_known_positives_raise(topics, positives):
    with pytest.raises(TooFewPositives) as caught:
        Recommender(topics).recommend(positives)
    assert caught.value.have == len(set(positives) - {"nosuchpaper"})
    assert caught.value.needed == MIN_POSITIVES == 3


def test_unknown_ids_are_ignored(topics):
    picks = Recommender(topics).recommend(["chem0", "chem1", "gone", "chem2"], ["gone2"], {"gone3"}, limit=3)
    assert [topic_of(p.paper_id) for p in picks] == ["chem"] * 3


def test_a_not_for_me_pushes_its_topic_down(topics):
    rec = Recommender(topics)
    reader = ["attn0", "attn1", "attn2", "chem0", "chem1", "chem2"]

    def chem_rank(negatives):
        got = [p.paper_id for p in rec.recommend(reader, negatives, limit=100)]
        return sum(i for i, pid in enumerate(got) if topic_of(pid) == "chem" and pid not in negatives) / (
            PER_TOPIC - 3 - len(negatives)
        )

    assert chem_rank(["chem3", "chem4"]) > chem_rank([]) + 1


def test_limit_is_bounded(topics):
    rec = Recommender(topics)
    assert len(rec.recommend(["astro0", "astro1", "astro2"], limit=0)) == 1
    assert len(rec.recommend(["astro0", "astro1", "astro2"], limit=10_000)) == ALL - 3


def test_a_new_generation_is_read_again(tmp_path):
    d = tmp_path / "index"
    build_index(d, papers(), fingerprint="topics")
    index = SearchIndex(d)
    rec = Recommender(index)
    before = rec.matrix()
    assert rec.matrix() is before
    new = papers()[0].__class__(id="attnnew", title="Sparse attention KV cache", abstract=" ".join(TOPICS["attn"]))
    add_to_index(d, [new])
    assert rec.matrix() is not before
    got = [p.paper_id for p in rec.recommend(["attn0", "attn1", "attn2"], limit=100)]
    assert "attnnew" in got[:PER_TOPIC]
