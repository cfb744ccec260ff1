"""Sentence splitting over clean abstract text; the acronym rules live in the
leaf ``bot.core.acronyms`` (shared with the search package) and are re-exported here.

Pure Python, regex-based and cheap enough for 100,000 abstracts.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from bot.core.acronyms import acronym_spans, acronyms

__all__ = ["sentence_spans", "sentences", "Doc", "acronym_spans", "acronyms"]

#: Words ending in "." that do not end a sentence ("e.g.", "et al.", "Dr. Kernel").
_ABBREVIATIONS = """e.g i.e vs cf al fig figs eq eqs sec ref refs tab dr mr mrs ms prof st no
    approx resp inc ltd jr incl est viz phys rev lett comm proc conf vol pp eds astrophys""".split()
_BY_LENGTH: dict[int, set[str]] = {}
for _a in _ABBREVIATIONS:
    for _form in (_a, _a.capitalize()):
        _BY_LENGTH.setdefault(len(_form), set()).add(re.escape(_form))
#: One look-behind per abbreviation length ("(?<!\b(?:vs|cf|al…)\.)"): fixed width each.
_NOT_AFTER = "".join(f"(?<!\\b(?:{'|'.join(sorted(forms))})\\.)" for forms in _BY_LENGTH.values())
#: A sentence end. The look-ahead (space, then a capital/digit/opening mark) is tested
#: first, the abbreviation look-behinds only at those few places — the scan stays in C.
_BOUNDARY = re.compile(r"[.!?](?=[\"”’)\]]?\s+[A-Z0-9\"“(\[])" + _NOT_AFTER + r"[\"”’)\]]?(\s+)")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries in clean text, as ``(start, end)`` offsets.

    A boundary is ``.``, ``!`` or ``?`` (optionally followed by a closing
    quote or bracket), whitespace, then an uppercase letter, digit, opening
    quote or bracket — unless the word before the period is an abbreviation
    ("e.g.", "et al.", "Fig.", "Dr.") or an initial inside a name: a single
    capital after a capitalised word and before one ("the Karl G. Jansky Very
    Large Array", "the Vera C. Rubin Observatory"), the next word not a
    sentence opener such as "We" or "The" (``_OPENERS``). Any other single
    letter ("We propose X. It beats …") ends a sentence.

    Args:
        text: one abstract, whitespace-normalised (no leading/trailing space).

    Returns:
        ``[(start, end), …]`` covering the text in order, each sentence's
        trailing space excluded; ``[]`` for empty text.
    """
    out: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if _initial(text, m.start(), m.end()):
            continue
        out.append((start, m.start(1)))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


#: Words that open a sentence after a single capital ("… model X. We …"): the period ends it.
_OPENERS = frozenset(
    """we the this these those our it its in on for to by with a an as at from however here
    finally moreover furthermore additionally such both each all most many some when while
    although thus therefore unlike using they their there experiments results code""".split()
)
_PREVIOUS_WORD = re.compile(r"(\S+) $")


def _initial(text: str, period: int, after: int) -> bool:
    """True when the period at ``period`` follows an initial inside a name ("Karl G. Jansky"):
    a lone capital after a capitalised word, the next word (from ``after``) capitalised
    and not in ``_OPENERS``."""
    if period < 3 or not text[period - 1].isupper() or text[period - 2] != " ":
        return False
    before = _PREVIOUS_WORD.search(text, max(0, period - 40), period - 1)
    if before is None or not before.group(1)[:1].isupper():
        return False
    nxt = text[after : after + 30].split(" ", 1)[0]
    return nxt[:1].isupper() and nxt.lower().strip(".,;:") not in _OPENERS


def sentences(text: str) -> list[str]:
    """Split clean text into sentences (rules: ``sentence_spans``).

    Args:
        text: one abstract, whitespace-normalised.

    Returns:
        The sentences, stripped, in order; ``[]`` for empty text.
    """
    return [text[a:b].strip() for a, b in sentence_spans(text) if text[a:b].strip()]


class Doc:
    """One clean abstract with its sentences, shared by the derive steps.

    Attributes:
        text: the clean text.
        lower: ``text.lower()``.
        spans: ``sentence_spans(text)``.
        starts: each span's start offset (for ``bisect``).
        sents: the sentence strings.
    """

    __slots__ = ("text", "lower", "spans", "starts", "sents")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = text.lower()
        self.spans = sentence_spans(text)
        self.starts = [a for a, _ in self.spans]
        self.sents = [text[a:b] for a, b in self.spans]

    def index_of(self, offset: int) -> int:
        """Index of the sentence containing character ``offset``."""
        return max(0, bisect_right(self.starts, offset) - 1)
