"""The "similar papers" query: a paper's key terms, weighted, as one plan
(also the terms pseudo-relevance feedback adds, ``bot.search.scoring.rank``).
"""

from __future__ import annotations

import math
from collections import Counter

from bot.core.models import Paper
from bot.search.query.plan import AnyOf, Compiled, Plan, Term
from bot.search.scoring.knobs import Ranking


def key_terms(searcher, texts, n: int) -> list[tuple[str, float]]:
    """Top ``n`` tf-idf terms of weighted ``texts`` against the abstract field.

    Args:
        searcher: an open Whoosh searcher (the abstract field's analyzer and frequencies).
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
    """The paper's key terms, weighted, over abstract and title (one group).

    Args:
        searcher: an open Whoosh searcher.
        paper: the paper.
        r: ranking settings (``similar_terms``, ``similar_title_weight``).
    """
    texts = [(paper.abstract, 1.0), (paper.title, r.similar_title_weight)]
    terms = key_terms(searcher, texts, r.similar_terms)
    if not terms:
        return None
    parts = []
    for term, weight in terms:  # the title field weighs as the abstract field
        parts.append(Term("abstract", term, weight))
        parts.append(Term("title", term, weight))
    return Compiled(plan=Plan(groups=[(AnyOf(tuple(parts)), False)]), highlight={t for t, _ in terms})
