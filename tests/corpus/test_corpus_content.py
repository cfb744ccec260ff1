"""Content of titled papers (issue 18 point 6): the TL;DR never repeats the abstract's
first sentence, keywords are noun phrases, sentences do not end at an initial; and the
Details card does not repeat an extractive TL;DR above its abstract."""

from __future__ import annotations

import pytest

from bot.core.models import Paper
from bot.corpus import keywords, sentences
from bot.corpus.derive import contribution_index, tldr
from bot.corpus.keywords import title_keywords
from bot.corpus.sentences import Doc
from bot.corpus.wordlists import can_be_noun, is_noun_keyword
from bot.render.blocks import paper_blocks


def test_an_initial_inside_a_name_ends_no_sentence():
    text = (
        "We present images from the Karl G. Jansky Very Large Array. The Vera C. Rubin Observatory "
        "will see them. We propose X. It beats Y. Using Model Z. We go on."
    )
    assert sentences(text) == [
        "We present images from the Karl G. Jansky Very Large Array.",
        "The Vera C. Rubin Observatory will see them.",
        "We propose X.",
        "It beats Y.",
        "Using Model Z.",
        "We go on.",
    ]


def _tldr(text: str) -> str:
    doc = Doc(text)
    return tldr(doc, contribution_index(doc))


@pytest.mark.parametrize(
    "abstract,expected",
    [
        (  # the contribution is the first sentence: the result says what is new
            "We introduce KAG-Thinker, a reasoning framework built upon a small model. It is trained on "
            "logical forms. Experiments show that KAG-Thinker outperforms strong baselines by 4.5%.",
            "Experiments show that KAG-Thinker outperforms strong baselines by 4.5%.",
        ),
        (  # no "we propose" sentence: a later sentence about the work, not the background
            "Camouflaged object segmentation presents unique challenges. Prior work ignores texture. "
            "This paper describes a texture-aware decoder for camouflaged objects.",
            "This paper describes a texture-aware decoder for camouflaged objects.",
        ),
        (  # nothing about the work and no result: the object restated, not the sentence
            "We introduce KAG-Thinker, a novel human-like reasoning framework built upon a parameter-light "
            "large language model. Reasoning is hard.",
            "KAG-Thinker, a human-like reasoning framework built upon a parameter-light large language model.",
        ),
        ("A single sentence about sparse attention.", ""),
    ],
)
def test_the_tldr_never_repeats_the_first_sentence(abstract: str, expected: str) -> None:
    got = _tldr(abstract)
    assert got == expected
    assert got != sentences(abstract)[0]


@pytest.mark.parametrize(
    "word", ["dynamic", "comprehensive", "collected", "Modular", "token-level", "QKV-based", "publicly"]
)
def test_a_lone_adjective_verb_or_adverb_is_no_keyword(word: str) -> None:
    assert not can_be_noun(word)
    assert not is_noun_keyword([word])


@pytest.mark.parametrize("word", ["static", "final", "external", "human"])
def test_a_lone_word_that_is_also_an_adjective_is_no_keyword(word: str) -> None:
    assert can_be_noun(word)  # it may end a phrase ("digital human")
    assert not is_noun_keyword([word]) and is_noun_keyword(["digital", word])


def test_a_leading_verb_in_ing_leaves_a_title_phrase():
    got = title_keywords("Evaluating Vision-Language Models on Maps", "Vision-Language Models read maps. Maps vary.")
    assert "Vision-Language Models" in got and not any(k.startswith("Evaluating") for k in got)


@pytest.mark.parametrize("word", ["claim", "codebook", "runtime", "RetCoP", "Reasoning", "YVO4"])
def test_nouns_names_and_gerunds_are_keywords(word: str) -> None:
    assert is_noun_keyword([word])


def test_title_keywords_are_noun_phrases():
    title = "A Modular Framework for Dynamic Graphs: Direct and Comprehensive Evaluation"
    text = (
        "Dynamic graphs change. We evaluate dynamic graphs with a direct, comprehensive protocol. "
        "Direct evaluation is modular; modular code is direct and comprehensive. Graphs are collected."
    )
    got = title_keywords(title, text)
    assert "Dynamic Graphs" in got
    for k in got:
        assert is_noun_keyword(k.split()), (k, got)
    assert not {"Modular", "Direct", "Comprehensive", "dynamic", "collected"} & set(got)
    assert all(is_noun_keyword(k.split()) for k in keywords(text))


def test_the_details_card_bolds_an_extractive_tldr_instead_of_repeating_it():
    abstract = "Background first. Here, we propose X, a sparse kernel. It beats Y by 5%. The end."
    paper = Paper(id="p1", title="T", abstract=abstract, tldr="We propose X, a sparse kernel. It beats Y by 5%.")
    texts = [b["text"]["text"] for b in paper_blocks(paper) if b["type"] == "section"]
    assert not any(t.startswith("*TL;DR*") for t in texts)
    assert texts == ["Background first. Here, *we propose X, a sparse kernel. It beats Y by 5%.* The end."]
    # a source's own TL;DR (not in the abstract) stays above it; a card without the abstract keeps it
    given = Paper(id="p2", title="T", abstract=abstract, tldr="A kernel for sparse attention.")
    assert [b["text"]["text"] for b in paper_blocks(given) if b["type"] == "section"][0].startswith("*TL;DR* A kernel")
    no_abstract = paper_blocks(paper, abstract=False)
    assert [b["text"]["text"] for b in no_abstract if b["type"] == "section"] == [f"*TL;DR* {paper.tldr}"]
