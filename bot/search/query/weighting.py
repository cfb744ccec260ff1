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

from bot.search.query.plan import Phrase, Plan, Term
from bot.search.scoring.knobs import Ranking

#: Most groups whose words a snippet marks: a query with more (a pasted
#: paragraph) marks those of its ``HIGHLIGHT_GROUPS`` most informative ones.
HIGHLIGHT_GROUPS = 8
#: ... among the groups in at most this share of the papers (when any is):
#: the cut-off of the former "common terms" rule (docs/search.md).
COMMON_SHARE = 0.05


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
        keep = sorted(_by_information(groups, weights, reader)[0][: r.max_groups])
        groups, weights = [groups[k] for k in keep], [weights[k] for k in keep]
    return Plan(groups=groups, excluded=plan.excluded, weights=weights)


def informative(plan: Plan, reader, n: int = HIGHLIGHT_GROUPS) -> list[int] | None:
    """Indices of the at most ``n`` groups of a weighed ``plan`` with the
    highest ``idf × weight`` (the order ``weigh`` keeps groups in) among
    those in at most ``COMMON_SHARE`` of the papers — among all that some
    paper has when none is that rare — or None when ``plan`` has ``n``
    groups or fewer. Snippets of a long query mark only these groups' words
    (docs/search.md "Long text").

    Args:
        plan: a plan after ``weigh``.
        reader: the generation's Whoosh reader (document frequencies).
        n: groups kept at most.
    """
    groups = plan.groups
    if len(groups) <= n:
        return None
    weights = plan.weights or [1.0] * len(groups)
    order, dfs = _by_information(groups, weights, reader)
    common = COMMON_SHARE * reader.doc_count_all()
    found = [k for k in order if dfs[k]]
    return ([k for k in found if dfs[k] <= common] or found)[:n]


def _by_information(groups: list, weights: list, reader) -> tuple[list[int], list[int]]:
    """Group indices by ``idf × weight``, highest first (groups no paper has
    last: they cost nothing and match nothing), and each group's df."""
    docs = max(1, reader.doc_count_all())
    dfs = [_df(reader, node) for node, _ in groups]
    order = sorted(range(len(groups)), key=lambda k: (dfs[k] == 0, -weights[k] * math.log(1 + docs / (1 + dfs[k])), k))
    return order, dfs


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
