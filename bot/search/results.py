"""From scores to hits: rank a compiled query, order its best documents (ties
by id), and turn them into ``Hit`` objects — the one place that does.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from operator import itemgetter

from bot.models import Hit
from bot.search.norms import Norms
from bot.search.plan import AnyOf, Compiled, Term
from bot.search.schema import paper_from_json
from bot.search.scorer import Scorer
from bot.search.similar import key_terms
from bot.search.snippets import make_snippet
from bot.search.tuning import Ranking


@dataclass
class Ranked:
    """Ranked documents of one query.

    Attributes:
        scored: ``[(score, docnum)]``, best first, the first ``want`` only.
        total: number of matching papers (exact).
        timed_out: scoring stopped at ``ranking.time_limit_s``.
        matched: docnum -> how many of the query's ``groups`` it matches
            (``coverage``).
        phrase_capped: a phrase was only checked in the best candidates.
        confident: the best document matches nearly all the query's content
            groups (see ``confident``).
    """

    scored: list
    total: int
    timed_out: bool = False
    matched: dict = field(default_factory=dict)
    groups: int = 1
    phrase_capped: bool = False
    confident: bool = False

    def coverage(self, docnum: int) -> float:
        """Share (0..1) of the query's groups that ``docnum`` matches."""
        return self.matched.get(docnum, 0) / max(1, self.groups)


@dataclass
class Found:
    """What one search found: the query that ran and its ranking.

    Attributes:
        compiled, ranked: the compiled query that ran, and its ranking.
        corrected: the spelling correction that ran instead of the typed query.
        suggestion: a "did you mean" (the correction itself when it ran).
    """

    compiled: Compiled
    ranked: Ranked
    corrected: str | None = None
    suggestion: str | None = None


def rank(searcher, norms: Norms, compiled: Compiled, want: int, r: Ranking, *,
         exclude: int | None = None, feedback: bool = True) -> Ranked:
    """Score ``compiled`` and return its best ``want`` documents.

    Args:
        searcher: open Whoosh searcher of the generation.
        norms: the generation's length-norm cache.
        compiled: the query.
        want: offset + limit of the page asked for.
        r: ranking settings.
        exclude: a docnum never returned (the paper itself, for ``similar``).
        feedback: allow pseudo-relevance feedback (``r.prf_docs``).
    """
    scorer = Scorer(searcher, norms, r)
    result = scorer.run(compiled.plan, exclude=exclude)
    # ties by paper id (str; bytes sort in the same order: UTF-8 keeps code point order)
    key_of = searcher.reader().column_reader("id").__getitem__
    if feedback and r.prf_docs > 0 and result.scores:
        first = best(result.scores, r.prf_docs, key_of)
        papers = [paper_from_json(searcher.stored_fields(d)["doc"]) for _, d in first]
        terms = key_terms(searcher, [(p.abstract, 1.0) for p in papers], r.prf_terms)
        scorer.add(result, AnyOf(tuple(Term("abstract", t, r.prf_weight * w)
                                       for t, w in terms)))
        if exclude is not None:
            result.scores.pop(exclude, None)
    scored = best(result.scores, want, key_of)
    sure = bool(scored) and confident(result.found, compiled, scored[0][1])
    return Ranked(scored, len(result.scores), result.timed_out, result.matched,
                  result.groups, result.phrase_capped, sure)


def confident(found: list, compiled: Compiled, docnum: int) -> bool:
    """Is ``docnum`` the paper a conversational query (a mention) means?

    True when it matches (as the scorer matched it: stems, acronym
    expansions, compounds) at least ``ceil(2/3 * n)`` of the query's ``n``
    content groups — 1 of 1, 2 of 2, 2 of 3, 3 of 4 — where groups of a chat
    word (``Compiled.chatter``) do not count; never for small talk (at most
    two content groups and a greeting: "hello world", "thanks a lot").
    Source: docs/search.md ("Mentions").

    Args:
        found: ``Scores.found`` of the query, ``[(group node, {docnum: score})]``.
        compiled: the query (its chatter and greeting).
        docnum: the best document.
    """
    groups = matched = 0
    for node, got in found:
        if node not in compiled.chatter:
            groups += 1
            matched += docnum in got
    if not groups or (compiled.greeting and groups <= 2):
        return False
    return matched >= math.ceil(groups * 2 / 3)


def pin(ranked: Ranked, docs: list[int], want: int) -> Ranked:
    """``ranked`` with ``docs`` (papers the query links to) first, at the best
    score, and counted in the total."""
    if not docs:
        return ranked
    top = ranked.scored[0][0] if ranked.scored else 1.0
    rest = [(s, d) for s, d in ranked.scored if d not in docs]
    extra = sum(1 for d in docs if d not in ranked.matched)
    matched = dict(ranked.matched)
    matched.update({d: ranked.groups for d in docs})
    return Ranked([(top, d) for d in docs] + rest[:max(0, want - len(docs))],
                  ranked.total + extra, ranked.timed_out, matched, ranked.groups,
                  ranked.phrase_capped, True)


def best(scores: dict, want: int, key_of) -> list[tuple[float, int]]:
    """The best ``want`` (score, docnum) pairs, best first, ties by ``key_of``.

    Scores are compared rounded to 6 decimals, so float noise never decides
    an order; every paper tied with the last one kept is considered.
    """
    if want <= 0 or not scores:
        return []
    if hasattr(scores, "candidates"):   # impacts.DenseScores: the same cut in numpy
        items = scores.candidates(want)
    elif len(scores) > want:
        top = heapq.nlargest(want, scores.items(), key=itemgetter(1))
        edge = round(top[-1][1], 6) - 1e-6
        items = [(d, s) for d, s in scores.items() if s >= edge]
    else:
        items = list(scores.items())
    items.sort(key=lambda item: (-round(item[1], 6), key_of(item[0])))
    return [(round(s, 6), d) for d, s in items[:want]]


def to_hits(searcher, ranked: Ranked, compiled: Compiled, start: int, stop: int) -> list[Hit]:
    """``Hit`` objects (paper, score, snippet) of ``ranked.scored[start:stop]``."""
    analyzer = searcher.schema["abstract"].analyzer
    hits = []
    for score, docnum in ranked.scored[start:stop]:
        paper = paper_from_json(searcher.stored_fields(docnum)["doc"])
        hits.append(Hit(paper, round(score, 6),
                        make_snippet(paper.abstract, compiled.highlight, analyzer)))
    return hits
