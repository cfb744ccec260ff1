"""Sentence splitting and acronym definitions over clean abstract text.

Pure Python, regex-based and cheap enough for 100,000 abstracts.
"""
from __future__ import annotations

import re
from bisect import bisect_right

#: Words ending in "." that do not end a sentence ("e.g.", "et al.", "Dr. Kernel").
_ABBREVIATIONS = """e.g i.e vs cf al fig figs eq eqs sec ref refs tab dr mr mrs ms prof st no
    approx resp inc ltd jr incl est viz""".split()
_BY_LENGTH: dict[int, set[str]] = {}
for _a in _ABBREVIATIONS:
    for _form in (_a, _a.capitalize()):
        _BY_LENGTH.setdefault(len(_form), set()).add(re.escape(_form))
#: One look-behind per abbreviation length ("(?<!\b(?:vs|cf|al…)\.)"): fixed width each.
_NOT_AFTER = "".join(f"(?<!\\b(?:{'|'.join(sorted(forms))})\\.)" for forms in _BY_LENGTH.values())
#: A sentence end. The look-ahead (space, then a capital/digit/opening mark) is tested
#: first, the abbreviation look-behinds only at those few places — the scan stays in C.
_BOUNDARY = re.compile(r"[.!?](?=[\"”’)\]]?\s+[A-Z0-9\"“(\[])" + _NOT_AFTER
                       + r"[\"”’)\]]?(\s+)")
_PAREN = re.compile(r"\(([^()]{1,16})\)")
_ACRONYM = re.compile(r"^[A-Za-z][A-Za-z0-9&-]*$")
_WORDS = re.compile(r"[^\s()]+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries in clean text, as ``(start, end)`` offsets.

    A boundary is ``.``, ``!`` or ``?`` (optionally followed by a closing
    quote or bracket), whitespace, then an uppercase letter, digit, opening
    quote or bracket — unless the word before the period is an abbreviation
    ("e.g.", "et al.", "Fig.", "Dr."). A single letter ("We propose X.") does
    end a sentence: abstracts rarely hold initials.

    Args:
        text: one abstract, whitespace-normalised (no leading/trailing space).

    Returns:
        ``[(start, end), …]`` covering the text in order, each sentence's
        trailing space excluded; ``[]`` for empty text.
    """
    out: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        out.append((start, m.start(1)))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


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


def _is_acronym(token: str) -> bool:
    return (2 <= len(token) <= 12 and bool(_ACRONYM.match(token))
            and sum(c.isupper() for c in token) >= 2)


def _long_form(acronym: str, words: list[str]) -> list[str] | None:
    """Schwartz & Hearst (2003) matching: the shortest word suffix whose letters spell the acronym.

    Letters are matched right to left; the acronym's first letter must begin
    a word (a hyphen part counts as a word: "Mixture-of-Experts").
    """
    letters = [c.lower() for c in acronym if c.isalnum()]
    text = " ".join(words)
    low = text.lower()
    t = len(text)  # search end (exclusive)
    for idx in range(len(letters) - 1, -1, -1):
        t = low.rfind(letters[idx], 0, t)
        while idx == 0 and t > 0 and text[t - 1].isalnum():
            t = low.rfind(letters[idx], 0, t)
        if t < 0:
            return None
    t -= 1
    start = text.rfind(" ", 0, t + 1) + 1
    used = text[start:].split()
    return used if len(used) <= min(len(letters) + 5, 2 * len(letters)) else None


def acronym_spans(text: str, min_uses: int = 1) -> list[tuple[str, str]]:
    """Acronym definitions "Long Form (LF)" with their surface forms.

    Args:
        text: clean text, e.g. ``"Mixture-of-Experts (MoE) models …"``.
        min_uses: skip acronyms occurring fewer times in ``text`` (as a
            substring, the definition included) — a cheap pre-filter.

    Returns:
        ``[(acronym, long form), …]`` as written, in order of first
        definition: ``[("MoE", "Mixture-of-Experts")]``. An acronym is one
        token of 2–12 characters with at least two capitals ("LLMs",
        "FG-TTL", "sFP"). Rule: Schwartz & Hearst, "A simple algorithm for
        identifying abbreviation definitions in biomedical text", PSB 2003.
    """
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    if "(" not in text:
        return out
    for m in _PAREN.finditer(text):
        token = m.group(1).strip()
        if not _is_acronym(token) or token.lower() in seen:
            continue
        if min_uses > 1 and text.count(token) < min_uses:
            continue
        before = _WORDS.findall(text, max(0, m.start() - 160), m.start())[-(len(token) * 2 + 2):]
        words = _long_form(token, before)
        if not words:
            continue
        long_form = " ".join(words).strip(" ,;:\"'“”")
        if long_form and long_form.lower() != token.lower():
            seen.add(token.lower())
            out.append((token, long_form))
    return out


def acronyms(text: str) -> list[tuple[str, str]]:
    """Acronym definitions in ``text``, normalised for query expansion.

    Args:
        text: clean text, e.g. ``"Mixture-of-Experts (MoE) models …"``.

    Returns:
        ``[(acronym, expansion), …]`` in order of first definition, both
        lowercase, hyphens in the expansion read as spaces:
        ``[("moe", "mixture of experts")]``. Plurals stay as written
        (``("llms", "large language models")``). See ``acronym_spans``.
    """
    return [(token.lower(), " ".join(long_form.replace("-", " ").split()).lower())
            for token, long_form in acronym_spans(text)]
