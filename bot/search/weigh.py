"""Query-term frequency and the bound on a long query's work.

A pasted paragraph is a query (docs/search.md, "Long text"): every distinct
word, phrase or group of the text counts once, weighted by how often the text
says it with BM25's query-term saturation ``(k3 + 1) n / (k3 + n)`` (k3 from
``Ranking.qtf_k3``; Robertson et al., "Okapi at TREC-3", 1995). At most
``Ranking.max_groups`` groups are scored: those with the highest
``idf × weight`` among those some paper has, so the rarest, most repeated
words of a long text are kept.
"""
from __future__ import annotations

import math

from bot.search.plan import Phrase, Plan, Term
from bot.search.tuning import Ranking


def weigh(plan: Plan, reader, r: Ranking) -> Plan:
    """``plan`` with repeated groups merged into one weighted group each, in
    first-seen order, cut to the ``r.max_groups`` best by ``idf × weight``.

    Args:
        plan: the compiled query (its top-level groups).
        reader: the generation's Whoosh reader (document frequencies).
        r: ``qtf_k3`` and ``max_groups``.
    """
    counts: dict = {}
    for group in plan.groups:
        key = _key(group)
        counts[key] = counts.get(key, 0) + 1
    k3 = r.qtf_k3
    groups, weights, seen = [], [], set()
    for group in plan.groups:
        key = _key(group)
        if key not in seen:
            seen.add(key)
            n = counts[key]
            groups.append(group)
            weights.append(float(n) if k3 is None else (k3 + 1) * n / (k3 + n))
    if len(groups) > r.max_groups:
        docs = max(1, reader.doc_count_all())
        dfs = [_df(reader, node) for node, _ in groups]
        # groups no paper has cost nothing and match nothing: they yield first
        best = sorted(range(len(groups)), key=lambda k: (
            dfs[k] == 0, -weights[k] * math.log(1 + docs / (1 + dfs[k])), k))
        keep = sorted(best[:r.max_groups])
        groups, weights = [groups[k] for k in keep], [weights[k] for k in keep]
    return Plan(groups, plan.excluded, weights)


def _df(reader, node) -> int:
    """The largest document frequency among ``node``'s terms (0: none)."""
    if isinstance(node, Term):
        return reader.doc_frequency(node.field, node.text)
    if isinstance(node, Phrase):
        return max(reader.doc_frequency(node.field, t) for t in node.terms)
    parts = getattr(node, "parts", None) or [g for g, _ in getattr(node, "groups", [])]
    return max((_df(reader, p) for p in parts), default=0)


def _key(group):
    """A hashable identity of a plan group (a parenthesised group: itself)."""
    try:
        hash(group)
        return group
    except TypeError:
        return id(group)
