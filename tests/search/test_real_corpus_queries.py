"""Issue 18 on a small real-data-shaped index: operators only where meant, capitals,
IT/US as acronyms (never "its"), counts, spelling by the whole query, DOIs and ids."""

from __future__ import annotations

import pytest

from bot.search import SearchIndex, build_index
from bot.search.query.parser import parse
from bot.search.query.prose import mostly_capitals
from tests.search.searchkit import paper

CORPUS = [
    paper("a1", "Serial adders and parallel adders compared: an analysis of carry chains.", title="Serial Adders"),
    paper("a2", "Parallel prefix adders for fast arithmetic.", title="Parallel Prefix Adders"),
    paper("a3", "Diffusion models for image generation without any captions.", title="Image Diffusion"),
    paper("a4", "Text to image diffusion models conditioned on text prompts.", title="Text Diffusion"),
    paper("a5", "AIOps: anomaly detection for IT operations in large data centres.", title="AIOps for IT Operations"),
    paper("a6", "A model and its operations on graphs; its cost is linear.", title="Graph Operations"),
]


def _built(tmp_path_factory, papers) -> SearchIndex:
    d = tmp_path_factory.mktemp("real") / "index"
    build_index(d, papers, fingerprint="fp-real")
    return SearchIndex(d)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> SearchIndex:
    return _built(tmp_path_factory, CORPUS)


def ids(page) -> list[str]:
    return [h.paper.id for h in page.hits]


@pytest.mark.parametrize(
    ("text", "shouting"),
    [
        ("ANALYSIS OF SERIAL AND PARALLEL ADDERS", True),
        ("Agreement Between SYRIA AND IRAQ ON OIL", True),
        ("diffusion AND NOT text", False),
        ("IT operations", False),
        ("LLM RAG", False),  # two capital words are acronyms, not shouting
        ("IT", False),
    ],
)
def test_mostly_capitals(text, shouting):
    assert mostly_capitals(text) is shouting


def test_operators_in_capitals_are_words_and_in_mixed_case_operators():
    shouted = parse("ANALYSIS OF SERIAL AND PARALLEL ADDERS")
    assert {c.occur for c in shouted.clauses} == {"should"}
    mixed = parse("serial AND parallel")
    assert [c.occur for c in mixed.clauses] == ["must", "must"]


@pytest.mark.parametrize(
    "text", ["diffusion AND NOT text", "diffusion NOT text", "diffusion -text", "diffusion OR NOT text"]
)
def test_and_not_means_not(text):
    assert [(c.text, c.occur) for c in parse(text).clauses] == [("diffusion", "should"), ("text", "not")]


def test_and_not_excludes_on_an_index(index):
    for text in ("diffusion AND NOT text", "diffusion NOT text", "diffusion -text"):
        assert ids(index.search(text)) == ["a3"], text


def test_a_title_in_capitals_finds_its_paper(index):
    page = index.search("ANALYSIS OF SERIAL AND PARALLEL ADDERS")
    assert ids(page)[0] == "a1"
    assert page.total == 2  # read as words: not a conjunction of its halves (0 papers)


def test_it_in_capitals_is_an_acronym_that_never_matches_its(index):
    assert ids(index.search("IT operations"))[0] == "a5"
    assert ids(index.search("IT")) == ["a5"]  # not a6, whose "its" stems to "it"
    with pytest.raises(Exception, match="very common words"):
        index.search("it")  # the stop word in lower case
    shouted = index.search("IT OPERATIONS ON GRAPHS")  # a title in capitals: IT is the stop word
    assert ids(shouted)[0] == "a6"


# --- spelling by the whole query (issue 18.1) -------------------------------------------------

#: "space" in 4 papers, with "attention" in all 4 (never side by side); "sparse attention" in 2
SPELLING = [
    paper(f"s{i}", abstract, title=title)
    for i, (title, abstract) in enumerate(
        [
            ("State Space Models", "State space models replace attention in long sequences."),
            ("Latent Space Attention Maps", "A latent space for attention maps in vision transformers."),
            ("Solution Space", "Space of solutions: attention to detail in planning."),
            ("Embedding Space", "Embedding space geometry and attention heads."),
            ("Sparse Attention Kernels", "Sparse attention kernels for long context inference."),
            ("Block Sparse Attention", "Block sparse attention with learned patterns."),
            ("Band Gaps", "The band gap of layered crystals."),
            ("Bank Loans", "Bank loans and credit risk."),
        ],
        1,
    )
]


@pytest.fixture(scope="module")
def spelled(tmp_path_factory) -> SearchIndex:
    return _built(tmp_path_factory, SPELLING)


def test_a_typo_is_corrected_to_the_word_that_fits_the_others(spelled):
    page = spelled.search("sparce atention")
    assert page.corrected_query == "sparse attention"  # "space" is in more papers, and with "attention" in 4
    assert sorted(ids(page)[:2]) == ["s5", "s6"]


def test_a_typo_alone_takes_the_clearly_more_frequent_word(spelled):
    assert spelled.search("sparce").corrected_query == "space"  # 4 papers against 2


def test_no_clearly_better_candidate_is_only_a_hint(spelled):
    page = spelled.search("banf")  # "band" and "bank": one paper each
    assert page.corrected_query is None
    assert page.suggestion == "band"
    assert page.total == 0


def test_real_words_and_capitals_stay_untouched(spelled):
    assert spelled.search("spare attention").corrected_query is None  # "spare" is English
    assert spelled.search("SPARCE attention").corrected_query is None  # an acronym among lower-case words
