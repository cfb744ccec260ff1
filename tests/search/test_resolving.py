"""Which paper a text names (bot/search/resolving.py) on a small real index:
links and source ids in every form, English-word method names, link parts."""

import pytest

from bot.search import SearchIndex, build_index
from tests.search.searchkit import paper

PAPERS = [
    paper(
        "a1",
        "We gate attention heads to reduce hallucination in language models.",
        title="HAVE: Head-Adaptive Gating",
        name="HAVE",
        source_id="2503.13360",
    ),
    paper(
        "a2",
        "Continual fine-tuning that keeps earlier skills.",
        title="SEE: Continual Tuning",
        name="SEE",
        source_id="2504.16082",
    ),
    paper("a3", "A tool that finds duplicated code in large repositories.", title="FIND: a search tool", name="FIND"),
    paper("a4", "Docker-based execution of deep bidirectional transformers.", title="DEEP: Docker runs", name="DEEP"),
    paper("a5", "Automata-guided beam search for constrained generation.", title="ABS: Beam Search", name="ABS"),
    paper("a6", "Post-hoc anomaly detection for time series blog posts.", title="POST: Anomalies", name="POST"),
    paper(
        "a7",
        "Image steganography with keys and sparse attention.",
        title="Keyed stego",
        name="KIStego",
        source_id="AbC123xyz",
    ),
    paper("a8", "Sparse attention kernels for long context transformers.", title="Sparse attention kernels"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> SearchIndex:
    d = tmp_path_factory.mktemp("resolving")
    build_index(d, PAPERS, fingerprint="resolving")
    return SearchIndex(d)


@pytest.mark.parametrize(
    "text",
    [
        "2503.13360",
        "2503.13360v2",
        "arXiv:2503.13360",
        "https://arxiv.org/abs/2503.13360v2",
        "https://arxiv.org/pdf/2503.13360",
        "https://arxiv.org/pdf/2503.13360v1.pdf",
        "arxiv.org/abs/2503.13360",
        "<https://arxiv.org/abs/2503.13360|arxiv.org/abs/2503.13360>",
        "have you read 2503.13360?",
        "see 2503.13360",
        "check out https://arxiv.org/abs/2503.13360 it's great",
    ],
)
def test_a_papers_id_or_link_in_any_form_is_that_paper(index, text):
    assert index.mentioned(text).paper.id == "a1", text
    assert index.resolve(text) == (index.get("a1"), []), text


def test_an_openreview_link_and_two_links(index):
    assert index.resolve("https://openreview.net/forum?id=AbC123xyz")[0].name == "KIStego"
    paper, several = index.resolve("2503.13360 or 2504.16082?")
    assert paper is None and [p.id for p in several] == ["a1", "a2"]
    assert [p.id for p in index.mentioned("2504.16082 vs 2503.13360").choices] == ["a2", "a1"]


def test_a_link_to_no_paper_of_the_index_finds_nothing(index):
    assert index.resolve("https://arxiv.org/abs/2599.00001") == (None, [])
    meant = index.mentioned("https://www.example.com/blog/post")
    assert meant.paper is None and meant.choices == () and meant.words == ""  # never POST
    assert index.mentioned("https://arxiv.org/abs/2599.00001").paper is None  # never ABS


@pytest.mark.parametrize(
    "text",
    [
        "have you read it?",
        "see this",
        "what's a good paper on sparse attention",
        "can you find papers about sparse attention",
        "BERT: Pre-training of Deep Bidirectional Transformers",
        "look at https://example.com/abs/post",
    ],
)
def test_english_words_are_not_method_names_unless_written_as_the_name(index, text):
    assert index.mentioned(text).paper is None, text


def test_a_name_as_written_or_not_english_or_alone_matches(index):
    assert index.mentioned("what about HAVE?").paper.name == "HAVE"
    assert index.mentioned("is SEE any good").paper.name == "SEE"
    assert index.mentioned("what do you think of kistego?").paper.name == "KIStego"  # not English
    assert index.mentioned("find").paper.name == "FIND"  # the whole text
    assert index.resolve("deep") == (index.get("a4"), [])
    assert index.mentioned("see https://example.com/x").words == "see"


def test_search_boosts_an_english_name_only_as_written(index):
    top = index.search("can you find papers about sparse attention").hits[0].paper
    assert top.name != "FIND"
    assert index.search("FIND duplicated code").hits[0].paper.name == "FIND"
    deep = index.search("BERT: Pre-training of Deep Bidirectional Transformers").hits
    assert deep[0].score < index.search("DEEP bidirectional transformers").hits[0].score
    assert index.search("name:find").hits[0].paper.name == "FIND"  # a field: always names
