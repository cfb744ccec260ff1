"""The impact arrays (bot.search.scoring.impacts) rank exactly as the Whoosh postings do:
same papers, same order, same scores (float tolerance), same totals."""

import random

import pytest

from bot import corpus
from bot.search import SearchIndex, build_index
from bot.search.index import layout
from bot.search.scoring import impacts, rank
from bot.search.scoring.knobs import Ranking
from tests.conftest import SEEDS
from tests.search.searchkit import paper

WORDS = (
    "attention sparse graph neural network diffusion model language transformer decoding "
    "retrieval kernel expert routing tokens distillation teacher student image molecule "
    "protein reinforcement learning policy reward test-time scaling MoE LLM benchmark"
).split()


def synthetic(n: int) -> list:
    rnd = random.Random(20261201)
    out = []
    for i in range(n):
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(5, 60))] + [f"rare{i}"]
        out.append(
            paper(f"syn{i:04d}", " ".join(words), title=" ".join(rnd.sample(WORDS, 4)), authors=(f"Author {i % 11}",))
        )
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One index of the seeds + 400 synthetic papers; terms in >= 4 papers go to
    the arrays, rarer ones stay on the postings path."""
    papers = corpus.load_papers([SEEDS]) + synthetic(400)
    d = tmp_path_factory.mktemp("impacts")
    mp = pytest.MonkeyPatch()
    mp.setattr(impacts, "MIN_DF", 4)
    try:
        build_index(d, papers)
    finally:
        mp.undo()
    return papers, d


def queries(papers) -> list[str]:
    seeds = [p for p in papers if not p.id.startswith("syn")]
    out = [
        "attention",
        "sparse attention",
        "graph neural network",
        "diffusion models",
        "test-time scaling",
        "MoE routing",
        "mixture of experts",
        "distill*",
        "rare3 attention",
        "attention attention attention graph",
        "language model language",
        "difusion modles",
        "zzzunknownword",
        "LLM benchmark",
        "protein molecule reward policy",
    ]
    out += [p.title for p in seeds[:40]]
    out += [" ".join(p.abstract.split()[:150]) for p in seeds[:25]]
    return out


def test_arrays_are_written_beside_the_whoosh_generation(both):
    _, d = both
    gen = layout.current_path(d)
    assert (gen / "imp-all-terms.json").is_file() and (gen / "imp-all-ids.npy").is_file()
    loaded = impacts.Impacts(gen)
    terms = loaded.fields["all"][0]
    assert "attent" in terms and not any(t.startswith("rare") for t in terms)


def test_accelerator_ranks_exactly_as_the_postings(both, monkeypatch):
    papers, d = both
    fast, slow = SearchIndex(d, ranking=Ranking()), SearchIndex(d, ranking=Ranking(impacts=False))
    used = []
    real = rank.dense_run

    def counting(*args):
        got = real(*args)
        used.append(got is not None)
        return got

    monkeypatch.setattr(rank, "dense_run", counting)
    for q in queries(papers):
        a, b = fast.search(q, limit=50), slow.search(q, limit=50)
        assert [h.paper.id for h in a.hits] == [h.paper.id for h in b.hits], q
        assert [h.score for h in a.hits] == pytest.approx([h.score for h in b.hits], rel=1e-9, abs=1e-9), q
        assert (a.total, a.corrected_query, a.suggestion, a.confident, a.notes) == (
            b.total,
            b.corrected_query,
            b.suggestion,
            b.confident,
            b.notes,
        ), q
    assert sum(used) >= 0.9 * len(used) > 60  # the arrays scored (nearly) all of them


def test_exclusions_and_required_words_rank_as_the_postings(both):
    _, d = both
    fast, slow = SearchIndex(d), SearchIndex(d, ranking=Ranking(impacts=False))
    for q in (
        "attention -graph",
        "+sparse attention",
        '"neural network" attention',
        "graph AND kernel",
        "attention (graph -kernel)",
        "(+policy reward) diffusion",
        "model NOT language -rare5",
        "tokens ANDNOT expert",
        "+zzznothing attention",
    ):
        a, b = fast.search(q, limit=20), slow.search(q, limit=20)
        assert [(h.paper.id, h.score) for h in a.hits] == [(h.paper.id, h.score) for h in b.hits], q


def test_similar_excludes_the_paper_itself(both):
    papers, d = both
    fast, slow = SearchIndex(d), SearchIndex(d, ranking=Ranking(impacts=False))
    for p in papers[:5]:
        a, b = fast.similar(p.id, limit=10), slow.similar(p.id, limit=10)
        assert p.id not in [h.paper.id for h in a]
        assert [h.paper.id for h in a] == [h.paper.id for h in b]
