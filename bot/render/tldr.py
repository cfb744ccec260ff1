"""A TL;DR beside the abstract it was taken from: which of its sentences the Details
card sets in bold inside the abstract instead of repeating them above (issue 18)."""

from __future__ import annotations

from bot.render import mrkdwn as md


def tldr_parts(tldr: str, shown: str) -> tuple[tuple[str, ...], str]:
    """Split a TL;DR against the escaped abstract text ``shown`` right below it.

    An extractive TL;DR is one or two of the abstract's sentences, perhaps without a
    leading connective ("Here, we report …" → "We report …"): repeated above the
    abstract it says nothing new (issue 18), so those sentences (or the start a TL;DR
    cut with "…" keeps) are set in bold inside the abstract instead — or, holding
    mrkdwn marks (``*``, ``_``, ``~``), only left out above.

    Args:
        tldr: the paper's TL;DR (raw text).
        shown: the abstract as the card shows it (escaped, cut).

    Returns:
        ``(pieces of shown to set in bold, raw TL;DR text still to show above)`` —
        ``((), tldr)`` when it is not made of sentences shown below.
    """
    text = md.escape(tldr)
    pieces = _pieces(text.removesuffix("…").rstrip(), shown) if text else ()
    if not pieces:
        return (), tldr
    return (() if any(mark in text for mark in "*_~") else pieces), ""


def _pieces(text: str, shown: str) -> tuple[str, ...]:
    """``text`` as one or two pieces of ``shown`` (``_said``), or ``()``."""
    whole = _said(text, shown)
    if whole:
        return (whole,)
    at = text.find(". ")
    while at > 0:  # two sentences, each said below
        first, second = _said(text[: at + 1], shown), _said(text[at + 2 :], shown)
        if first and second:
            return first, second
        at = text.find(". ", at + 2)
    return ()


def _said(sentence: str, shown: str) -> str:
    """``sentence`` as ``shown`` holds it (its first letter lower-cased after a dropped
    connective), or "" when it does not."""
    for form in (sentence, sentence[:1].lower() + sentence[1:]):
        if form in shown:
            return form
    return ""
