"""Derived TL;DRs open without a dangling connective and keywords are noun phrases
(issue 12 point 4) — the rules on examples, then on all 38 seeds, against the
committed lists in ``bot/corpus/wordlists.py`` and the stop words of
``bot/corpus/keywords.py``."""

from __future__ import annotations

import re

import pytest

from bot.corpus.keywords import _STOP
from bot.corpus.wordlists import CONNECTIVES, VERBS, is_noun_phrase, strip_connective


@pytest.mark.parametrize(
    "text, expected",
    [
        ("To address these limitations, we present UniSparse.", "We present UniSparse."),
        ("Together, these components form ACTG-ARL.", "These components form ACTG-ARL."),
        ("However, in this work, we study GLU.", "We study GLU."),
        ("Motivated by this theory, we propose ETE.", "We propose ETE."),
        ("By analyzing multiple models, we find X.", "By analyzing multiple models, we find X."),
        (
            "To achieve a trade-off between cost and quality, we route.",
            "To achieve a trade-off between cost and quality, we route.",
        ),
        ("These components form our algorithm, which works.", "These components form our algorithm, which works."),
    ],
)
def test_strip_connective(text: str, expected: str) -> None:
    assert strip_connective(text) == expected


@pytest.mark.parametrize(
    "phrase, noun",
    [
        ("let OPT", False),
        ("compromise efficiency", False),
        ("embeds complex secrets", False),
        ("depth affects loss", False),
        ("experience guided", False),
        ("Previous theoretical", False),
        ("compressing auxiliary details", False),
        ("sub-problems vary", False),
        ("sparse attention", True),
        ("learning rates", True),
        ("scaling laws", True),
        ("learned representations", True),
        ("answer position", True),
        ("training instability", True),
    ],
)
def test_is_noun_phrase(phrase: str, noun: bool) -> None:
    assert is_noun_phrase(phrase.split()) is noun


def test_no_seed_tldr_opens_with_a_dangling_connective(seed_corpus) -> None:
    assert len(seed_corpus) == 38
    for paper in seed_corpus:
        lead = paper.tldr.split(",", 1)[0].strip().lower()
        assert lead not in CONNECTIVES, (paper.id, paper.tldr[:80])
        assert not re.match(r"^[^,]*\b(?:this|these|such|those)\b[^,]*,\s+we\b", paper.tldr, re.I), (
            paper.id,
            paper.tldr[:80],
        )
        assert paper.tldr[:1].isupper(), (paper.id, paper.tldr[:40])


def test_every_seed_keyword_is_a_noun_phrase(seed_corpus) -> None:
    for paper in seed_corpus:
        assert len(paper.keywords) >= 3, paper.id
        for phrase in paper.keywords:
            words = re.sub(r"\s*\([^)]*\)$", "", phrase).split()  # "Long Form (LF)" → "Long Form"
            assert is_noun_phrase(words), (paper.id, phrase)
            assert words[0].lower() not in _STOP and words[-1].lower() not in _STOP, (paper.id, phrase)
            assert words[0].lower() not in VERBS, (paper.id, phrase)
