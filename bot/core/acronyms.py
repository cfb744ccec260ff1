"""Acronym definitions in clean text ("Mixture-of-Experts (MoE)" → ``("moe",
"mixture of experts")``): the one text rule both the corpus (keywords,
``bot.corpus``) and the search vocabulary (``bot.search.query.lexicon``) use.

Leaf module: standard library only, so search need not import the corpus
(docs/architecture.md "Layers"). Rule: Schwartz & Hearst, "A simple algorithm
for identifying abbreviation definitions in biomedical text", PSB 2003.
"""

from __future__ import annotations

import re

_PAREN = re.compile(r"\(([^()]{1,16})\)")
_ACRONYM = re.compile(r"^[A-Za-z][A-Za-z0-9&-]*$")
_WORDS = re.compile(r"[^\s()]+")


def _is_acronym(token: str) -> bool:
    return 2 <= len(token) <= 12 and bool(_ACRONYM.match(token)) and sum(c.isupper() for c in token) >= 2


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
        before = _WORDS.findall(text, max(0, m.start() - 160), m.start())[-(len(token) * 2 + 2) :]
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
    return [
        (token.lower(), " ".join(long_form.replace("-", " ").split()).lower())
        for token, long_form in acronym_spans(text)
    ]
