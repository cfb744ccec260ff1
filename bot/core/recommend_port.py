"""The recommender as the service sees it (issue 22): a ``Protocol`` (PEP 544) that
``bot.recommend.Recommender`` fits once ``bot.runtime.recommending`` has wrapped it,
so ``bot.service`` never imports ``bot.recommend`` (nor scikit-learn, nor numpy:
tests/test_structure.py).

The shapes are the contract between the recommendation branches
(``bot.recommend``: ``Pick(paper_id, score, why)``, ``Why(terms, like)``): a pick is
read through its attributes only, so the model's own frozen dataclasses cross as they
are. "Too few positives" crosses as ``TooFewPositives`` of this module, which the
runtime's adapter raises in place of the model's own.

Leaf module: no third-party imports.
"""

from __future__ import annotations

from typing import Collection, Protocol, Sequence

#: Positives a model needs before it recommends anything (issue 22 point 2).
MIN_POSITIVES = 3


class TooFewPositives(Exception):
    """Fewer known positives than a model needs: say so, never pretend.

    Args:
        have: positives known to the index.
        needed: positives needed (``MIN_POSITIVES``).
    """

    def __init__(self, have: int, needed: int = MIN_POSITIVES) -> None:
        super().__init__(f"{have} of {needed} positives")
        self.have = have
        self.needed = needed


class Why(Protocol):
    """Why a paper was picked.

    Attributes:
        terms: 3-5 words or phrases that weighed most, each occurring in the paper.
        like: the id of the positive the paper is most like, or None.
    """

    terms: tuple[str, ...]
    like: str | None


class Pick(Protocol):
    """One recommended paper.

    Attributes:
        paper_id: the paper's id.
        score: the model's score (higher is better; comparable within one call).
        why: the explanation (``Why``).
    """

    paper_id: str
    score: float
    why: Why


class PaperRecommender(Protocol):
    """Ranks the index for one reader from their positives and negatives."""

    def recommend(
        self,
        positives: Sequence[str],
        negatives: Sequence[str] = (),
        exclude: Collection[str] = (),
        limit: int = 5,
    ) -> list[Pick]:
        """The best ``limit`` papers for a reader, best first.

        Args:
            positives: paper ids the reader liked (ids unknown to the index are ignored).
            negatives: paper ids the reader turned down.
            exclude: paper ids never to return (already shown or posted).
            limit: most picks.

        Raises:
            TooFewPositives: fewer than ``MIN_POSITIVES`` positives are in the index.
        """
        ...
