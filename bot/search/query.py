"""Reading a user's query: cut, tokenize, parse and validate it (no Whoosh).

The grammar is our own, so no input can crash a third-party parser (Whoosh's
raises on ``NOT NOT x``, ``x ANDNOT ANDNOT y`` and deep nesting —
docs/platform-facts.md "Whoosh", docs/search.md):

    query   := clause*                 words are OR-ed, ranked by how much matches
    clause  := [NOT | -word | +word] atom | clause (AND | OR | ANDNOT) clause
    atom    := [field:] word | [field:] "phrase" | ( query )

* ``-`` excludes only at the start of the input or after a space/``(``; a
  hyphen inside a word ("test-time") is part of the word (docs/interfaces.md "Rules every reply obeys").
* ``"…"`` and curly ``“…”`` quote phrases; operators are UPPERCASE only.
* ``word*`` is a prefix search (at least 3 letters before the ``*``).
* Anything not understood raises ``QueryError`` with an example that works.
"""
from __future__ import annotations

import unicodedata

import re
from dataclasses import dataclass, field, replace

from bot.models import QueryError

#: Longest query used (docs/interfaces.md "Rules every reply obeys").
MAX_CHARS = 300
#: Deepest parenthesis nesting accepted.
MAX_DEPTH = 8
#: ``field:`` names a query may use -> the canonical field.
FIELD_ALIASES = {"title": "title", "name": "name", "author": "author",
                 "authors": "author", "venue": "venue"}
FIELDS_HELP = "title:, name:, author:, venue:"
QUOTES = "\"“”„‟«»＂"
OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
MIN_PREFIX = 3

_LEX_RE = re.compile(r"(?P<ws>\s+)|(?P<quote>[%s])|(?P<lp>\()|(?P<rp>\))|(?P<text>[^\s()%s]+)"
                     % (QUOTES, QUOTES))
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


def parse(text: str, *, max_clauses: int = 32) -> ParsedQuery:
    """Cut, parse and validate ``text``.

    Args:
        text: the raw query (already Slack-entity-decoded).
        max_clauses: words/phrases used at most; later ones are dropped with a note.

    Raises:
        QueryError: empty input, unbalanced quotes or parentheses, misplaced
            operators, unknown or empty fields, refused wildcards.
    """
    text, notes = cut(unicodedata.normalize("NFC", text or ""))
    if not text:
        raise QueryError("Type some words to search for.")
    clauses = _Parser(text).parse()
    clauses, dropped = _limit(clauses, max_clauses)
    if dropped:
        notes = notes + (f"Only the first {max_clauses} words and phrases were used.",)
    return ParsedQuery(text, tuple(clauses), notes)


def cut(text: str) -> tuple[str, tuple[str, ...]]:
    """Strip ``text`` and cut it to ``MAX_CHARS`` (at a space when one is near).

    A quote or parenthesis left open, or an operator left dangling, by the
    cut is repaired. Returns the text
    and the notes to show ("Your query was cut to 300 characters.").
    """
    text = text.strip()
    if len(text) <= MAX_CHARS:
        return text, ()
    head = text[:MAX_CHARS]
    space = head.rfind(" ", MAX_CHARS - 40)
    head = head[:space] if space > 0 else head
    if sum(head.count(q) for q in QUOTES) % 2:
        last = max(head.rfind(q) for q in QUOTES)
        head = head[:last] + head[last + 1:]
    words = head.split(" ")
    while len(words) > 1 and (words[-1] in OPERATORS or words[-1] in ("", "-", "+")):
        words.pop()   # an operator left dangling by the cut
    head = " ".join(words).rstrip()
    head += ")" * max(0, head.count("(") - head.count(")"))
    return head, (f"Your query was cut to {MAX_CHARS} characters.",)


def leaves(clauses) -> list[Clause]:
    """Words and phrases of ``clauses``, groups flattened, in order."""
    out = []
    for c in clauses:
        out.extend(leaves(c.children) if c.kind == "group" else [c])
    return out


def _limit(clauses, budget):
    out, dropped = [], False
    for c in clauses:
        n = len(leaves([c])) if c.kind == "group" else 1
        if n <= budget:
            out.append(c)
            budget -= n
        elif c.kind == "group" and budget > 0:
            kids, _ = _limit(c.children, budget)
            out.append(replace(c, children=tuple(kids)))
            budget, dropped = 0, True
        else:
            dropped = True
    return out, dropped


def _error_operator(op: str) -> QueryError:
    if op in ("NOT", "ANDNOT"):
        return QueryError(f"{op} must be followed by one word or phrase to leave out.",
                          example="attention NOT sparse")
    return QueryError(f"{op} goes between two words or phrases.",
                      example="sparse AND attention")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = [(m.lastgroup, m.group(), m.start()) for m in _LEX_RE.finditer(text)]
        self.i = 0

    def parse(self) -> list[Clause]:
        clauses = self.sequence(0)
        if self.i < len(self.toks):  # a ")" with no "("
            raise QueryError("A closing parenthesis has no opening one.",
                             example="(sparse OR linear) attention")
        return clauses

    def sequence(self, depth: int) -> list[Clause]:
        clauses: list[Clause] = []
        pending: list[str] = []          # operators seen since the last clause
        while self.i < len(self.toks):
            kind, value, _ = self.toks[self.i]
            if kind == "ws":
                self.i += 1
                continue
            if kind == "rp":
                if depth == 0:
                    raise QueryError("A closing parenthesis has no opening one.",
                                     example="(sparse OR linear) attention")
                break
            if kind == "text" and value in OPERATORS:
                self.i += 1
                binary = value != "NOT"
                if (binary and (not clauses or pending)) or "NOT" in pending \
                        or "ANDNOT" in pending:
                    raise _error_operator(value)
                pending.append(value)
                continue
            clause = self.atom(depth)
            if clause is None:
                continue
            if "NOT" in pending or "ANDNOT" in pending:
                if clause.occur == "not":
                    raise _error_operator("NOT")
                clause = replace(clause, occur="not")
            if "AND" in pending and clause.occur != "not":
                clause = replace(clause, occur="must")
                if clauses[-1].occur == "should":
                    clauses[-1] = replace(clauses[-1], occur="must")
            clauses.append(clause)
            pending = []
        if pending:
            raise _error_operator(pending[-1])
        return clauses

    def at_boundary(self) -> bool:
        return self.i == 0 or self.toks[self.i - 1][0] in ("ws", "lp")

    def atom(self, depth: int) -> Clause | None:
        kind, value, start = self.toks[self.i]
        if kind == "quote":
            return self.phrase(None, "should")
        if kind == "lp":
            return self.group(depth, "should")
        occur = "should"
        if value[0] in "-+" and self.at_boundary():
            occur = "not" if value[0] == "-" else "must"
            stripped = value.lstrip("-+")
            start += len(value) - len(stripped)
            value = stripped
            if not value:
                self.i += 1
                nxt = self.toks[self.i][0] if self.i < len(self.toks) else None
                if nxt == "quote":
                    return self.phrase(None, occur)
                if nxt == "lp":
                    return self.group(depth, occur)
                return None  # a lone "-" or "+"
        self.i += 1
        m = _FIELD_RE.match(value)
        if m and not m.group(2).startswith("//"):
            name = FIELD_ALIASES.get(m.group(1).lower())
            if name is None:
                raise QueryError(f"Unknown field \"{m.group(1)}:\". Fields: {FIELDS_HELP}",
                                 example="title:attention")
            if m.group(2):
                return self.word(m.group(2), start + len(m.group(1)) + 1, name, occur)
            if self.i < len(self.toks) and self.toks[self.i][0] == "quote":
                return self.phrase(name, occur)
            raise QueryError(f"\"{m.group(1)}:\" needs a word or a quoted phrase right after "
                             f"it. Fields: {FIELDS_HELP}", example='title:"sparse attention"')
        return self.word(value, start, None, occur)

    def word(self, value: str, start: int, fieldname, occur) -> Clause:
        prefix = "*" in value
        if prefix:
            _check_wildcard(value)
            value = value.rstrip("*")
        return Clause("word", value, fieldname, occur, prefix, span=(start, start + len(value)))

    def phrase(self, fieldname, occur) -> Clause | None:
        _, _, open_at = self.toks[self.i]
        self.i += 1
        while self.i < len(self.toks) and self.toks[self.i][0] != "quote":
            self.i += 1
        if self.i >= len(self.toks):
            raise QueryError("A quotation mark is not closed.", example='"sparse attention"')
        close_at = self.toks[self.i][2]
        self.i += 1
        inner = self.text[open_at + 1:close_at]
        if not inner.strip():
            return None
        return Clause("phrase", inner, fieldname, occur, span=(open_at + 1, close_at))

    def group(self, depth: int, occur) -> Clause | None:
        if depth + 1 > MAX_DEPTH:
            raise QueryError(f"Too many nested parentheses (at most {MAX_DEPTH}).",
                             example="(sparse OR linear) attention")
        self.i += 1
        children = self.sequence(depth + 1)
        if self.i >= len(self.toks):
            raise QueryError("A parenthesis is not closed.",
                             example="(sparse OR linear) attention")
        self.i += 1  # the ")"
        if not children:
            return None
        return Clause("group", occur=occur, children=tuple(children))


def _check_wildcard(value: str) -> None:
    stem = value.rstrip("*")
    if not stem:
        raise QueryError("A lone * would list every paper; put at least 3 letters before it.",
                         example="distill*")
    if value.startswith("*"):
        raise QueryError("A word cannot start with *; put at least 3 letters before it.",
                         example="distill*")
    if "*" in stem:
        raise QueryError("* works only at the end of a word.", example="distill*")
    if sum(ch.isalnum() for ch in stem) < MIN_PREFIX:
        raise QueryError(f"Put at least {MIN_PREFIX} letters before *.", example="distill*")
