"""Issue 18 on a small real-data-shaped index: operators only where meant, capitals,
IT/US as acronyms (never "its"), counts, spelling by the whole query, DOIs and ids."""

from __future__ import annotations

import json

import pytest

from bot.core.replies import ResultsReply
from bot.render import ACTION_PAGE_INSTEAD, counts, render
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
    message = render(ResultsReply(page=page))  # one click runs the hint, as typed
    (run,) = [e for b in message.blocks if b["type"] == "actions" for e in b["elements"]]
    assert run["text"]["text"] == "Search “band”" and run["action_id"] == ACTION_PAGE_INSTEAD
    assert json.loads(run["value"]) == {"q": "band", "o": 0, "exact": 1}


def test_a_mention_in_a_sentence_searches_its_topic_not_its_chatter(spelled):
    words = spelled.mentioned("can someone find that paper on sparce atention with the blocks?").words
    assert words == "sparce atention blocks"  # "paper", "find" and "someone" are no topic
    assert spelled.search(words).corrected_query == "sparse attention blocks"
    assert spelled.mentioned("hello world").words == "hello world"  # one word left: as typed
    assert spelled.mentioned("any papers on IT operations in the US?").words == "IT operations US"


def test_real_words_and_capitals_stay_untouched(spelled):
    assert spelled.search("spare attention").corrected_query is None  # "spare" is English
    assert spelled.search("SPARCE attention").corrected_query is None  # an acronym among lower-case words


# --- a paper's own identifiers (issue 18.4) ---------------------------------------------------

IDENTIFIED = [
    paper(
        "2503.11787", "Cross-planar learning for anisotropic resolution.", title="ECLARE", doi="10.5555/QEC.2024.0042"
    ),
    paper(
        "2503.16428", "Block sparse attention with antidiagonal scoring.", title="XAttention", source_id="2503.16428"
    ),
    paper("Xq7pL2mN9a", "A note whose OpenReview id has capitals.", title="OpenReview Note", source_id="Xq7pL2mN9a"),
    paper("p1", "Papers about https and org charts in companies.", title="Org charts"),
]


@pytest.fixture(scope="module")
def identified(tmp_path_factory) -> SearchIndex:
    return _built(tmp_path_factory, IDENTIFIED)


#: One DOI as people paste it: a link, the old host, the doi: prefix, bare, in Slack's markup.
DOI_FORMS = "https://doi.org/10.5555/qec.2024.0042 | http://dx.doi.org/10.5555/QEC.2024.0042"
DOI_FORMS += " | doi:10.5555/qec.2024.0042 | 10.5555/QEC.2024.0042"
DOI_FORMS += " | see <https://doi.org/10.5555/qec.2024.0042#the paper>, please"


@pytest.mark.parametrize("text", [form.strip().replace("#", "|") for form in DOI_FORMS.split(" | ")])
def test_a_doi_in_any_form_finds_its_paper_first(identified, text):
    assert ids(identified.search(text))[0] == "2503.11787"
    assert identified.resolve(text)[0].id == "2503.11787"
    assert identified.mentioned(text).paper.id == "2503.11787"
    assert ids(identified.related(text))[0] == "2503.11787"


def test_arxiv_doi_names_the_arxiv_paper(identified):
    assert ids(identified.search("10.48550/arXiv.2503.16428")) == ["2503.16428"]


def test_a_bare_arxiv_id_counts_as_its_paper(identified):
    page = identified.search("2503.16428")
    assert ids(page) == ["2503.16428"] and page.all_words == page.total == 1
    assert counts.headline(page, "“2503.16428”") == "*1 paper* matches “2503.16428”"


def test_a_link_naming_no_paper_is_not_searched_as_its_host(identified):
    with pytest.raises(Exception, match="names no paper"):
        identified.search("https://www.example.org/paper/12")
    page = identified.search("https://doi.org/10.9999/none charts")
    assert ids(page) == ["p1"]  # "charts", not "https", "doi", "org"
    assert any("names no paper" in n for n in page.notes)


def test_openreview_ids_keep_their_case_and_match_any_case(identified):
    assert identified.get("xq7pl2mn9a").id == "Xq7pL2mN9a"
    assert ids(identified.search("https://openreview.net/forum?id=Xq7pL2mN9a")) == ["Xq7pL2mN9a"]


def test_an_index_built_before_dois_says_to_rebuild(tmp_path):
    import shutil
    from pathlib import Path

    old = tmp_path / "before"
    shutil.copytree(Path(__file__).parent / "index" / "fixtures" / "index_before_split", old)
    index = SearchIndex(old)
    with pytest.raises(Exception, match="rebuild it with `paperbot index build`"):
        index.search("https://doi.org/10.5555/qec.2024.0042")
    assert index.search("sparse attention").total  # the old index keeps working


# --- counts a researcher can use (issue 18.3) -------------------------------------------------


def test_a_short_query_counts_the_papers_with_all_its_words_and_ranks_them_first(index):
    page = index.search("serial parallel")
    assert (page.all_words, page.total) == (1, 2)  # a1 has both, a2 only "parallel"
    assert ids(page) == ["a1", "a2"]
    assert counts.divider_at(page) == 1
    assert counts.plain_count(page) == "1 with all the words, 1 with some"
    assert "*1 paper* with all of" in counts.headline(page, "“serial parallel”")


def test_a_pasted_text_has_no_count_but_best_matches(index):
    text = "We compare serial adders and parallel prefix adders for arithmetic, with an analysis of carry chains"
    page = index.search(text)
    assert page.all_words is None and page.total >= 2
    assert counts.headline(page, "“…”").startswith("*Best matches*")
    assert counts.divider_at(page) is None
    assert index.related(text).all_words is None


def test_a_quoted_phrase_counts_the_papers_with_the_phrase(index):
    page = index.search('"parallel prefix"')
    assert page.all_words == 1 and ids(page)[0] == "a2"


def test_a_rare_spelling_beside_an_unknown_word_is_chosen_by_the_pair_too(tmp_path_factory):
    # "sparce" is a known, rare spelling (1 paper); "sparse" is 20x as common, "space" more common still
    papers = [paper(f"r{i}", f"Space of states {i}: attention to cost.", title=f"Space {i}") for i in range(45)]
    papers += [paper(f"t{i}", f"Sparse attention kernels, variant {i}.", title=f"Sparse {i}") for i in range(22)]
    papers.append(paper("u1", "Sparce grids for quadrature.", title="Grids"))
    index = _built(tmp_path_factory, papers)
    assert index.search("sparce atention").corrected_query == "sparse attention"
