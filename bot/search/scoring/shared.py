"""What the two scorers share: the state of one search they both read, the
pieces of BM25F they both compute, and the one type their results come in.

A plan is scored by the dense scorer (``bot.search.scoring.impacts``, numpy
over the impact arrays) when it is plain, else by the postings scorer
(``bot.search.scoring.postings``, term at a time over Whoosh's postings) —
``bot.search.scoring.rank.score`` chooses; both read and set one search's
``Scoring`` and return ``PlanScores``: per-document values as
``DocScores`` and each group's documents as ``Members``, whichever scorer
ran: past that choice, the ranking never asks which one it was.

Formula (Whoosh's BM25F, so its documentation applies): per field,
``boost * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))`` with
``idf`` = Lucene's BM25 idf by default (``ranking.idf``); scores of all
matching terms add up.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field
from math import log
from typing import Iterable

import numpy as np

from bot.search.index.whoosh_internals import leaves
from bot.search.query.plan import Phrase, Plan, Term
from bot.search.scoring.knobs import Ranking
from bot.search.scoring.norms import Norms
from bot.search.scoring.phrases import phrase_docs


def idf(n: int, df: int, kind: str = "bm25") -> float:
    """Inverse document frequency: ``"bm25"`` = Lucene's ``ln(1 + (N - df + .5) /
    (df + .5))``; ``"whoosh"`` = ``ln(N / (df + 1)) + 1``.

    Args:
        n: documents in the generation.
        df: documents with the term.
        kind: ``"bm25"`` or ``"whoosh"`` (``Ranking.idf``).
    """
    if kind == "whoosh":
        return log(n / (df + 1)) + 1
    return log(1 + (n - df + 0.5) / (df + 0.5))


def scored_groups(plan: Plan) -> list:
    """The ``(node, required)`` groups of ``plan`` as both scorers score them:
    all of them when the plan is weighted (``bot.search.query.weighting``
    merged its repeats), else without repeats (a word typed twice counts once)."""
    if plan.weights:
        return plan.groups
    out: list = []
    for g in plan.groups:
        if g not in out:
            out.append(g)
    return out


class Scoring:
    """The state of one search that both scorers read (not thread-safe, like
    the searcher it holds).

    Args:
        searcher: open Whoosh searcher of the generation.
        norms: the generation's ``Norms``.
        ranking: BM25F parameters, field ``b`` values, time limit.
    """

    def __init__(self, searcher, norms: Norms, ranking: Ranking) -> None:
        self.searcher = searcher
        self.reader = searcher.reader()
        self.leaves = leaves(self.reader)
        self.norms = norms
        self.r = ranking
        self.total_docs = max(1, self.reader.doc_count_all())
        self.deadline = time.perf_counter() + ranking.time_limit_s
        #: scoring stopped at the time limit or the request's CPU budget
        self.timed_out = False
        #: a phrase was confirmed in the best ``MAX_PHRASE_CHECKS`` candidates only
        self.phrase_capped = False
        self._dfs: dict = {}

    def df(self, fieldname: str, text: str) -> int:
        """Papers with ``text`` in ``fieldname`` (asked of Whoosh once per search:
        each question is a hash-table read per segment).

        Args:
            fieldname: the index field.
            text: the analysed term.
        """
        key = (fieldname, text)
        got = self._dfs.get(key)
        if got is None:
            got = self._dfs[key] = self.reader.doc_frequency(fieldname, text)
        return got

    def size(self, node) -> int:
        """Posting-list length of a ``Term`` (0 for other nodes: they go last)."""
        if isinstance(node, Term):
            return self.df(node.field, node.text)
        return 0

    def term_factors(self, term: Term) -> tuple[float, array] | None:
        """``(c, norms)`` of one term — its score in a document is
        ``c * tf / (tf + norms[docnum])`` — or None when no paper has it or
        scoring has stopped. ``c`` is ``boost * idf * (k1 + 1)``; ``norms``
        the field's ``k1 * (1 - b + b * len / avg_len)`` per docnum."""
        df = self.df(term.field, term.text)
        if not df or self.timed_out:  # stopped: no further terms either
            return None
        k1 = self.r.k1
        b = self.r.field_b.get(term.field, self.r.b)
        norms = self.norms.get(self.reader, term.field, k1, b)
        return term.boost * idf(self.total_docs, df, self.r.idf) * (k1 + 1), norms

    def phrase_docs(self, node: Phrase, candidates: dict) -> list[int]:
        """The candidates that really hold the phrase
        (``bot.search.scoring.phrases``); notes when only the best were read
        (``phrase_capped``).

        Args:
            node: the phrase.
            candidates: docnum → score of the documents with all its words.
        """
        found, capped = phrase_docs(self.searcher, node, candidates)
        self.phrase_capped = self.phrase_capped or capped
        return found


class DocScores:
    """A value per document of one generation — a score, or how many groups a
    document matched — for the documents a plan matched, as two arrays
    (``values`` float64 and ``hit`` bool, indexed by docnum).

    Read and changed like a ``{docnum: value}`` dict of the matching documents
    (``len``, ``in``, ``get``, ``[]``, ``keys``, iteration, ``items``, ``pop``,
    ``copy``); ``add``, ``only`` and ``without`` are the other changes the
    ranking makes, ``candidates`` the cut it starts from.

    Args:
        values: the value per docnum (float64).
        hit: per docnum, whether it matches (bool).
    """

    def __init__(self, values: np.ndarray, hit: np.ndarray) -> None:
        self.values, self.hit = values, hit

    @classmethod
    def from_dict(cls, values: dict, n: int) -> "DocScores":
        """The ``{docnum: value}`` dict of a generation of ``n`` documents.

        Args:
            values: docnum → value (the postings scorer's sums).
            n: documents in the generation (every docnum is below it).
        """
        out = cls(np.zeros(n), np.zeros(n, dtype=bool))
        if values:
            docs = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
            out.values[docs] = np.fromiter(values.values(), dtype=np.float64, count=len(values))
            out.hit[docs] = True
        return out

    def __len__(self) -> int:
        return int(np.count_nonzero(self.hit))

    def __bool__(self) -> bool:
        return bool(self.hit.any())

    def __contains__(self, d) -> bool:
        return 0 <= d < len(self.hit) and bool(self.hit[d])

    def get(self, d, default=None):
        """``d``'s value (a float), or ``default`` when ``d`` does not match.

        Args:
            d: a docnum.
            default: returned for a document that does not match.
        """
        return float(self.values[d]) if d in self else default

    def __getitem__(self, d):
        if d not in self:
            raise KeyError(d)
        return self.values[d].item()

    def keys(self) -> list[int]:
        return np.flatnonzero(self.hit).tolist()

    def __iter__(self):
        return iter(self.keys())

    def items(self):
        docs = np.flatnonzero(self.hit)
        return zip(docs.tolist(), self.values[docs].tolist())

    def pop(self, d, default=None):
        """``get(d, default)``, and ``d`` no longer matches.

        Args:
            d: a docnum.
            default: returned for a document that does not match.
        """
        value = self.get(d, default)
        if d in self:
            self.hit[d] = False
        return value

    def __setitem__(self, d: int, value: float) -> None:
        self.values[d] = value
        self.hit[d] = True

    def copy(self) -> "DocScores":
        return DocScores(self.values.copy(), self.hit.copy())

    def add(self, d: int, value: float) -> None:
        """Add ``value`` to document ``d``'s (which then matches), as
        ``scores[d] = scores.get(d, 0.0) + value`` would.

        Args:
            d: a docnum of the generation.
            value: added to its value (0.0 when it did not match).
        """
        self.values[d] = (self.values[d] if self.hit[d] else 0.0) + value
        self.hit[d] = True

    def only(self, docs: Iterable[int]) -> "DocScores":
        """A copy holding only the documents of ``docs`` that are in this one."""
        keep = np.zeros(len(self.hit), dtype=bool)
        keep[np.fromiter(docs, dtype=np.int64)] = True
        return DocScores(self.values.copy(), self.hit & keep)

    def without(self, other: "DocScores") -> "DocScores":
        """A copy without the documents of ``other`` (of the same generation)."""
        return DocScores(self.values.copy(), self.hit & ~other.hit)

    def candidates(self, want: int) -> list[tuple[int, float]]:
        """``(docnum, value)`` of the best ``want`` and every one whose value,
        rounded to 6 decimals, ties with the last of them (``rank.best``)."""
        docs = np.flatnonzero(self.hit)
        scores = self.values[docs]
        if len(docs) > want:
            kth = float(np.partition(scores, len(scores) - want)[len(scores) - want])
            keep = scores >= round(kth, 6) - 1e-6
            docs, scores = docs[keep], scores[keep]
        return list(zip(docs.tolist(), scores.tolist()))


class Members:
    """The documents one group matched (sorted docnums): ``d in members``."""

    def __init__(self, docs: np.ndarray) -> None:
        self.docs = docs

    @classmethod
    def of(cls, docs: Iterable[int]) -> "Members":
        """The members ``docs`` names (any order, no repeats: a dict's keys)."""
        return cls(np.sort(np.fromiter(docs, dtype=np.int64)))

    def __contains__(self, d) -> bool:
        i = int(np.searchsorted(self.docs, d))
        return i < len(self.docs) and int(self.docs[i]) == d

    def __len__(self) -> int:
        return len(self.docs)


@dataclass
class PlanScores:
    """What scoring one plan gives, whichever scorer ran.

    Attributes:
        scores: each matching document's score (coordination applied).
        matched: how many of the plan's groups each matching document matches.
        groups: the plan's groups as scored (``scored_groups``).
        found: ``[(group node, Members)]``: the documents each group matched.
        timed_out: scoring stopped at ``ranking.time_limit_s`` or the CPU budget.
        phrase_capped: a phrase was checked in the best candidates only.
    """

    scores: DocScores
    matched: DocScores
    groups: int = 1
    found: list = field(default_factory=list)
    timed_out: bool = False
    phrase_capped: bool = False
