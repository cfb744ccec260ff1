"""SearchIndex on small hand-made corpora: results, lookups, resolve, similar."""

import pytest

from bot.core.models import QueryError
from bot.search import Ranking, SearchIndex, build_index
from tests.search.searchkit import SMALL, paper

BY_ID = {p.id: p for p in SMALL}


def ids(page):
    return [h.paper.id for h in page.hits]


def test_hits_carry_the_whole_paper(small):
    hit = small.search("FlashSparse").hits[0]
    assert hit.paper == BY_ID["p1"]  # every field round-trips
    for attr in (
        "id",
        "source_id",
        "title",
        "title_derived",
        "name",
        "authors",
        "venue",
        "url",
        "abstract",
        "code_urls",
    ):
        assert hasattr(hit.paper, attr)
    assert isinstance(hit.score, float) and hit.score > 0


def test_page_shape(small):
    page = small.search("attention")
    assert page.query == "attention" and page.offset == 0 and page.limit == 10
    assert page.total == len(page.hits) == 2
    assert page.took_ms >= 0 and page.notes == () and not page.has_next
    assert [h.score for h in page.hits] == sorted((h.score for h in page.hits), reverse=True)


def test_ties_break_by_id_across_pages(tmp_path):
    twins = [
        paper(pid, "Identical abstract about quantum annealing.", title="Same") for pid in ("t3", "t1", "t4", "t2")
    ]
    build_index(
        tmp_path / "ix",
        twins + [paper("u1", "Quantum annealing quantum annealing quantum annealing rules.", title="Q")],
    )
    index = SearchIndex(tmp_path / "ix")
    page = index.search("quantum annealing")
    assert ids(page) == ["u1", "t1", "t2", "t3", "t4"]
    assert [ids(index.search("quantum annealing", limit=2, offset=o)) for o in (0, 2, 4)] == [
        ["u1", "t1"],
        ["t2", "t3"],
        ["t4"],
    ]
    second = index.search("quantum annealing", limit=2, offset=2)
    assert second.total == 5 and second.has_next and second.has_previous


def test_more_matching_words_rank_higher(small):
    page = small.search("sparse attention kernel molecules")
    assert ids(page)[0] == "p1"
    assert set(ids(page)) == {"p1", "p6"}


def test_coordination_can_be_turned_off(small_dir):
    plain = SearchIndex(small_dir, ranking=Ranking(coord=0.0))
    page = plain.search("sparse attention kernel molecules")
    assert set(ids(page)) == {"p1", "p6"}


def test_never_zero_when_one_word_is_unknown(small):
    page = small.search("sparse attention kernel quadratic qqqqzzzz")
    assert page.total >= 1 and ids(page)[0] == "p1"


def test_spelling_correction(small):
    page = small.search("steganografy")
    assert page.corrected_query == "steganography" and ids(page) == ["p5"]
    page = small.search("speculatve")
    assert page.corrected_query == "speculative" and ids(page) == ["p3"]
    assert small.search("qqqqzzzz").total == 0


def test_search_exactly_as_typed(small):
    page = small.search("steganografy", correct=False)
    assert page.total == 0 and page.corrected_query is None and page.suggestion is None
    assert small.search("distilation", correct=False).suggestion is None


def test_names_and_authors_are_never_corrected(small):
    for word in ("Turing", "FlashSparse", "hopper"):
        page = small.search(word)
        assert page.total >= 1 and page.suggestion is None and page.corrected_query is None


def test_snippet_marks_matches_and_neutralises_stray_stars(small):
    hit = small.search("steganography").hits[0]
    assert "*steganography*" in hit.snippet.lower()
    assert "A∗ search" in hit.snippet and "A* search" not in hit.snippet
    assert BY_ID["p5"].abstract in hit.paper.abstract  # the paper is untouched


def test_hyphenated_match_is_marked_whole(small):
    hit = small.search("long-context").hits[0]
    assert "*long-context*" in hit.snippet


def test_acronyms_from_the_corpus(small):
    assert ids(small.search("MoE")) == ids(small.search("mixture of experts")) == ["p2"]
    assert ids(small.search("RL")) == ids(small.search("reinforcement learning")) == ["p5"]


def test_fields(small):
    assert ids(small.search("author:turing")) == ["p1"]
    assert ids(small.search('author:"grace hopper"')) == ["p2"]
    assert ids(small.search("name:draftking")) == ["p3"]
    assert set(ids(small.search("venue:neurips"))) == {"p3", "p4"}
    assert ids(small.search("title:steganography")) == ["p5"]
    assert ids(small.search("attention -molecules")) == ["p1"]
    assert ids(small.search("+attention +molecules")) == ["p6"]


def test_prefix_expansion_is_capped(small_dir):
    index = SearchIndex(small_dir, ranking=Ranking(prefix_max_terms=1))
    assert index.search("distil*").total == 1
    assert SearchIndex(small_dir).search("mol*").total == 1


def test_limit_and_offset_are_clamped(small):
    page = small.search("attention", limit=10_000, offset=-5)
    assert page.limit == 100 and page.offset == 0


def test_get_by_name_ids_count(small):
    assert small.get("P1") == BY_ID["p1"] and small.get("p1 ") == BY_ID["p1"]
    assert small.get("nope") is None
    assert small.by_name("flashsparse") == [BY_ID["p1"]]
    assert small.by_name("Flash") == []
    assert small.ids() == sorted(BY_ID) and small.count() == len(SMALL)


def test_resolve_order(tmp_path, small):
    assert small.resolve("p3") == (BY_ID["p3"], [])
    assert small.resolve("2401.00001") == (BY_ID["p1"], [])  # source id
    assert small.resolve("  routex ") == (BY_ID["p2"], [])  # name
    assert small.resolve("speculative decoding") == (BY_ID["p3"], [])  # search
    assert small.resolve("quantum chromodynamics") == (None, [])
    assert small.resolve("") == (None, []) and small.resolve("NOT NOT") == (None, [])
    twins = [paper("a1", "Alpha method for graphs.", name="Twin"), paper("a2", "Beta method for images.", name="twin")]
    build_index(tmp_path / "t", twins)
    assert SearchIndex(tmp_path / "t").resolve("TWIN") == (None, twins)


def test_resolve_ties_give_a_pick_list(tmp_path):
    twins = [paper(pid, "Identical abstract about quantum annealing.") for pid in ("b2", "b1")]
    build_index(tmp_path / "t", twins)
    found, several = SearchIndex(tmp_path / "t").resolve("quantum annealing")
    assert found is None and [p.id for p in several] == ["b1", "b2"]


def test_similar_never_returns_the_paper_itself(small, small_dir):
    loose = SearchIndex(small_dir, ranking=Ranking(similar_min_shared=0))  # without the shared-terms rule
    hits = loose.similar("p1", limit=10)
    assert hits and "p1" not in ids_of(hits)
    assert hits[0].paper.id == "p6"  # the other attention paper
    assert loose.similar("P1", limit=1, offset=1)[0].paper.id == ids_of(hits)[1]
    assert small.similar("missing") == []


def test_a_similar_paper_shares_more_than_one_word(tmp_path):
    """Issue 18: the molecules paper shares only "attention" with FlashSparse — no topic."""
    near = paper("p7", "Block sparse attention for long-context language models: a fast kernel.")
    build_index(tmp_path / "i", [*SMALL, near])
    index = SearchIndex(tmp_path / "i")
    assert ids_of(index.similar("p1", limit=10)) == ["p7"]
    loose = SearchIndex(tmp_path / "i", ranking=Ranking(similar_min_shared=0))
    assert ids_of(loose.similar("p1", limit=10))[:2] == ["p7", "p6"]


def ids_of(hits):
    return [h.paper.id for h in hits]


def test_query_errors_have_examples(small):
    for text in ["", "the", "*", "(((", "title:", "-attention"]:
        with pytest.raises(QueryError) as err:
            small.search(text)
        assert err.value.message and err.value.example


def test_broken_syntax_around_words_still_searches(small):
    assert ids(small.search("NOT NOT FlashSparse"))[0] == "p1"
    assert ids(small.search("x ANDNOT ANDNOT FlashSparse"))[0] == "p1"
    assert ids(small.search("(" * 200 + "FlashSparse"))[0] == "p1"
    assert ids(small.search("foo:FlashSparse"))[0] == "p1"
    assert ids(small.search("Examples: papers on sparse attention *, kernels (see also"))[0] == "p1"


def test_search_survives_very_long_and_odd_input(small):
    page = small.search("x" * 100_000)
    assert page.notes and len(page.query) == 4000
    page = small.search(" ".join(["attention"] * 2000))
    assert ids(page)[0] in {"p1", "p6"}
    assert small.search(" OR ".join(["attention"] * 400) + " OR molecules").total >= 1


def test_warm_opens_the_generation_and_the_default_norms(small_dir, tmp_path):
    from bot.search.scoring.knobs import DEFAULT_FIELDS

    index = SearchIndex(small_dir)
    index.warm()
    (gen,) = index._cache.values()
    assert {key[0] for key in gen.norms._norms} == set(DEFAULT_FIELDS)
    SearchIndex(tmp_path / "none").warm()  # no index yet: nothing to do, no error


def test_lengths_of_an_unscored_field_are_zeros_without_asking_whoosh(small_dir):
    from bot.search.scoring.norms import doc_lengths

    with SearchIndex(small_dir)._searcher() as (_, searcher):
        reader = searcher.reader()
        assert not reader.schema["name_key"].scorable and reader.schema["title"].scorable
        zeros = doc_lengths(reader, "name_key")
        assert (
            list(zeros)
            == [reader.doc_field_length(d, "name_key") or 0 for d in range(reader.doc_count_all())]
            == [0] * len(SMALL)
        )
        assert any(doc_lengths(reader, "title"))


def test_a_swap_of_two_letters_is_one_edit(tmp_path):
    """ "nueral" is "neural" with two letters swapped; "numeral" is one insertion
    away. The corpus's usual word wins (a fresh-user finding on 100k papers)."""
    papers = [paper(f"n{i}", f"Neural networks number {i} learn graph features.") for i in range(5)]
    papers.append(paper("m1", "A numeral system for counting; graphs of numerals."))
    build_index(tmp_path, papers)
    page = SearchIndex(tmp_path).search("nueral netwroks")
    assert page.corrected_query == "neural networks"
    assert set(ids(page)) == {f"n{i}" for i in range(5)}


def test_a_rare_hyphenation_does_not_split_a_common_word(tmp_path):
    """ "networks" written once as "net-works" must not make every paper with
    "net" and "work" match "networks"; "test-time" stays findable as "testtime"."""
    papers = [paper(f"g{i}", f"Graph networks {i} for molecules.") for i in range(12)]
    papers += [
        paper("h1", "Neural net-works with a twist."),
        paper("w1", "Our prior work on the net gain of trading."),
        paper("t1", "Test-time adaptation of models."),
    ]
    build_index(tmp_path, papers)
    index = SearchIndex(tmp_path)
    assert "w1" not in ids(index.search("networks", limit=50))
    assert ids(index.search("testtime")) == ["t1"]
    assert ids(index.search("test time")) == ["t1"]


def test_a_typo_printed_in_one_abstract_still_gets_a_suggestion(tmp_path):
    """ "tranformer" occurs once (a typo in a paper); "transformer" in 40 papers."""
    papers = [paper(f"t{i}", f"A transformer model number {i}.") for i in range(40)]
    papers.append(paper("typo", "Our tranformer is small."))
    build_index(tmp_path, papers)
    page = SearchIndex(tmp_path).search("tranformer")
    assert ids(page) == ["typo"] and page.suggestion == "transformer"
    assert SearchIndex(tmp_path).search("transformer").suggestion is None


def test_a_correction_also_fixes_a_word_that_only_shares_a_stem(tmp_path):
    """ "difusion" stems like the name "DiFuse" (so it is not unknown); when
    another word needs correcting anyway, it is corrected too."""
    papers = [paper(f"d{i}", f"Diffusion models number {i} generate images.") for i in range(30)]
    papers.append(paper("df", "DiFuse estimates depth with models.", name="DiFuse"))
    build_index(tmp_path, papers)
    page = SearchIndex(tmp_path).search("difusion modles")
    assert page.corrected_query == "diffusion models" and page.total >= 30
