"""The term-at-a-time scorer agrees with Whoosh's own BM25F, block by block."""

import pytest
from whoosh import index as whoosh_index
from whoosh import query as Q
from whoosh.scoring import BM25F

from bot.search import add_to_index, build_index
from bot.search.index import layout
from bot.search.query.plan import AllOf, AnyOf, Plan, Term
from bot.search.scoring.knobs import Ranking
from bot.search.scoring.norms import Norms
from bot.search.scoring.postings import Scorer
from bot.search.scoring.shared import Scoring
from tests.search.searchkit import paper


@pytest.fixture
def many(tmp_path):
    # 300 papers: "attention" spans several 128-posting blocks
    papers = [
        paper(
            f"m{i:03d}",
            " ".join(["attention"] * (1 + i % 4) + ["graph"] * (i % 3) + [f"w{i}", "filler text"] * (i % 5)),
        )
        for i in range(300)
    ]
    build_index(tmp_path / "ix", papers)
    return tmp_path / "ix"


def whoosh_scores(path, field, text, r):
    ix = whoosh_index.open_dir(str(layout.current_path(path)))
    weighting = BM25F(B=r.b, K1=r.k1, **{f"{f}_B": b for f, b in r.field_b.items()})
    with ix.searcher(weighting=weighting) as s:
        return {hit.docnum: hit.score for hit in s.search(Q.Term(field, text), limit=None)}


@pytest.mark.parametrize("field, text", [("abstract", "attent"), ("abstract", "graph"), ("title", "attent")])
def test_term_scores_match_whoosh_bm25f(many, field, text):
    r = Ranking(coord=0.0, idf="whoosh")  # Whoosh's own idf, to compare exactly
    expected = whoosh_scores(many, field, text, r)
    path = layout.current_path(many)
    ix = whoosh_index.open_dir(str(path))
    with ix.searcher() as s:
        got = Scorer(Scoring(s, Norms(path), r)).run(Plan(groups=[(Term(field, text), False)])).scores
    assert len(got) == len(expected) > 128
    for d, score in expected.items():
        assert got[d] == pytest.approx(score, rel=1e-6)


def test_all_any_and_exclusions(many):
    path = layout.current_path(many)
    ix = whoosh_index.open_dir(str(path))
    r = Ranking(coord=0.0)
    with ix.searcher() as s:
        scorer = Scorer(Scoring(s, Norms(path), r))
        att = scorer.run(Plan(groups=[(Term("abstract", "attent"), False)])).scores
        gra = scorer.run(Plan(groups=[(Term("abstract", "graph"), False)])).scores
        both = scorer.run(Plan(groups=[(AllOf((Term("abstract", "attent"), Term("abstract", "graph"))), False)])).scores
        either = scorer.run(
            Plan(groups=[(AnyOf((Term("abstract", "attent"), Term("abstract", "graph"))), False)])
        ).scores
        minus = scorer.run(
            Plan(groups=[(Term("abstract", "attent"), False)], excluded=[Term("abstract", "graph")])
        ).scores
    assert set(both) == set(att) & set(gra)
    assert set(either) == set(att) | set(gra)
    assert set(minus) == set(att) - set(gra)
    d = next(iter(both))
    assert both[d] == pytest.approx(att[d] + gra[d])


def test_deleted_documents_never_score(many):
    add_to_index(many, [paper("m001", "now about cooking only")])
    path = layout.current_path(many)
    ix = whoosh_index.open_dir(str(path))
    with ix.searcher() as s:
        got = Scorer(Scoring(s, Norms(path), Ranking())).run(Plan(groups=[(Term("abstract", "attent"), False)])).scores
        ids = {s.stored_fields(d)["doc"].split('"id":"')[1].split('"')[0] for d in got}
    assert "m001" not in ids and len(ids) == 299


def test_bm25_idf_is_lucenes():
    from math import log

    from bot.search.scoring.shared import idf

    assert idf(1000, 10) == pytest.approx(log(1 + (1000 - 10 + 0.5) / 10.5))
    assert idf(1000, 10, "whoosh") == pytest.approx(log(1000 / 11) + 1)
    assert idf(1000, 999) > 0  # never negative, unlike Robertson's idf
