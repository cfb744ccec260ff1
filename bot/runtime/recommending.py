"""The recommender the service uses (issue 22): ``bot.recommend.Recommender`` over the
service's index, behind ``bot.core.recommend_port.PaperRecommender``.

The one place where the model meets the service: the model's own ``TooFewPositives`` becomes
the port's (``bot.core.recommend_port.TooFewPositives``), so ``bot.service`` imports neither
``bot.recommend`` nor scikit-learn (tests/test_structure.py). The model is built on first use,
so a process that never recommends never loads scikit-learn.
"""

from __future__ import annotations

import threading
from typing import Collection, Sequence

from bot.core.recommend_port import Pick, TooFewPositives


class IndexRecommender:
    """``PaperRecommender`` over ``bot.recommend.Recommender(index)``.

    Args:
        index: the service's ``bot.search.SearchIndex``.
    """

    def __init__(self, index) -> None:
        self._index = index
        self._model = None
        self._lock = threading.Lock()

    def _recommender(self):
        with self._lock:
            if self._model is None:
                from bot.recommend import Recommender  # scikit-learn loads on first use only

                self._model = Recommender(self._index)
            return self._model

    def warm(self) -> None:
        """Load the model and make the live generation's rows (``bot.recommend.Recommender.warm``),
        so the first ``/paper foryou`` does not pay for them."""
        self._recommender().warm()

    def recommend(
        self,
        positives: Sequence[str],
        negatives: Sequence[str] = (),
        exclude: Collection[str] = (),
        limit: int = 5,
    ) -> list[Pick]:
        """``bot.recommend.Recommender.recommend`` with the port's exception.

        Args:
            positives: liked paper ids, passed on.
            negatives: turned-down paper ids, passed on.
            exclude: ids the model must not return, passed on.
            limit: how many picks at most, passed on.

        Raises:
            TooFewPositives: the model's own, raised as the port's (``bot.core.recommend_port``).
        """
        from bot.recommend import TooFewPositives as ModelTooFew

        try:
            return list(self._recommender().recommend(positives, negatives, exclude=exclude, limit=limit))
        except ModelTooFew as few:
            raise TooFewPositives(few.have, few.needed) from None
