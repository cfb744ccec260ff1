"""The postings scorer: a query ``Plan`` scored term at a time (BM25F, the
formula of ``bot.search.scoring.shared``) over Whoosh's postings.

Why not Whoosh's own matchers: for OR queries its block-max skipping almost
never skips, so every matching paper is scored through a tree of Python
matcher objects — measured p95 ≈ 0.9 s CPU at 100k arXiv abstracts. Here each
posting block is decoded once and scored in a tight loop, which also gives
exact totals and coordination over every match for free. Blocks are read by
``bot.search.index.whoosh_internals.posting_blocks`` (which falls back to
Whoosh's public matcher API on an untested Whoosh version). It scores the
plans the dense scorer (``bot.search.scoring.impacts``) cannot; which one runs
is chosen by ``bot.search.scoring.rank.score``.
"""

from __future__ import annotations

import time

from bot.core import budget
from bot.search.index.whoosh_internals import posting_blocks
from bot.search.query.plan import AllOf, AnyOf, Phrase, Plan, Term
from bot.search.scoring.shared import DocScores, Members, PlanScores, Scoring, scored_groups


class Scorer:
    """Scores plans over the postings of one search's ``Scoring`` (its
    searcher, norms, ranking, deadline and flags, which it reads and sets;
    not thread-safe, like the searcher).

    Args:
        state: the search's state, shared with the dense scorer.
    """

    def __init__(self, state: Scoring) -> None:
        self.state = state

    def run(self, plan: Plan, exclude: int | None = None) -> PlanScores:
        """Every matching docnum with its score (coordination applied),
        checking the time limit and the CPU budget as it goes.

        Args:
            plan: the query plan.
            exclude: a docnum never returned (the paper itself, for ``similar``).
        """
        st = self.state
        total, matched, found = self._plan(plan)
        if exclude is not None:
            total.pop(exclude, None)
        n = len(found)
        if st.r.coord and n > 1:
            c = st.r.coord
            total = {d: s * (matched[d] / n) ** c for d, s in total.items()}
        size = st.reader.doc_count_all()
        return PlanScores(
            scores=DocScores.from_dict(total, size),
            matched=DocScores.from_dict(matched, size),
            groups=n,
            found=[(node, Members.of(got)) for node, got in found],
            timed_out=st.timed_out,
            phrase_capped=st.phrase_capped,
        )

    def add(self, scores: PlanScores, node) -> None:
        """Add ``node``'s scores into ``scores`` (pseudo-relevance feedback).

        Args:
            scores: what ``run`` gave; changed in place.
            node: the plan node whose documents' scores are added (deleted ones never).
        """
        extra: dict = {}
        self._into(node, extra)
        total, deleted = scores.scores, self.state.norms.deleted(self.state.reader)
        for d, s in extra.items():
            if d not in deleted:
                total.add(d, s)

    # --- evaluation ----------------------------------------------------------

    def _plan(self, plan: Plan):
        """``(scores, groups matched, [(group node, its scores)])`` of ``plan``."""
        got_all, found = [], []
        groups = scored_groups(plan)
        for k, (node, must) in enumerate(groups):
            got: dict = {}
            self._into(node, got)
            w = plan.weights[k] if plan.weights else 1.0
            if w != 1.0:
                got = {d: s * w for d, s in got.items()}
            got_all.append((got, must))
            found.append((node, got))
        # the biggest first: copying a dict is C speed, adding into one is not
        got_all.sort(key=lambda item: -len(item[0]))
        total: dict = dict(got_all[0][0]) if got_all else {}
        matched: dict = dict.fromkeys(total, 1)
        for got, _ in got_all[1:]:
            get, mget = total.get, matched.get
            for d, s in got.items():
                total[d] = get(d, 0.0) + s
                matched[d] = mget(d, 0) + 1
        drop = set(self.state.norms.deleted(self.state.reader))
        for node in plan.excluded:
            gone: dict = {}
            self._into(node, gone)
            drop.update(gone)
        for got, must in got_all:
            if must:
                drop.update(d for d in total if d not in got)
        for d in drop:
            total.pop(d, None)
        return total, matched, found

    def _into(self, node, acc: dict) -> None:
        if isinstance(node, Term):
            self._term(node, acc)
        elif isinstance(node, AnyOf):
            # the longest posting list first, into the still-empty dict
            for part in sorted(node.parts, key=self.state.size, reverse=True):
                self._into(part, acc)
        elif isinstance(node, AllOf):
            self._all(node.parts, acc, None)
        elif isinstance(node, Phrase):
            parts = tuple(Term(node.field, t, node.boost) for t in dict.fromkeys(node.terms))
            got: dict = {}
            self._all(parts, got, None)
            _add(acc, {d: got[d] for d in self.state.phrase_docs(node, got)})
        elif isinstance(node, Plan):
            _add(acc, self._plan(node)[0])
        else:  # pragma: no cover - compile only makes the node types above
            raise TypeError(f"unknown plan node {node!r}")

    def _all(self, parts, acc: dict, only: set | None) -> None:
        """Documents in every part; the rarest part is scored in full, the
        others only for documents still in the running."""
        parts = sorted(parts, key=lambda p: self.state.size(p) or 1 << 60)
        if not parts:
            return
        keep: dict = {}
        self._into(parts[0], keep)
        if only is not None:
            keep = {d: s for d, s in keep.items() if d in only}
        for part in parts[1:]:
            if not keep:
                return
            got: dict = {}
            if isinstance(part, Term):
                self._term(part, got, only=keep)
            else:
                self._into(part, got)
            keep = {d: s + got[d] for d, s in keep.items() if d in got}
        _add(acc, keep)

    def _term(self, term: Term, acc: dict, only: dict | None = None) -> None:
        """Add ``term``'s BM25F score of each of its documents into ``acc``
        (only documents in ``only``, when given)."""
        st = self.state
        factors = st.term_factors(term)
        if factors is None:
            return
        c, norms = factors
        fresh = not acc  # one term's blocks never share a document
        get = acc.get
        for ids, weights in posting_blocks(st.leaves, term.field, term.text):
            if only is not None:
                pairs = [(d, tf) for d, tf in zip(ids, weights) if d in only]
                ids, weights = [d for d, _ in pairs], [tf for _, tf in pairs]
            scores = [c * tf / (tf + norms[d]) for d, tf in zip(ids, weights)]
            if fresh:
                acc.update(zip(ids, scores))
            else:
                for d, sc in zip(ids, scores):
                    acc[d] = get(d, 0.0) + sc
            if time.perf_counter() > st.deadline or budget.exhausted():  # bot.core.budget: CPU per request
                st.timed_out = True
                return


def _add(acc: dict, got: dict) -> None:
    """``acc += got`` per document."""
    if not acc:
        acc.update(got)
        return
    get = acc.get
    for d, s in got.items():
        acc[d] = get(d, 0.0) + s
