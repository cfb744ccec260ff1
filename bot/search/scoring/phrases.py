"""Phrase confirmation: the index keeps no word positions, so a quoted phrase
is checked by re-reading and analysing the stored text of the best candidates.
"""

from __future__ import annotations

import heapq
import json

from bot.search.index.schema import all_text
from bot.search.query.plan import Phrase

#: Most candidates whose stored text is read to confirm a phrase.
MAX_PHRASE_CHECKS = 400


def phrase_docs(searcher, node: Phrase, candidates: dict) -> tuple[list[int], bool]:
    """Candidates whose stored field text has the phrase's terms in a row.

    Args:
        searcher: an open Whoosh searcher.
        node: the phrase (field and analysed terms).
        candidates: docnum → score; the best-scoring are checked first.

    Returns:
        ``(docnums holding the phrase, capped)`` — ``capped`` is True when more
        than ``MAX_PHRASE_CHECKS`` candidates existed and only the best were read.
    """
    best = heapq.nlargest(MAX_PHRASE_CHECKS, candidates, key=candidates.get)
    analyzer = searcher.schema[node.field].analyzer
    found = [
        d
        for d in best
        if _has_run(analyzer, _field_text(json.loads(searcher.stored_fields(d)["doc"]), node.field), node.terms)
    ]
    return found, len(candidates) > MAX_PHRASE_CHECKS


def _field_text(paper: dict, fieldname: str) -> str:
    if fieldname == "authors":
        return "; ".join(paper.get("authors", ()))
    if fieldname == "all":
        return all_text(paper.get("title") or "", paper.get("abstract") or "")
    return paper.get(fieldname) or ""


def _has_run(analyzer, text: str, terms: tuple[str, ...]) -> bool:
    """True when ``terms`` occur at consecutive token positions of ``text``.

    Words are only stemmed when their first two letters could start the
    wanted term (stemmers change endings only).
    """
    words = [w for w, _, _, _, parts in analyzer.words(text) if parts is None]
    n, first = len(terms), terms[0]
    head = first[:2]
    stem = analyzer.stem
    for i in range(len(words) - n + 1):
        w = words[i]
        if w[:2] == head and stem(w) == first and all(stem(words[i + k]) == terms[k] for k in range(1, n)):
            return True
    return False
