"""Recommendations learned from what a reader saved, shared and reacted to
(docs/recommend.md).

Public API:

* ``Recommender(index)`` — ``recommend(positives, negatives=(), exclude=(), limit=5)``
  -> ``list[Pick]``, best first; ``matrix()`` (the per-generation TF-IDF rows).
* ``Pick(paper_id, score, why)``, ``Why(terms, like)``.
* ``TooFewPositives`` (``.have``, ``.needed`` = ``MIN_POSITIVES`` = 3).

Modules:

* ``model``: TF-IDF rows from the index's term counts, the linear SVM, scores.
* ``explain``: the words that weighed most and the positive a paper is most like.
* ``recommender``: ``Recommender``, ``Pick``.
"""

from bot.recommend.explain import Why
from bot.recommend.model import MIN_POSITIVES, TooFewPositives
from bot.recommend.recommender import Pick, Recommender

__all__ = ["MIN_POSITIVES", "Pick", "Recommender", "TooFewPositives", "Why"]
