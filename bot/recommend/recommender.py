"""``Recommender``: a reader's positives and negatives -> ranked ``Pick``s.

One model per request (a user's or a channel's signals; the caller says whose),
trained on demand: nothing is stored but the per-generation matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Sequence

import numpy as np

from bot.recommend.explain import Why, labels, most_like, top_stems
from bot.recommend.model import MIN_POSITIVES, Matrix, TooFewPositives, rows_of, scores, train

#: Largest page.
MAX_LIMIT = 100
#: The key of the rows kept with a generation (``SearchIndex.from_vectors``).
MATRIX_KEY = "recommend.tfidf"


@dataclass(frozen=True)
class Pick:
    """One recommended paper.

    Attributes:
        paper_id: the paper's id.
        score: the SVM's decision value (higher is better; comparable within one call only).
        why: the words that weighed most and the positive it is most like.
    """

    paper_id: str
    score: float
    why: Why


class Recommender:
    """Recommendations over the papers of a search index.

    Args:
        index: a ``bot.search.SearchIndex`` (``from_vectors``, ``readable``, ``get``).
    """

    def __init__(self, index) -> None:
        self.index = index

    def matrix(self) -> Matrix:
        """The live generation's TF-IDF rows (made on first use — seconds at 100k
        papers, ``benchmarks/results/recommend_speed.txt`` — and kept with the
        generation until a build or ``index add`` replaces it)."""
        return self.index.from_vectors(MATRIX_KEY, Matrix)

    def warm(self) -> None:
        """Make the live generation's rows now, so the first request does not wait."""
        self.matrix()

    def recommend(
        self,
        positives: Sequence[str],
        negatives: Sequence[str] = (),
        exclude: Collection[str] = (),
        limit: int = 5,
    ) -> list[Pick]:
        """The best ``limit`` papers for a reader, best first, each with its reason.

        Args:
            positives: ids of papers the reader values (saved, shared, 👍, "More like this").
            negatives: ids of papers the reader does not want ("Not for me", 👎).
            exclude: ids never returned (papers already shown).
            limit: papers wanted, 1 to ``MAX_LIMIT``.

        Returns:
            ``Pick``s, never a positive, a negative or an excluded id; fewer
            than ``limit`` only when the index has no more papers.

        Raises:
            TooFewPositives: fewer than ``MIN_POSITIVES`` positives the index knows
                (ids it does not know are ignored).
        """
        limit = max(1, min(int(limit), MAX_LIMIT))
        matrix = self.matrix()
        pos = rows_of(matrix, positives)
        if len(pos) < MIN_POSITIVES:
            raise TooFewPositives(len(pos))
        neg = [d for d in rows_of(matrix, negatives) if d not in set(pos)]
        model = train(matrix, pos, neg)
        ranked = scores(matrix, model)
        ranked[pos + neg + rows_of(matrix, exclude)] = -np.inf
        want = min(limit, int(np.isfinite(ranked).sum()))
        if want <= 0:
            return []
        top = np.argpartition(-ranked, want - 1)[:want]
        top = top[np.lexsort((top, -ranked[top]))].tolist()
        papers = self.index.at([(d, matrix.ids[d]) for d in top])
        like = most_like(matrix, top, pos)
        return [
            Pick(
                paper_id=matrix.ids[d],
                score=float(ranked[d]),
                why=Why(terms=self._terms(matrix, model, d, paper), like=near),
            )
            for d, paper, near in zip(top, papers, like)
        ]

    def _terms(self, matrix: Matrix, model, doc: int, paper) -> tuple[str, ...]:
        text = f"{paper.title}\n{paper.abstract}" if paper else ""
        return labels(self.index.readable, text, *top_stems(matrix, model, doc))
