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
        idf = np.log((1.0 + n) / (1.0 + vectors.df.astype(np.float64))) + 1.0
        cols = np.repeat(np.arange(width), np.diff(vectors.indptr))
        tf = np.maximum(vectors.tf.astype(np.float64), 1.0)
        data = ((1.0 + np.log(tf)) * idf[cols]).astype(np.float32)
        x = sparse.csc_matrix((data, vectors.docs, vectors.indptr), shape=(n, width)).tocsr()
        x.data[np.repeat(~vectors.live, np.diff(x.indptr))] = 0.0
        lengths = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        lengths[lengths == 0] = 1.0
        self.x = sparse.csr_matrix(sparse.diags((1.0 / lengths).astype(np.float32)) @ x, dtype=np.float32)
        self.x.eliminate_zeros()
        self.row = {pid: d for d, pid in enumerate(self.ids) if pid}
        self.live = vectors.live

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
    n = matrix.x.shape[0]
    rng = np.random.default_rng(SEED)
    drawn = rng.choice(n, size=min(draw, n), replace=False) if n else np.zeros(0, np.int64)
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
