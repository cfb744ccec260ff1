"""benchmarks/ablation_rules.py: the verdict, the variants' indexes and the
in-process ranking the ablation measures (real Whoosh indexes, small papers)."""

from __future__ import annotations

import sys

import pytest

from bot.core.models import QueryError
from bot.search import SearchIndex, build_index
from bot.search.index.schema import IndexRules
from tests.kit import ROOT
from tests.search.searchkit import SMALL, paper

sys.path.insert(0, str(ROOT / "benchmarks"))
import ablation  # noqa: E402  (benchmarks/ is not a package)
import ablation_rules as ab  # noqa: E402

# source ids are what the ablation ranks by: give every paper one
PAPERS = [p.__class__(**{**p.__dict__, "source_id": p.source_id or f"s-{p.id}"}) for p in SMALL] + [
    paper("p7", "Networks of sparse experts learn faster than one network.", source_id="s-p7"),
    paper("p8", "A sparse mixture of experts for translation.", source_id="s-p8"),
]


@pytest.fixture
def indexes(tmp_path):
    return ab.Indexes(PAPERS, tmp_path)


def rule(name: str) -> ab.Rule:
    return next(r for r in ab.RULES + ab.ADDED_BACK + ab.ALTERNATIVES if r.name == name)


@pytest.mark.parametrize(
    "scifact,known,holds",
    [
        (-0.005, 0.0, True),  # costs the bar on one, nothing on the other
        (0.0, -0.0051, True),
        (-0.0049, -0.0049, False),  # costs on both, but under the bar on each
        (-0.02, 0.0001, False),  # a gain on the other measure
        (-0.02, 0.00004, True),  # ... not a gain at the 4 decimals reported
        (0.0, 0.0, False),  # no query reached
    ],
)
def test_verdict(scifact, known, holds):
    assert ab.verdict(scifact, known) is holds


def test_ranked_is_the_search_order(indexes):
    index = SearchIndex(indexes.get(ab.FULL.setup()))
    ids = ab.source_ids(index)
    for text in ["sparse attention", "MoE", "test-time", "difusion", "experts -sparse", "((("]:
        try:
            expected = [h.paper.source_id for h in index.search(text, limit=100).hits]
        except QueryError:
            expected = []
        assert ab.ranked(index, ids, text) == expected, text


def test_index_time_rule_rebuilds_and_changes_the_ranking(indexes):
    full = indexes.get(ab.FULL.setup())
    unstemmed = indexes.get(rule("stemming").setup())
    assert unstemmed != full and indexes.get(rule("stemming").setup()) == unstemmed  # built once
    lists_full, _, _ = ab.run_queries(full, ab.FULL, ["network"])
    lists_plain, _, _ = ab.run_queries(unstemmed, rule("stemming"), ["network"])
    assert "s-p6" in lists_full[0] and "s-p7" in lists_full[0]  # "networks" stems to "network"
    assert lists_plain[0] == ["s-p7"]


def test_added_back_rule_is_measured_on_the_full_index(indexes):
    full = indexes.get(ab.FULL.setup())
    assert indexes.get(rule("+acronyms").setup()) == full
    plain, _, _ = ab.run_queries(full, ab.FULL, ["MoE"])
    expanded, _, _ = ab.run_queries(full, rule("+acronyms"), ["MoE"])
    assert plain[0] == ["s-p2"]  # only the paper that writes "MoE"
    assert "s-p8" in expanded[0]  # ... and the one that says "mixture of experts"


def test_query_time_rule_uses_the_full_index(tmp_path):
    """A word said 3 times weighs 1.5 (k3 = 1) or 3 (rule removed): the paper
    with it once passes the one with the other word 4 times only without k3."""
    twice = ab.Indexes(
        [
            paper("a", "alpha alpha alpha alpha gamma", title="paper one", source_id="a"),
            paper("b", "beta gamma delta epsilon zeta", title="paper two", source_id="b"),
        ],
        tmp_path,
    )
    assert twice.get(rule("qtf-k3").setup()) == twice.get(ab.FULL.setup())
    texts = ["beta beta beta alpha"]
    saturated, _, _ = ab.run_queries(twice.get(ab.FULL.setup()), ab.FULL, texts)
    linear, _, _ = ab.run_queries(twice.get(ab.FULL.setup()), rule("qtf-k3"), texts)
    assert saturated[0] == ["a", "b"] and linear[0] == ["b", "a"]


def test_one_field_off_builds_no_all_field(tmp_path):
    build_index(tmp_path / "ix", PAPERS, rules=IndexRules(all_field=False))
    index = SearchIndex(tmp_path / "ix")
    with index._searcher() as (_, searcher):
        assert "all" not in searcher.schema and "abstract" in searcher.schema
    assert index.search("speculative decoding").hits[0].paper.id == "p3"


def test_changed_and_ranks():
    assert ablation.ranks_of([["a", "b"], ["c"]], ["b", "x"]) == [2, None]
    assert ablation.changed([["a", "b"], ["c"]], [["a", "b"], ["d"]]) == 1
