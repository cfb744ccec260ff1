"""Text as people type or paste it, before parsing: the cut, Slack markup,
and which quotes and parentheses are syntax at all (docs/search.md).
"""

from __future__ import annotations

import re

from bot.core.parsing import MAX_INPUT, cut_input

#: Longest query used: a pasted paragraph or abstract is a query
#: (docs/interfaces.md, docs/search.md "Long text"); the one limit on what
#: anyone types (``bot.core.parsing.MAX_INPUT``), cut the same way.
MAX_CHARS = MAX_INPUT
#: Deepest parenthesis nesting read as groups (deeper ones are plain text).
MAX_DEPTH = 8
QUOTES = "\"“”„‟«»＂"
OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
#: A text of more than this many words is a pasted paragraph: a ``-``/``+``
#: inside its running text is punctuation ("a 10 -fold gain"), not an operator
#: (docs/search.md "Query syntax"); the same bound as spelling's
#: (``Ranking.spell_max_words``).
LONG_WORDS = 32

#: Slack markup: ``<@U…>``, ``<#C…|name>``, ``<!here>``, ``<url|label>``
#: (https://api.slack.com/reference/surfaces/formatting), and code.
_SLACK_RE = re.compile(r"<[@#!][^>]*>|<[a-z][a-z0-9+.-]*:[^>]*>|```.*?```|`[^`\n]*`", re.S | re.I)


_WORD_RE = re.compile(r"[^\W\d_]{2,}")
#: Fewest words for a text's case to say it is written in capitals (one or two
#: capital words, "IT", "LLM RAG", are acronyms, not shouting).
SHOUT_MIN_WORDS = 3


def mostly_capitals(text: str) -> bool:
    """True when ``text`` is written mostly in capitals: at least
    ``SHOUT_MIN_WORDS`` words of 2+ letters, and more than half of those words
    or more than half of their letters in capitals ("ANALYSIS OF SERIAL AND
    PARALLEL ADDERS"). In such a text case means nothing: ``AND``/``OR``/``NOT``
    are words and ``IT``/``US`` the stop words "it"/"us" (docs/search.md "Query
    syntax"); a query in mixed case keeps both readings ("diffusion AND NOT
    text", "IT operations")."""
    words = _WORD_RE.findall(text)
    if len(words) < SHOUT_MIN_WORDS:
        return False
    upper = sum(w.isupper() for w in words)
    letters = sum(map(len, words))
    capitals = sum(ch.isupper() for w in words for ch in w)
    return upper * 2 > len(words) or capitals * 2 > letters


def strip_slack(text: str) -> str:
    """``text`` without Slack tokens (mentions, channels, links) and code
    spans or blocks, each replaced by a space."""
    return _SLACK_RE.sub(" ", text)


def cut(text: str) -> tuple[str, tuple[str, ...]]:
    """Strip ``text`` and cut it to ``MAX_CHARS`` (at a space when one is
    near: ``bot.core.parsing.cut_input``, the cut of every command).

    A quote or parenthesis left open, or an operator left dangling, by the
    cut is repaired. Returns the text
    and the notes to show ("Your query was cut to 4000 characters.").
    """
    head, was_cut = cut_input(text.strip())
    if not was_cut:
        return head, ()
    if sum(head.count(q) for q in QUOTES) % 2:
        last = max(head.rfind(q) for q in QUOTES)
        head = head[:last] + head[last + 1 :]
    words = head.split(" ")
    while len(words) > 1 and (words[-1] in OPERATORS or words[-1] in ("", "-", "+")):
        words.pop()  # an operator left dangling by the cut
    head = " ".join(words).rstrip()
    head += ")" * max(0, head.count("(") - head.count(")"))
    return head, (f"Your query was cut to {MAX_CHARS} characters.",)


def balanced(toks: list[tuple]) -> list[tuple]:
    """``toks`` with unpaired quotes, unpaired parentheses and parentheses
    nested deeper than ``MAX_DEPTH`` turned into whitespace (plain text).
    Quotes pair first, left to right; parentheses inside a phrase are text."""
    toks = list(toks)
    _unpaired_quote(toks)
    _unpaired_parentheses(toks)
    _too_deep(toks)
    return toks


def _as_whitespace(toks: list[tuple], i: int) -> None:
    toks[i] = ("ws",) + toks[i][1:]


def _unpaired_quote(toks: list[tuple]) -> None:
    """The last quote becomes whitespace when the quotes are odd in number."""
    quotes = [i for i, t in enumerate(toks) if t[0] == "quote"]
    if len(quotes) % 2:
        _as_whitespace(toks, quotes[-1])


def _unpaired_parentheses(toks: list[tuple]) -> None:
    """Parentheses inside a phrase become text; a ``)`` with no ``(`` before
    it, and a ``(`` never closed, become whitespace."""
    inside = False
    stack: list[int] = []
    for i, (kind, value, start) in enumerate(toks):
        if kind == "quote":
            inside = not inside
        elif inside and kind in ("lp", "rp"):
            toks[i] = ("text", value, start)
        elif kind == "lp":
            stack.append(i)
        elif kind == "rp":
            if stack:
                stack.pop()
            else:
                toks[i] = ("ws", value, start)
    for i in stack:
        _as_whitespace(toks, i)


def _too_deep(toks: list[tuple]) -> None:
    """Parentheses (paired by now) nested deeper than ``MAX_DEPTH`` become whitespace."""
    depth = 0
    deep: list[int] = []
    for i, (kind, _, _) in enumerate(toks):
        if kind == "lp":
            depth += 1
            if depth > MAX_DEPTH:
                deep.append(i)
        elif kind == "rp":
            if depth > MAX_DEPTH:
                deep.append(i)
            depth -= 1
    for i in deep:
        _as_whitespace(toks, i)


def signed(toks: list[tuple]) -> set[int]:
    """Indices of the text tokens of ``toks`` (after ``balanced``) whose
    leading ``-``/``+`` is an operator (docs/search.md "Query syntax").

    A sign is an operator when it starts a token after whitespace, ``(`` or
    the start of the text, and prefixes a letter (``-survey``, ``+GPU``) or a
    quoted phrase or group (``-"a b"``, ``+(a b)``). A sign before a digit
    (``-0.4``, ``+1.4%``) is part of a number; a lone dash is punctuation. In
    a text of more than ``LONG_WORDS`` words only the signs before its first
    plain word or after its last one count (``<abstract> -survey``).
    """
    found, plain, inside, depth = [], [], False, 0
    for i, (kind, value, _) in enumerate(toks):
        if kind == "quote":
            inside = not inside
        elif kind in ("lp", "rp") and not inside:
            depth += 1 if kind == "lp" else -1
        if kind != "text" or inside:
            continue
        rest = value.lstrip("-+")
        after = toks[i + 1][0] if i + 1 < len(toks) else None
        if (
            value[0] in "-+"
            and (i == 0 or toks[i - 1][0] in ("ws", "lp"))
            and (rest[:1].isalpha() or (not rest and after in ("quote", "lp")))
        ):
            found.append(i)
        elif depth == 0:
            plain.append(i)
    words = sum(1 for kind, _, _ in toks if kind == "text")
    if words > LONG_WORDS and plain:
        found = [i for i in found if i < plain[0] or i > plain[-1]]
    return set(found)
