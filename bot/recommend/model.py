"""The model: TF-IDF rows of the index's papers and a linear SVM per request.

As arxiv-sanity-lite does (docs/recommend.md): every paper is a TF-IDF vector
of its title and abstract (sublinear term frequency, smoothed idf, rows of unit
length), a linear SVM (scikit-learn's ``LinearSVC``, classes balanced) learns
the reader's saved papers against the rest, and its decision value ranks every
paper. The rest is not every paper here but ``NEGATIVES`` of them drawn with a
fixed seed, plus the reader's own "Not for me"s, which weigh ``EXPLICIT_WEIGHT``
times a drawn one: training then takes milliseconds at 100k papers.

The term counts come from the index; the TF-IDF matrix made of them is kept
with the index generation (``SearchIndex.from_vectors``), the counts are not.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

#: Fewer known positives than this: no model (``TooFewPositives``).
MIN_POSITIVES = 3
#: Unlabelled papers drawn as negatives for one model.
NEGATIVES = 2000
#: The draw's seed (the same draw for every request of a generation).
SEED = 22
#: The SVM's regularisation (``LinearSVC(C=...)``), chosen by benchmarks/recommend_bench.py.
C = 0.1
#: How much an explicit "Not for me" weighs against one drawn negative.
EXPLICIT_WEIGHT = 20.0


class TooFewPositives(Exception):
    """The reader has fewer than ``MIN_POSITIVES`` papers the index knows.

    Args:
        have: the known positives given (kept as ``.have``).
        needed: ``MIN_POSITIVES`` (kept as ``.needed``).
    """

    def __init__(self, have: int, needed: int = MIN_POSITIVES) -> None:
        super().__init__(f"{have} known positive paper(s); recommendations need {needed}")
        self.have = have
        self.needed = needed


class Matrix:
    """The TF-IDF rows of one generation's ``PaperVectors`` (float32 CSR,
    papers x terms, rows of unit length; a deleted paper's row is empty).

    Args:
        vectors: ``bot.search.vectors.PaperVectors``.
    """

    def __init__(self, vectors) -> None:
        self.ids, self.terms = vectors.ids, vectors.terms
        n, width = len(vectors.ids), len(vectors.terms)
        idf = (np.log((1.0 + n) / (1.0 + vectors.df.astype(np.float64))) + 1.0).astype(np.float32)
        data = np.log(np.maximum(vectors.tf, np.float32(1.0)))  # float32 throughout: ~10M postings at 100k
        data += np.float32(1.0)
        data *= np.repeat(idf, np.diff(vectors.indptr))
        data[~vectors.live[vectors.docs]] = 0.0
        lengths = np.sqrt(np.bincount(vectors.docs, weights=np.square(data, dtype=np.float64), minlength=n))
        lengths[lengths == 0] = 1.0
        data /= lengths[vectors.docs].astype(np.float32)
        self.x = sparse.csc_matrix((data, vectors.docs, vectors.indptr), shape=(n, width)).tocsr()
        del data
        self.x.eliminate_zeros()
        self.row = {pid: d for d, pid in enumerate(self.ids) if pid}
        self.live = vectors.live
        self._drawn: dict[int, np.ndarray] = {}

    def drawn(self, draw: int) -> np.ndarray:
        """``draw`` docnums drawn with ``SEED``, the same every time for this matrix (cached)."""
        got = self._drawn.get(draw)
        if got is None:
            n = self.x.shape[0]
            got = np.random.default_rng(SEED).choice(n, size=min(draw, n), replace=False) if n else np.zeros(0, int)
            self._drawn[draw] = got
        return got

    def nbytes(self) -> int:
        """Bytes of the matrix's arrays (the id table not counted)."""
        return int(self.x.data.nbytes + self.x.indices.nbytes + self.x.indptr.nbytes)


@dataclass(frozen=True)
class Model:
    """One trained SVM: ``scores = x @ weights + bias`` (decision values)."""

    weights: np.ndarray
    bias: float


def rows_of(matrix: Matrix, ids) -> list[int]:
    """Docnums of the known ``ids``, in order, each once (unknown ones dropped).

    Args:
        matrix: the generation's ``Matrix``.
        ids: paper ids.
    """
    out: dict[int, None] = {}
    for pid in ids:
        d = matrix.row.get(pid)
        if d is not None:
            out.setdefault(d)
    return list(out)


def train(matrix: Matrix, positives: list[int], negatives: list[int], *, draw: int = NEGATIVES, c: float = C) -> Model:
    """A linear SVM of ``positives`` against ``negatives`` and a seeded draw.

    Args:
        matrix: the generation's ``Matrix``.
        positives: docnums, at least one.
        negatives: docnums of explicit negatives (may be empty).
        draw: unlabelled papers drawn as negatives (``NEGATIVES``).
        c: ``LinearSVC``'s ``C``.
    """
    drawn = matrix.drawn(draw)
    taken = np.asarray(positives + negatives, dtype=np.int64)
    drawn = drawn[matrix.live[drawn] & ~np.isin(drawn, taken)]
    rows = np.concatenate([taken, drawn])
    y = np.zeros(len(rows), dtype=np.int8)
    y[: len(positives)] = 1
    weight = np.ones(len(rows))
    weight[len(positives) : len(taken)] = EXPLICIT_WEIGHT
    if not (y == 0).any():  # an index of only the reader's papers
        return Model(weights=np.zeros(matrix.x.shape[1], np.float32), bias=0.0)
    svm = LinearSVC(C=c, class_weight="balanced", tol=1e-4, max_iter=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm.fit(matrix.x[rows], y, sample_weight=weight)
    return Model(weights=svm.coef_.ravel().astype(np.float32), bias=float(svm.intercept_[0]))


def scores(matrix: Matrix, model: Model) -> np.ndarray:
    """Decision value per docnum (float32), deleted papers at ``-inf``.

    Args:
        matrix: the generation's ``Matrix``.
        model: the trained SVM.
    """
    out = (matrix.x @ model.weights).astype(np.float32) + np.float32(model.bias)
    out[~matrix.live] = -np.inf
    return out
