"""Dense scores: what ``bot.search.impacts`` returns in place of the
``{docnum: score}`` dicts of the postings path, with the dict operations the
ranking uses (``results.best``, ``results.confident``, ``results.pin``).
"""

from __future__ import annotations

import numpy as np


class DenseScores:
    """Scores of every document as arrays; the dict operations the ranking
    uses (``len``, ``in``, ``get``, ``items``, ``pop``) over the matching ones."""

    def __init__(self, total: np.ndarray, hit: np.ndarray) -> None:
        self.total, self.hit = total, hit

    def __len__(self) -> int:
        return int(np.count_nonzero(self.hit))

    def __bool__(self) -> bool:
        return bool(self.hit.any())

    def __contains__(self, d) -> bool:
        return 0 <= d < len(self.hit) and bool(self.hit[d])

    def get(self, d, default=None):
        return float(self.total[d]) if d in self else default

    def __getitem__(self, d):
        if d not in self:
            raise KeyError(d)
        return self.total[d].item()

    def keys(self):
        return np.flatnonzero(self.hit).tolist()

    def __iter__(self):
        return iter(self.keys())

    def items(self):
        docs = np.flatnonzero(self.hit)
        return zip(docs.tolist(), self.total[docs].tolist())

    def pop(self, d, default=None):
        value = self.get(d, default)
        if d in self:
            self.hit[d] = False
        return value

    def candidates(self, want: int) -> list[tuple[int, float]]:
        """``(docnum, score)`` of the best ``want`` and every one whose score,
        rounded to 6 decimals, ties with the last of them (``results.best``)."""
        docs = np.flatnonzero(self.hit)
        scores = self.total[docs]
        if len(docs) > want:
            kth = float(np.partition(scores, len(scores) - want)[len(scores) - want])
            keep = scores >= round(kth, 6) - 1e-6
            docs, scores = docs[keep], scores[keep]
        return list(zip(docs.tolist(), scores.tolist()))


class Members:
    """The documents one group matched (sorted docnums): ``d in members``."""

    def __init__(self, docs: np.ndarray) -> None:
        self.docs = docs

    def __contains__(self, d) -> bool:
        i = int(np.searchsorted(self.docs, d))
        return i < len(self.docs) and int(self.docs[i]) == d

    def __len__(self) -> int:
        return len(self.docs)
