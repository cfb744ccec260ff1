"""A typed word is a word of the text, a name or an acronym (docs/search.md
"Words, names and acronyms"; bot/search/query/word_readings.py), on a small real index."""

from __future__ import annotations

import pytest

from bot.search import SearchIndex, build_index
from bot.search.query.lexicon import Lexicon
from bot.search.query.spelling import completion, suggest
from bot.search.scoring.knobs import DEFAULT
from tests.search.searchkit import paper

PAPERS = [
    paper(
        "att",
        "The Transformer uses attention only, and all you need is attention for translation.",
        title="Attention Is All You Need",
    ),
    paper(
        "tan",
        "Noise adversarial training makes image watermarks robust.",
        title="Invariant watermark learning",
        authors=("Abdullah All Tanvir",),
    ),
    paper(
        "all1",
        "Acute lymphoblastic leukemia (ALL) is a blood cancer; ALL cells need segmentation.",
        title="Segmenting ALL cells",
    ),
    paper("all2", "Acute lymphoblastic leukemia (ALL) detection with deep attention networks.", title="ALL detection"),
    paper("vit1", "Vision Transformers (ViT) split an image into patches; ViT models scale well.", title="Scaling ViT"),
    paper("vit2", "We prune ViT tokens for efficient vision transformers (ViT).", title="Token pruning for ViT"),
    paper("vit3", "A ViT backbone for ear verification.", title="Ear ViT"),
    paper("vit4", "A ViT for remote sensing segmentation.", title="Remote ViT"),
    paper("vok1", "Pragmatics of politeness in dialogue.", title="Politeness", authors=("Vít Novák",)),
    paper(
        "vok2", "Methane plume detection from satellites.", title="Methane plumes", authors=("Vít Dvořák", "Jan Novák")
    ),
    paper("dwarf", "Flares of M dwarfs observed for many nights.", title="M dwarf flares", authors=("Emily K. Pass",)),
    paper("code1", "We raise pass@k of code models by sampling; pass@k grows with k.", title="Pass@k for code"),
    paper("code2", "A reinforcement learning objective for pass@k.", title="Optimising pass@k"),
    paper("hin", "Capsule networks route parts to wholes.", title="Capsules", authors=("Geoffrey Hinton",)),
    paper(
        "find",
        "Forgery identification via noise disturbance finds edited regions.",
        title="FIND: forgery identification",
        name="FIND",
    ),
    paper(
        "sparse",
        "We find that sparse attention kernels speed up long-context models.",
        title="Sparse attention kernels",
    ),
    paper(
        "stego1", "Image steganography hides messages; steganographic capacity grows.", title="Steganography capacity"
    ),
    paper("stego2", "Steganography in text with language models.", title="Text steganography"),
    paper("astro1", "Primordial black holes and lensing transients.", title="Lensing", authors=("Stefano Profumo",)),
    paper(
        "astro2",
        "Dark matter annihilation in dwarf galaxies, after Stefano's bound.",
        title="Dark matter",
        authors=("Stefano Profumo", "Tim Linden"),
    ),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> SearchIndex:
    d = tmp_path_factory.mktemp("readings")
    build_index(d, PAPERS)
    return SearchIndex(d)


def ids(page) -> list[str]:
    return [h.paper.id for h in page.hits]


@pytest.mark.parametrize("text", ["Attention Is All You Need", "attention is all you need"])
def test_a_title_case_or_lower_case_word_is_not_an_acronym_or_an_author(index, text):
    got = ids(index.search(text))
    assert got[0] == "att"
    # "All" is neither the author Abdullah All Tanvir nor ALL (leukemia), which
    # match here only through the text's words "need" and "attention"
    assert "tan" not in got
    assert got.index("all1") > got.index("att")


def test_capitals_are_the_acronym_and_a_field_or_quotes_the_author(index):
    assert set(ids(index.search("ALL"))[:2]) == {"all1", "all2"}
    assert ids(index.search("author:All")) == ["tan"]
    assert "tan" in ids(index.search('"All"'))


def test_a_word_more_often_in_the_text_than_among_authors_is_text(index):
    got = ids(index.search("ViT"))
    assert set(got[:4]) == {"vit1", "vit2", "vit3", "vit4"}
    assert "vok1" not in got and "vok2" not in got
    assert ids(index.search("author:Vit")) == ["vok1", "vok2"]
    assert ids(index.search("pass@k"))[:2] in (["code1", "code2"], ["code2", "code1"])
    assert "dwarf" not in ids(index.search("pass@k"))


def test_a_name_still_matches_its_authors(index):
    assert ids(index.search("Hinton")) == ["hin"]
    assert ids(index.search("Stefano"))[:2] in (["astro1", "astro2"], ["astro2", "astro1"])


def test_an_english_word_in_lower_case_is_not_a_paper_name(index):
    assert ids(index.search("find sparse attention"))[0] == "sparse"
    assert ids(index.search("FIND"))[0] == "find"
    assert ids(index.search("name:find")) == ["find"]


def test_a_prefix_of_corpus_words_is_searched_as_the_prefix_not_a_name(index):
    page = index.search("stegano")
    assert page.corrected_query == "stegano*"
    assert set(ids(page)) == {"stego1", "stego2"}
    assert index.search("steganografy").corrected_query == "steganography"


def test_a_correction_never_targets_a_name():
    lex = Lexicon({"words": {"stefano": 3, "steganography": 1, "models": 5}})
    assert suggest(lex, "stegano", DEFAULT) == "stefano"  # the edit alone
    assert suggest(lex, "stegano", DEFAULT, names=lambda w: w == "stefano") is None
    assert completion(lex, "stegano", DEFAULT, None) == "stegano*"
    # a more common edit than every word the prefix begins wins
    assert completion(lex, "stegano", DEFAULT, "stefano") is None
    assert completion(lex, "modls", DEFAULT, "models") is None


def test_a_stop_word_in_title_case_is_not_the_acronym(tmp_path):
    build_index(
        tmp_path,
        [
            paper("it", "IT infrastructure for hospitals.", title="Hospital IT"),
            paper("x", "Infrastructure planning for cities.", title="Cities"),
        ],
    )
    idx = SearchIndex(tmp_path)
    assert ids(idx.search("IT infrastructure"))[0] == "it"
    # "It" is no searched word: the query is "infrastructure" alone
    plain, title_case = idx.search("infrastructure"), idx.search("It infrastructure")
    assert [(h.paper.id, h.score) for h in title_case.hits] == [(h.paper.id, h.score) for h in plain.hits]
