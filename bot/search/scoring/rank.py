"""Ranking: score a compiled query — choosing the scorer (``score``: the
impact arrays when they can answer, else the postings) — order its best
documents (ties by id), put the papers it links to first, and say how sure
the best one is and how the list was found (notes). Hits are made from the
result by ``bot.search.scoring.hits``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from bot.core import budget
from bot.search.index.schema import paper_from_json
from bot.search.query.plan import AnyOf, Compiled, Plan, Term
from bot.search.scoring.impacts import dense_run
from bot.search.scoring.knobs import Ranking
from bot.search.scoring.norms import Norms
from bot.search.scoring.postings import Scorer
from bot.search.scoring.shared import DocScores, PlanScores, Scoring
from bot.search.scoring.similar import key_terms


@dataclass
class Ranked:
    """Ranked documents of one query.

    Attributes:
        scored: ``[(score, docnum)]``, best first, the first ``want`` only.
        total: number of matching papers (exact).
        matched: docnum -> how many of the query's ``groups`` it matches
            (``coverage``).
        timed_out: scoring stopped at ``ranking.time_limit_s``.
        phrase_capped: a phrase was only checked in the best candidates.
        confident: the best document matches nearly all the query's content
            groups (see ``confident``).
        exact: when the list was filled with papers that match a quoted
            phrase's words (``rank(fill=True)``), how many have the exact
            phrase (they come first); None otherwise.
        phrases: the number of quoted phrases read as words then.
        content: how many of the query's content groups the best document
            matches; 0 for small talk (see ``content_match``).
        complete: with ``rank(tiers=n)`` and at most ``n`` groups, how many
            papers match every group (ranked first); None otherwise.
    """

    scored: list
    total: int
    matched: DocScores
    timed_out: bool = False
    groups: int = 1
    phrase_capped: bool = False
    confident: bool = False
    exact: int | None = None
    phrases: int = 0
    content: int = 0
    complete: int | None = None

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


def rank(
    searcher,
    norms: Norms,
    compiled: Compiled,
    want: int,
    r: Ranking,
    *,
    exclude: int | None = None,
    feedback: bool = True,
    fill: bool = False,
    tiers: int = 0,
) -> Ranked:
    """Score ``compiled`` and return its best ``want`` documents.

    With ``fill``, a query with optional quoted phrases (``compiled.loose``)
    ranks the papers with an exact phrase first and then every other paper
    that matches the words (``_filled``; docs/search.md "Phrases") — always,
    so the total is the same on every page.

    Args:
        searcher: open Whoosh searcher of the generation.
        norms: the generation's length-norm cache.
        compiled: the query.
        want: offset + limit of the page asked for.
        r: ranking settings.
        exclude: a docnum never returned (the paper itself, for ``similar``).
        feedback: allow pseudo-relevance feedback (``r.prf_docs``).
        fill: fill the list with the words of quoted phrases (searches).
        tiers: a query of at most this many groups ranks the papers matching
            all of them first, then those matching some (``Ranked.complete``;
            docs/search.md "Counts"); 0: one BM25F order.
    """
    state = Scoring(searcher, norms, r)
    result = score(state, compiled.plan, exclude)
    # ties by paper id (str; bytes sort in the same order: UTF-8 keeps code point order)
    key_of = searcher.reader().column_reader("id").__getitem__
    if feedback and r.prf_docs > 0 and result.scores:
        first = best(result.scores, r.prf_docs, key_of)
        papers = [paper_from_json(searcher.stored_fields(d)["doc"]) for _, d in first]
        terms = key_terms(searcher, [(p.abstract, 1.0) for p in papers], r.prf_terms)
        Scorer(state).add(result, AnyOf(tuple(Term("abstract", t, r.prf_weight * w) for t, w in terms)))
        if exclude is not None:
            result.scores.pop(exclude, None)
    if fill and compiled.loose is not None:
        return _filled(state, result, compiled, want, exclude, key_of)
    complete = None
    if 0 < result.groups <= tiers:
        full = result.scores.only(np.flatnonzero(result.matched.hit & (result.matched.values >= result.groups)))
        complete = len(full)
        scored = best(full, want, key_of)
        scored += best(result.scores.without(full), want - len(scored), key_of)
    else:
        scored = best(result.scores, want, key_of)
    m, g = content_match(result.found, compiled, scored[0][1]) if scored else (0, 0)
    return Ranked(
        complete=complete,
        scored=scored,
        total=len(result.scores),
        matched=result.matched,
        timed_out=result.timed_out,
        groups=result.groups,
        phrase_capped=result.phrase_capped,
        confident=_sure(m, g),
        content=m,
    )


def score(state: Scoring, plan: Plan, exclude: int | None = None) -> PlanScores:
    """``plan``'s scores, by the dense scorer on the impact arrays
    (``bot.search.scoring.impacts.dense_run``) when ``Ranking.impacts`` is on
    and it can answer, else by the postings scorer
    (``bot.search.scoring.postings.Scorer``), built only then. Both read and
    set the same ``state``, give the same scores in the same order and return
    ``PlanScores`` (``tests/search/scoring/test_impacts.py``). The dense path
    scores a few array sums per word group, at most ``max_clauses`` groups, so
    the CPU budget is checked once before it; the postings path checks it as
    it runs.

    Args:
        state: the search's state (searcher, norms, ranking, deadline, flags).
        plan: the query plan.
        exclude: a docnum never returned (the paper itself, for ``similar``).
    """
    dense = dense_run(state, plan, exclude) if state.r.impacts and not budget.exhausted() else None
    if dense is not None:
        return dense
    return Scorer(state).run(plan, exclude=exclude)


def _filled(state: Scoring, exact: PlanScores, compiled: Compiled, want: int, exclude, key_of) -> Ranked:
    """The papers with an exact phrase (``exact``: the scores of the query as
    typed), then the others that match ``compiled.loose`` (the phrases as
    words), each part ordered by its ``loose`` BM25F score, ties by id."""
    loose = score(state, compiled.loose, exclude)
    held: set = set()
    for k in compiled.phrased:
        held.update(exact.found[k][1].docs.tolist())
    first = loose.scores.only(d for d in held if d in exact.scores)
    rest = loose.scores.without(first)
    scored = best(first, want, key_of)
    scored += best(rest, want - len(scored), key_of)
    top = scored[0][1] if scored else None
    m, g = (0, 0) if top is None else content_match(exact.found if top in first else loose.found, compiled, top)
    return Ranked(
        scored=scored,
        total=len(first) + len(rest),
        matched=loose.matched,
        timed_out=exact.timed_out or loose.timed_out,
        groups=loose.groups,
        phrase_capped=exact.phrase_capped,
        confident=_sure(m, g),
        exact=len(first) if rest else None,
        phrases=len(compiled.phrased),
        content=m,
    )


def notes(ranked: Ranked, checks: int) -> list[str]:
    """What the page should say about how ``ranked`` was found: stopped at
    the time limit, phrases checked in the best ``checks`` candidates only,
    a list filled with papers matching a phrase's words (docs/search.md).

    Args:
        ranked: the ranking.
        checks: candidates a phrase is checked in at most (``MAX_PHRASE_CHECKS``).
    """
    out = []
    if ranked.timed_out:
        out.append("The search took too long and was stopped; results may be incomplete.")
    if ranked.phrase_capped:
        out.append(f"A phrase was checked in the best {checks} matches only.")
    if ranked.exact is not None:
        what, words = ("the exact phrase", "its") if ranked.phrases == 1 else ("one of the exact phrases", "their")
        if ranked.exact == 0:
            out.append(f"No paper has {what}; these papers match {words} words.")
        else:
            has = "paper has" if ranked.exact == 1 else "papers have"
            out.append(f"{ranked.exact} {has} {what}; the rest match {words} words.")
    return out


def content_match(found: list, compiled: Compiled, docnum: int) -> tuple[int, int]:
    """``(matched, n)``: how many of the query's ``n`` content groups
    ``docnum`` matches (as the scorer matched it: stems, acronym expansions,
    compounds), where groups of a chat word (``Compiled.chatter``) do not
    count; ``(0, 0)`` for small talk (at most two content groups and a
    greeting: "hello world", "thanks a lot"). Source: docs/search.md
    ("Mentions: is the best hit the paper meant?").

    Args:
        found: ``PlanScores.found`` of the query, ``[(group node, Members)]``.
        compiled: the query (its chatter and greeting).
        docnum: the best document.
    """
    groups = matched = 0
    for node, got in found:
        if node not in compiled.chatter:
            groups += 1
            matched += docnum in got
    if not groups or (compiled.greeting and groups <= 2):
        return 0, 0
    return matched, groups


def confident(found: list, compiled: Compiled, docnum: int) -> bool:
    """Is ``docnum`` the paper a conversational query (a mention) means? True
    when it matches at least ``ceil(2/3 * n)`` of the ``n`` content groups
    (``content_match``) — 1 of 1, 2 of 2, 2 of 3, 3 of 4 — never for small talk.

    Args:
        found: ``PlanScores.found`` of the query, ``[(group node, Members)]``.
        compiled: the query (its chatter and greeting).
        docnum: the best document.
    """
    return _sure(*content_match(found, compiled, docnum))


def _sure(matched: int, groups: int) -> bool:
    return groups > 0 and matched >= math.ceil(groups * 2 / 3)


def pin(ranked: Ranked, docs: list[int], want: int) -> Ranked:
    """``ranked`` with ``docs`` (papers the query links to) first, at the best
    score, and counted in the total.

    Args:
        ranked: the ranking.
        docs: docnums of the linked papers, in the text's order.
        want: offset + limit of the page asked for.
    """
    if not docs:
        return ranked
    top = ranked.scored[0][0] if ranked.scored else 1.0
    rest = [(s, d) for s, d in ranked.scored if d not in docs]
    extra = sum(1 for d in docs if d not in ranked.matched)
    matched = ranked.matched.copy()
    for d in docs:
        matched[d] = ranked.groups
    return replace(
        ranked,
        scored=[(top, d) for d in docs] + rest[: max(0, want - len(docs))],
        total=ranked.total + extra,
        matched=matched,
        confident=True,
    )


def best(scores: DocScores, want: int, key_of) -> list[tuple[float, int]]:
    """The best ``want`` (score, docnum) pairs, best first, ties by ``key_of``.

    Scores are compared rounded to 6 decimals, so float noise never decides
    an order; every paper tied with the last one kept is considered
    (``DocScores.candidates``).

    Args:
        scores: the documents' scores.
        want: pairs returned at most.
        key_of: docnum -> the paper id (the order of ties).
    """
    if want <= 0 or not scores:
        return []
    items = scores.candidates(want)
    items.sort(key=lambda item: (-round(item[1], 6), key_of(item[0])))
    return [(round(s, 6), d) for d, s in items[:want]]
