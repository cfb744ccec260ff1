"""Reading a user's query: cut, tokenize and parse it (no Whoosh).

The grammar is our own, so no input can crash a third-party parser (Whoosh's
raises on ``NOT NOT x``, ``x ANDNOT ANDNOT y`` and deep nesting —
docs/platform-facts.md "Whoosh"). Operators count only where the user clearly
meant them; everything else is prose, searched as words
(docs/search.md, "Query syntax"):

    query   := clause*                 words are OR-ed, ranked by how much matches
    clause  := [NOT | -word | +word] atom | clause (AND | OR | ANDNOT) clause
    atom    := [field:] word | [field:] "phrase" | ( query )

* ``-`` excludes (``+`` requires) only at the start of a token after a
  space/``(`` and before a letter, a phrase or a group (``prose.signed``): a
  hyphen inside a word ("test-time"), a signed number ("-0.4", "+1.4%"), a
  lone dash, and a sign inside a long pasted text's sentences are text.
* ``"…"`` and curly ``“…”`` quote phrases and ``( )`` group, when balanced; an
  unpaired quote or parenthesis (or nesting deeper than ``MAX_DEPTH``) is
  plain text.
* Operators are UPPERCASE only and only between/before clauses; one that forms
  no valid expression (``NOT NOT x``, ``alpha OR``) is a word.
* ``title:``, ``name:``, ``author(s):``, ``venue:`` (also with a space before
  the word: ``title: diffusion``); any other ``word:`` is a word.
* ``word*`` is a prefix search when at least 3 letters come before a final
  ``*``; any other ``*`` is ignored like punctuation.
* Only input with no words at all (``(((``, ``"``, ``title:``) raises
  ``QueryError``, with an example that works.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

from bot.core.models import QueryError
from bot.core.parsing import well_formed
from bot.search.query.prose import MAX_CHARS, OPERATORS, QUOTES, balanced, cut, signed, strip_slack

__all__ = ["MAX_CHARS", "LITERAL_CHARS", "Clause", "ParsedQuery", "parse", "prose", "leaves", "cut"]

#: ``field:`` names a query may use -> the canonical field.
FIELD_ALIASES = {"title": "title", "name": "name", "author": "author", "authors": "author", "venue": "venue"}
FIELDS_HELP = "title:, name:, author:, venue:"
MIN_PREFIX = 3
#: A token longer than this is searched literally: no spelling, prefix or
#: expansion work (so an odd 10,000-character "word" costs nothing extra).
LITERAL_CHARS = 64

_LEX_RE = re.compile(r"(?P<ws>\s+)|(?P<quote>[%s])|(?P<lp>\()|(?P<rp>\))|(?P<text>[^\s()%s]+)" % (QUOTES, QUOTES))
_FIELD_RE = re.compile(r"([A-Za-z][A-Za-z_]*):(.*)\Z", re.S)


@dataclass(frozen=True)
class Clause:
    """One parsed piece of a query.

    Attributes:
        kind: "word", "phrase" or "group".
        text: the word or phrase as typed (no quotes, field or operator).
        field: canonical field ("title", "name", "author", "venue") or None.
        occur: "should" (ranked), "must" (required) or "not" (excluded).
        prefix: True for ``word*`` (``text`` is without the ``*``).
        children: a group's clauses.
        span: ``(start, end)`` of ``text`` in the query string.
    """

    kind: str
    text: str = ""
    field: str | None = None
    occur: str = "should"
    prefix: bool = False
    children: tuple["Clause", ...] = ()
    span: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class ParsedQuery:
    """A validated query: ``text`` as run, its ``clauses``, user ``notes``."""

    text: str
    clauses: tuple[Clause, ...]
    notes: tuple[str, ...] = field(default=())


def parse(text: str) -> ParsedQuery:
    """Cut, parse and validate ``text``.

    Args:
        text: the raw query (already Slack-entity-decoded); a surrogate code
            point in it (bytes that were not UTF-8) is read as U+FFFD.

    Raises:
        QueryError: empty input, unbalanced quotes or parentheses, misplaced
            operators, unknown or empty fields, refused wildcards.
    """
    text, notes = cut(unicodedata.normalize("NFC", well_formed(text or "")))
    if not text:
        raise QueryError("Type some words to search for.")
    parser = _Parser(text)
    clauses = parser.parse()
    return ParsedQuery(text=text, clauses=tuple(clauses), notes=notes + short_prefix_note(parser.short_prefixes))


def prose(text: str) -> ParsedQuery:
    """``text`` read as prose only (``related``): Slack tokens and code
    stripped (``prose.strip_slack``), cut like a query, every token a plain
    word — no operators, fields, phrases, prefixes or exclusions. Surrogates
    are read as U+FFFD, as in ``parse``."""
    text, notes = cut(strip_slack(unicodedata.normalize("NFC", well_formed(text or ""))))
    clauses = tuple(Clause(kind="word", text=m.group(), span=(m.start(), m.end())) for m in re.finditer(r"\S+", text))
    if not clauses:
        raise QueryError("Paste some text to find related papers for.", example="a paragraph or an abstract")
    return ParsedQuery(text=text, clauses=clauses, notes=notes)


def leaves(clauses) -> list[Clause]:
    """Words and phrases of ``clauses``, groups flattened, in order."""
    out = []
    for c in clauses:
        out.extend(leaves(c.children) if c.kind == "group" else [c])
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = balanced(
            _split_unknown_fields([(m.lastgroup, m.group(), m.start()) for m in _LEX_RE.finditer(text)])
        )
        self.signed = signed(self.toks)
        self.i = 0
        self.short_prefixes: list[str] = []  # ``sp*``: too short for a prefix, searched as the word

    def parse(self) -> list[Clause]:
        m = _FIELD_RE.match(self.text.strip())
        if m and FIELD_ALIASES.get(m.group(1).lower()) and not m.group(2).strip():
            raise _no_words(self.text)  # "title:" alone
        clauses = self.sequence(0)
        if not clauses:
            raise _no_words(self.text)
        return clauses

    def _next(self, j: int) -> tuple | None:
        """The first token from ``j`` on that is not whitespace."""
        while j < len(self.toks) and self.toks[j][0] == "ws":
            j += 1
        return self.toks[j] if j < len(self.toks) else None

    def _operator(self, value: str, clauses: list, after_op: bool) -> bool:
        """Is the token ``value`` at ``self.i`` an operator here?"""
        if value not in OPERATORS or after_op:
            return False
        nxt = self._next(self.i + 1)
        if nxt is None or nxt[0] == "rp" or (nxt[0] == "text" and nxt[1] in OPERATORS):
            return False
        return value == "NOT" or bool(clauses)

    def sequence(self, depth: int) -> list[Clause]:
        clauses: list[Clause] = []
        pending: str | None = None  # the operator before the next clause
        after_op = False  # the last token was an operator word
        while self.i < len(self.toks):
            kind, value, start = self.toks[self.i]
            if kind == "ws":
                self.i += 1
                continue
            if kind == "rp":
                break
            if kind == "text" and self._operator(value, clauses, after_op):
                pending, after_op = value, True
                self.i += 1
                continue
            if kind == "text" and value in OPERATORS:
                # no valid expression: read as the (stop) word it is, i.e. skipped
                self.i += 1
                pending, after_op = None, True
                continue
            after_op = False
            clause = self.atom(depth)
            if clause is None:
                continue
            if pending in ("NOT", "ANDNOT"):
                clause = replace(clause, occur="not")
            elif pending == "AND" and clause.occur != "not":
                clause = replace(clause, occur="must")
                if clauses[-1].occur == "should":
                    clauses[-1] = replace(clauses[-1], occur="must")
            clauses.append(clause)
            pending = None
        return clauses

    def atom(self, depth: int) -> Clause | None:
        kind, value, start = self.toks[self.i]
        if kind == "quote":
            return self.phrase(None, "should")
        if kind == "lp":
            return self.group(depth, "should")
        occur = "should"
        if self.i in self.signed:  # prose.signed: "-word", not "-0.4" or "a - b"
            occur = "not" if value[0] == "-" else "must"
            stripped = value.lstrip("-+")
            start += len(value) - len(stripped)
            value = stripped
            if not value:
                self.i += 1
                if self.toks[self.i][0] == "quote":
                    return self.phrase(None, occur)
                return self.group(depth, occur)
        elif not value.strip("-+"):
            self.i += 1
            return None  # a lone "-" or "+": punctuation
        self.i += 1
        m = _FIELD_RE.match(value)
        name = FIELD_ALIASES.get(m.group(1).lower()) if m else None
        if name is None or m.group(2).startswith("//"):
            return self.word(value, start, None, occur)  # not a field: a word ("Examples:")
        if m.group(2):
            return self.word(m.group(2), start + len(m.group(1)) + 1, name, occur)
        nxt = self._next(self.i)
        if nxt is not None and nxt[0] == "quote":
            self.i = self.toks.index(nxt, self.i)
            return self.phrase(name, occur)
        if nxt is not None and nxt[0] == "text" and nxt[1] not in OPERATORS:
            self.i = self.toks.index(nxt, self.i) + 1  # "title: diffusion"
            return self.word(nxt[1], nxt[2], name, occur)
        return self.word(m.group(1), start, None, occur)  # "title:" with nothing after

    def word(self, value: str, start: int, fieldname, occur) -> Clause:
        stem = value.rstrip("*")
        prefix = (
            stem != value
            and "*" not in stem
            and len(stem) <= LITERAL_CHARS
            and sum(ch.isalnum() for ch in stem) >= MIN_PREFIX
        )
        if prefix:
            value = stem
        elif stem != value and "*" not in stem and 0 < sum(ch.isalnum() for ch in stem) < MIN_PREFIX:
            self.short_prefixes.append(stem)
        return Clause(
            kind="word", text=value, field=fieldname, occur=occur, prefix=prefix, span=(start, start + len(value))
        )

    def phrase(self, fieldname, occur) -> Clause | None:
        _, _, open_at = self.toks[self.i]
        self.i += 1
        while self.toks[self.i][0] != "quote":  # _balanced: a closing quote follows
            self.i += 1
        close_at = self.toks[self.i][2]
        self.i += 1
        inner = self.text[open_at + 1 : close_at]
        if not inner.strip():
            return None
        return Clause(kind="phrase", text=inner, field=fieldname, occur=occur, span=(open_at + 1, close_at))

    def group(self, depth: int, occur) -> Clause | None:
        self.i += 1
        children = self.sequence(depth + 1)
        self.i += 1  # the ")" (_balanced: there is one)
        if not children:
            return None
        return Clause(kind="group", occur=occur, children=tuple(children))


def short_prefix_note(stems: list[str]) -> tuple[str, ...]:
    """The one note for ``word*`` with fewer than ``MIN_PREFIX`` letters (README "Query
    syntax": a prefix needs 3 letters): it was searched as the word itself.

    Args:
        stems: the words typed before such a ``*`` (``["sp"]``), in order.
    """
    if not stems:
        return ()
    unique = list(dict.fromkeys(stems))
    shown = ", ".join(f"“{stem}*”" for stem in unique)
    words = ", ".join(f"“{stem}”" for stem in unique)
    was = "was searched as the word" if len(unique) == 1 else "were searched as the words"
    return (f"A prefix needs at least {MIN_PREFIX} letters before `*`, so {shown} {was} {words}.",)


def _split_unknown_fields(toks: list[tuple]) -> list[tuple]:
    """``other:word`` (not a known field, not a link) as two words, so that
    "Note:attention" searches both words, not the two in one field."""
    out = []
    for kind, value, start in toks:
        m = _FIELD_RE.match(value) if kind == "text" else None
        if m and m.group(2) and not m.group(2).startswith("//") and m.group(1).lower() not in FIELD_ALIASES:
            cut = len(m.group(1)) + 1
            out += [("text", value[:cut], start), ("text", value[cut:], start + cut)]
        else:
            out.append((kind, value, start))
    return out


def _no_words(text: str) -> QueryError:
    """The explanation for input that is only syntax (``(((``, ``"``, ``title:``)."""
    m = _FIELD_RE.match(text.strip())
    if m and FIELD_ALIASES.get(m.group(1).lower()) and not m.group(2).strip():
        return QueryError(
            f"\"{m.group(1)}:\" needs a word or a quoted phrase after it. Fields: {FIELDS_HELP}",
            example='title:"sparse attention"',
        )
    return QueryError("Type some words to search for.", example="sparse attention")


def nothing_searched(parsed: ParsedQuery) -> QueryError:
    """The error for a query whose words all fell away: only exclusions, only
    very common words or symbols, or prefixes no word of the papers begins with."""
    if not any(c.occur != "not" for c in parsed.clauses):
        return QueryError("Add a word to search for: -word and NOT only leave papers out.", example="attention -sparse")
    prefixes = [c.text for c in leaves(parsed.clauses) if c.prefix and c.occur != "not"]
    if prefixes:
        starts = ", ".join(f'"{p}"' for p in prefixes[:5])
        return QueryError(f"No word in the papers begins with {starts}; try a different start.", example="atten*")
    shown = parsed.text if len(parsed.text) <= 100 else parsed.text[:99] + "…"  # a pasted text
    return QueryError(
        f"\"{shown}\" has only very common words or symbols, which are not searched; add a more specific word."
    )
