"""Query understanding on the real seed corpus (38 ICML 2026 abstracts).

Expected papers are named by the method each abstract introduces (derived by
bot.corpus), or by a phrase of its abstract when it introduces none.
"""

import pytest

from bot.core.models import QueryError


def names(page, n=None):
    return [h.paper.name or h.paper.id for h in page.hits[:n]]


def ids(page):
    return {h.paper.id for h in page.hits}


def find(papers, needle):
    """The one seed paper whose abstract contains ``needle``."""
    found = [p for p in papers if needle in p.abstract]
    assert len(found) == 1, needle
    return found[0]


@pytest.mark.parametrize(
    "typo, fixed, expected",
    [
        ("steganografy", "steganography", "KIStego"),
        ("speculatve decoding", "speculative decoding", "SpecForge"),
    ],
)
def test_typos_are_corrected_and_shown(seed_index, typo, fixed, expected):
    page = seed_index.search(typo)
    assert page.corrected_query == fixed and page.suggestion == fixed
    assert page.hits[0].paper.name == expected
    assert page.query == typo


def test_typo_with_a_known_stem_finds_the_paper_and_suggests(seed_index):
    # "distilation" stems like "distillation", so the results are already right;
    # the spelling is still suggested, without replacing the query.
    page = seed_index.search("distilation")
    assert page.hits[0].paper.name == "AAD-1"
    assert page.suggestion == "distillation" and page.corrected_query is None


def test_correct_spelling_gets_no_suggestion(seed_index):
    page = seed_index.search("speculative decoding")
    assert page.suggestion is None and page.corrected_query is None
    assert seed_index.search("transformers").suggestion is None


def test_test_time_spellings_match_the_same_papers(seed_index, seed_papers):
    pages = [seed_index.search(q, limit=50) for q in ("test-time", "test time", "testtime")]
    hyphenated = {p.id for p in seed_papers if "test-time" in (p.title + p.abstract).lower()}
    joined = [h.paper.id for h in pages[2].hits]  # "testtime": exactly its spellings
    assert len(hyphenated) >= 3 and hyphenated <= set(joined)
    for page in pages[:2]:  # the papers that have both words come first
        assert {h.paper.id for h in page.hits[: len(joined)]} == set(joined)
    assert "FG-TTL" in names(pages[0])
    # ranking never hides: the typed words also find papers with only one of them
    assert pages[1].total > len(joined)


def test_acronym_and_its_expansion_match_the_same_papers(seed_index, seed_papers):
    moe = find(seed_papers, "Mixture-of-Experts (MoE)")
    for q in ("MoE", "moe"):
        assert ids(seed_index.search(q, limit=50)) == {moe.id}, q
    for q in ("mixture of experts", "Mixture-of-Experts"):  # first; others share a word
        assert seed_index.search(q, limit=50).hits[0].paper.id == moe.id, q
    rl = {h.paper.id for h in seed_index.search("RL", limit=50).hits}
    assert rl <= ids(seed_index.search("reinforcement learning", limit=50))
    defining = {p.id for p in seed_papers if "reinforcement learning (rl)" in p.abstract.lower()}
    assert defining and defining <= rl


def test_free_words_rank_by_how_much_they_match(seed_index):
    page = seed_index.search("sparse attention")
    assert names(page, 1) == ["UniSparse"]
    # one word the corpus never uses: still the best partial matches
    page = seed_index.search("sparse attention long context zyxwvut")
    assert page.total > 0 and names(page, 1) == ["UniSparse"]


def test_partial_matches_rank_below_fuller_ones(seed_index):
    hits = seed_index.search("image steganography secret key", limit=20).hits
    assert hits[0].paper.name == "KIStego"
    assert all(h.score <= hits[0].score for h in hits)


def test_exclusion_and_not(seed_index):
    with_sparse = ids(seed_index.search("attention", limit=50))
    without = ids(seed_index.search("attention -sparse", limit=50))
    assert without and without < with_sparse
    assert without == ids(seed_index.search("attention NOT sparse", limit=50))
    for h in seed_index.search("attention -sparse", limit=50).hits:
        assert "sparse" not in h.paper.abstract.lower()


def test_hyphen_inside_a_word_never_excludes(seed_index):
    page = seed_index.search("test-time adaptation")
    assert page.total > 0
    assert any("test-time" in h.paper.abstract.lower() for h in page.hits)


def test_phrases_straight_and_curly(seed_index):
    straight = seed_index.search('"sparse attention"', limit=50)
    curly = seed_index.search("“sparse attention”", limit=50)
    assert [h.paper.id for h in straight.hits] == [h.paper.id for h in curly.hits]
    held = ["sparse attention" in (h.paper.title + " " + h.paper.abstract).lower() for h in straight.hits]
    exact = held.count(True)
    assert 0 < exact < 50 and held == [True] * exact + [False] * (len(held) - exact)
    # after the exact matches, the rest of the list has the words
    [note] = straight.notes
    assert note.startswith(f"{exact} paper") and note.endswith("the rest match its words.")
    loose = seed_index.search("sparse attention", limit=50)
    assert ids(straight) == ids(loose) and straight.total == loose.total
    # a page the exact matches fill: those, and the same total and note as every other page
    few = seed_index.search('"sparse attention"', limit=exact)
    assert ids(few) == set(h.paper.id for h in straight.hits[:exact])
    assert few.total == straight.total and few.notes == straight.notes


def test_fields(seed_index, seed_papers):
    assert names(seed_index.search("name:UniSparse")) == ["UniSparse"]
    assert seed_index.search("venue:icml", limit=50).total == len(seed_papers)
    title_hits = seed_index.search("title:framework", limit=50).hits
    assert title_hits and all("framework" in h.paper.title.lower() for h in title_hits)
    anywhere = ids(seed_index.search("framework", limit=50))
    assert {h.paper.id for h in title_hits} < anywhere


@pytest.mark.parametrize("text", ["IT", "?", "the of", "NOT the", "-sparse", "NOT sparse"])
def test_queries_with_nothing_to_search_explain(seed_index, text):
    with pytest.raises(QueryError) as err:
        seed_index.search(text)
    assert err.value.message and err.value.example


@pytest.mark.parametrize("text", ["C++", "O(log n)", "稀疏注意力机制", "GPT-4o", "e.g.", "50%"])
def test_odd_queries_run(seed_index, text):
    page = seed_index.search(text)
    assert page.total >= 0


@pytest.mark.parametrize(
    "text",
    [
        "NOT NOT steganography",
        "x ANDNOT ANDNOT steganography",
        "(" * 200 + "steganography",
        "*steganography",
        "nosuch:steganography",
        "steganography)",
        '"steganography',
    ],
)
def test_prose_and_broken_syntax_still_find_the_paper(seed_index, text):
    assert names(seed_index.search(text), 1) == ["KIStego"]


@pytest.mark.parametrize("text", ["*", "(((", '"', "title:", ""])
def test_bad_queries_raise_query_error(seed_index, text):
    with pytest.raises(QueryError) as err:
        seed_index.search(text)
    assert err.value.example


@pytest.mark.parametrize("text,starts", [("zqx*", '"zqx"'), ("zqx* qqv* the", '"zqx", "qqv"')])
def test_a_prefix_no_word_begins_with_says_so(seed_index, text, starts):
    with pytest.raises(QueryError) as err:
        seed_index.search(text)
    assert err.value.message == f"No word in the papers begins with {starts}; try a different start."


def test_prefix_search(seed_index):
    page = seed_index.search("steganograph*")
    assert names(page, 1) == ["KIStego"]


def test_long_query_is_cut_with_a_note(seed_index):
    page = seed_index.search("sparse attention " * 300)
    assert len(page.query) <= 4000 and page.notes
    assert names(page, 1) == ["UniSparse"]


def test_snippets_mark_matches(seed_index):
    hit = seed_index.search("sparse attention").hits[0]
    assert "*sparse*" in hit.snippet.lower() and "*attention*" in hit.snippet.lower()
    assert len(hit.snippet) <= 260
    assert "<b" not in hit.snippet and "&lt;" not in hit.snippet


def test_similar_to_unisparse_is_about_long_context_efficiency(seed_index, seed_papers):
    uni = seed_index.by_name("UniSparse")[0]
    hits = seed_index.similar(uni.id, limit=5)
    assert uni.id not in {h.paper.id for h in hits}
    # KV cache / quadratic attention (AccordionThinking), token compression of
    # long audio-visual input by attention (PRIM), limited context windows
    # (MemOCR), attention-head pruning for efficiency (ToaSt).
    assert hits[0].paper.name in {"AccordionThinking", "PRIM", "MemOCR", "ToaSt"}
    assert len(hits) == 5 and hits[0].score >= hits[-1].score


def test_resolve_on_seeds(seed_index):
    uni = seed_index.by_name("UniSparse")[0]
    assert seed_index.resolve("unisparse") == (uni, [])
    assert seed_index.resolve(uni.id.upper()) == (uni, [])
    assert seed_index.resolve("sparse attention")[0] == uni
    assert seed_index.resolve("random forests") == (None, [])
    assert seed_index.resolve("?") == (None, [])


def test_word_order_never_empties_the_results(seed_index):
    # "differential privacy" is read as one unit (the corpus defines DP); when the
    # unit leaves nothing, the words are searched one by one, as in the other order.
    a = seed_index.search("differential privacy -synthetic", limit=50)
    b = seed_index.search("privacy differential -synthetic", limit=50)
    assert a.total > 0 and ids(a) == ids(b)
