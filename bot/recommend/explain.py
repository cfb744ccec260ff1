"""Why a paper is recommended: the words that weighed most, and the saved
paper it is most like (docs/recommend.md "The explanation").

* words: the paper's terms by ``SVM weight x the paper's TF-IDF weight`` (what
  each term added to its score), spelled as the paper spells them, two side by
  side joined into a phrase (``SearchIndex.readable``); 3 to 5 of them;
* like: the positive with the highest cosine to the paper over the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.recommend.model import Matrix, Model

#: Words or phrases shown, at most and (when the paper has them) at least.
MAX_TERMS = 5
MIN_TERMS = 3
#: Candidate stems looked up in the paper's text.
CANDIDATES = 10


@dataclass(frozen=True)
class Why:
    """Why one paper is recommended.

    Attributes:
        terms: 3-5 words or phrases that weighed most, each as the paper's
            title or abstract spells it (fewer only when the paper has fewer terms).
        like: id of the positive paper it is most like, or None.
    """

    terms: tuple[str, ...]
    like: str | None


def most_like(matrix: Matrix, docs: list[int], positives: list[int]) -> list[str | None]:
    """For each of ``docs``, the id of the positive whose row has the highest
    cosine with its row (the rows have unit length; ties: the first positive).

    Args:
        matrix: the generation's ``Matrix``.
        docs: the recommended papers' docnums.
        positives: the reader's positives' docnums.
    """
    if not positives or not docs:
        return [None] * len(docs)
    sims = (matrix.x[docs] @ matrix.x[positives].T).toarray()
    return [matrix.ids[positives[int(i)]] for i in sims.argmax(axis=1)]


def top_stems(matrix: Matrix, model: Model, doc: int) -> tuple[list[str], list[str]]:
    """``doc``'s stems: ``(gained, rest)`` — the ones that added to its score,
    most first (at most ``CANDIDATES``), and the paper's other terms, heaviest
    first (to fill up to ``MIN_TERMS`` words).

    Args:
        matrix: the generation's ``Matrix``.
        model: the trained SVM.
        doc: the paper's docnum.
    """
    row = matrix.x[doc]
    cols, vals = row.indices, row.data
    gain = vals * model.weights[cols]
    terms = matrix.terms
    gained = [terms[cols[i]] for i in np.lexsort((cols, -gain))[:CANDIDATES] if gain[i] > 0]
    rest = [terms[cols[i]] for i in np.lexsort((cols, -vals)) if terms[cols[i]] not in gained]
    return gained, rest[:CANDIDATES]


def labels(readable, text: str, gained: list[str], rest: list[str]) -> tuple[str, ...]:
    """Up to ``MAX_TERMS`` labels of the ``gained`` stems as ``text`` spells them,
    filled up to ``MIN_TERMS`` from ``rest`` when too few.

    Args:
        readable: ``SearchIndex.readable``.
        text: the paper's title and abstract.
        gained: the stems that added to the score, most first.
        rest: the paper's other stems, heaviest first.
    """
    out: list[str] = []
    for stems, most in ((gained, MAX_TERMS), (rest, MIN_TERMS)):
        if len(out) >= most:
            break
        for label, _ in readable(text, stems):
            if len(out) >= most:
                break
            if label.casefold() not in {o.casefold() for o in out}:
                out.append(label)
    return tuple(out)
