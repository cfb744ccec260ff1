"""Papers as term vectors (``SearchIndex.vectors``) and stems shown as the
paper's words (``SearchIndex.readable``), on real Whoosh indexes."""

from __future__ import annotations

import numpy as np

from bot.search import SearchIndex, add_to_index
from bot.search.index.analysis import text_analyzer
from bot.search.vectors import MIN_DF
from tests.search.searchkit import SMALL, paper

STEM = text_analyzer().stem


def test_each_column_holds_the_papers_of_its_term(small):
    v = small.vectors()
    assert len(v.ids) == len(SMALL) and v.live.all()
    assert len(v.terms) == len(v.df) == len(v.indptr) - 1 > 0
    analyzer = text_analyzer()
    words = {p.id: set(analyzer.terms(f"{p.title} {p.abstract}")) for p in SMALL}
    for j, term in enumerate(v.terms):
        docs = v.docs[v.indptr[j] : v.indptr[j + 1]]
        assert len(docs) == v.df[j] >= MIN_DF
        assert list(docs) == sorted(docs)
        assert {v.ids[d] for d in docs} == {pid for pid, ws in words.items() if term in ws}
    assert (v.tf >= 1).all()


def test_the_title_counts_more_than_the_abstract(small):
    v = small.vectors()
    j = v.terms.index(STEM("attention"))
    tf = dict(zip((v.ids[d] for d in v.docs[v.indptr[j] : v.indptr[j + 1]]), v.tf[v.indptr[j] : v.indptr[j + 1]]))
    titled = [p.id for p in SMALL if "attention" in p.title.lower().split()]
    untitled = [p.id for p in SMALL if p.id in tf and p.id not in titled]
    assert titled and untitled
    assert min(tf[p] for p in titled) > max(tf[p] for p in untitled)


def test_what_is_made_of_the_vectors_is_kept_per_generation_and_sees_replaced_papers(small_dir):
    index = SearchIndex(small_dir)
    made = []
    first = index.from_vectors("test", lambda v: made.append(v) or v)
    assert index.from_vectors("test", lambda v: made.append(v) or v) is first and len(made) == 1
    assert index.from_vectors("other", lambda v: made.append(v) or v) is not first and len(made) == 2
    add_to_index(small_dir, [paper("p1", "Sparse attention for dolphins and dolphins.")])
    second = index.from_vectors("test", lambda v: made.append(v) or v)
    assert second is not first and len(made) == 3
    assert second.ids.count("p1") == 1 and not second.live.all()
    assert "" in second.ids and np.count_nonzero(~second.live) == second.ids.count("")


def test_readable_spells_stems_as_the_text_does(small):
    text = "Large Language Models cache keys. We study KV caches and sparse attention; sparse attention helps LLMs."
    got = small.readable(text, [STEM("attention"), STEM("sparse"), STEM("cache"), STEM("llms"), STEM("zebra")])
    assert got == [
        ("sparse attention", (STEM("attention"), STEM("sparse"))),
        ("cache", (STEM("cache"),)),
        ("LLMs", (STEM("llms"),)),
    ]


def test_readable_lowers_sentence_capitals_and_keeps_hyphenated_words(small):
    text = "Multimodal models. A layer-wise test-time method."
    got = [label for label, _ in small.readable(text, [STEM("multimodal"), STEM("wise"), STEM("test")])]
    assert got == ["multimodal", "layer-wise", "test-time"]


def test_a_pair_seen_once_stays_two_words(small):
    text = "Tokens often matter. Tokens rarely matter."
    got = [label for label, _ in small.readable(text, [STEM("tokens"), STEM("often")])]
    assert got == ["tokens", "often"]


def test_at_reads_papers_by_docnum_and_falls_back_to_the_id(small):
    ids = small.from_vectors("ids", lambda v: v.ids)
    got = small.at([(0, ids[0]), (1, ids[0]), (99, ids[2]), (0, "nosuchpaper")])
    assert [p.id if p else None for p in got] == [ids[0], ids[0], ids[2], None]
    assert got[0] == small.get(ids[0])
