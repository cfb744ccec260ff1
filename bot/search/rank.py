"""Ranking a compiled query: scores, pseudo-relevance feedback, the page's
top hits with ties broken by id, and the "similar papers" plan.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from bot.models import Paper
from bot.search.compile import Compiled
from bot.search.norms import Norms
from bot.search.plan import AnyOf, Plan, Term
from bot.search.ranking import Ranking
from bot.search.schema import paper_from_json
from bot.search.scorer import Scorer
from bot.search.scorer import top as top_scores


@dataclass
class Result:
    """Ranked hits of one query.

    Attributes:
        scored: ``[(score, docnum)]``, best first, the first ``want`` only.
        total: number of matching papers (exact).
        timed_out: scoring stopped at ``ranking.time_limit_s``.
        coverage: docnum -> share of the query's groups it matches.
        phrase_capped: a phrase was only checked in the best candidates.
    """

    scored: list
    total: int
    timed_out: bool = False
    coverage: dict = field(default_factory=dict)
    phrase_capped: bool = False


def top(searcher, norms: Norms, compiled: Compiled, want: int, r: Ranking, *,
        exclude: int | None = None, feedback: bool = True) -> Result:
    """Score ``compiled`` and return its best ``want`` hits.

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
    ids = searcher.reader().column_reader("id")
    key_of = lambda d: _text(ids[d])  # noqa: E731 - tiny sort key
    if feedback and r.prf_docs > 0 and result.scores:
        first = top_scores(result.scores, r.prf_docs, key_of)
        papers = [paper_from_json(searcher.stored_fields(d)["doc"]) for _, d in first]
        terms = key_terms(searcher, [(p.abstract, 1.0) for p in papers], r.prf_terms)
        scorer.add(result, AnyOf(tuple(Term("abstract", t, r.prf_weight * w)
                                       for t, w in terms)))
        if exclude is not None:
            result.scores.pop(exclude, None)
    scored = top_scores(result.scores, want, key_of)
    n = max(1, result.groups)
    coverage = {d: result.matched.get(d, 0) / n for _, d in scored}
    return Result(scored, len(result.scores), result.timed_out, coverage,
                  result.phrase_capped)


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def key_terms(searcher, texts, n: int) -> list[tuple[str, float]]:
    """Top ``n`` tf-idf terms of weighted ``texts`` against the abstract field.

    Args:
        texts: ``[(text, weight)]``; a term's tf is the weighted count.
        n: terms returned.

    Returns:
        ``[(stemmed term, weight)]``, best first, weights scaled to max 1.0.
    """
    analyzer = searcher.schema["abstract"].analyzer
    reader = searcher.reader()
    tf: Counter = Counter()
    for text, weight in texts:
        for t in analyzer(text, mode="query"):
            if len(t.text) > 2 and not t.text.isdigit():
                tf[t.text] += weight
    docs = max(1, reader.doc_count_all())
    scored = []
    for term, freq in tf.items():
        df = reader.doc_frequency("abstract", term)
        if df:
            scored.append((freq * math.log((docs + 1) / df), term))
    scored.sort(key=lambda x: (-x[0], x[1]))
    best = scored[:n]
    if not best:
        return []
    scale = best[0][0] or 1.0
    return [(term, w / scale) for w, term in best]


def similar_plan(searcher, paper: Paper, r: Ranking) -> Compiled | None:
    """The paper's key terms, weighted, over abstract and title (one group)."""
    texts = [(paper.abstract, 1.0), (paper.title, r.similar_title_weight)]
    terms = key_terms(searcher, texts, r.similar_terms)
    if not terms:
        return None
    title_weight = r.weights.get("title", 1.0) / 2
    parts = []
    for term, weight in terms:
        parts.append(Term("abstract", term, weight))
        parts.append(Term("title", term, weight * title_weight))
    return Compiled(Plan(groups=[(AnyOf(tuple(parts)), False)]), {t for t, _ in terms})
