"""How well a spelling correction fits the rest of its query (issue 18).

Two signals from the corpus, for one combination of words:

* ``pairs``: papers whose title or abstract has the query's adjacent words
  side by side ("sparse attention") — a bigram of the corpus;
* ``together``: papers holding all the words anywhere (their stems in ``all``).

A bigram is the stronger evidence: the words of "space attention" are together
in more arXiv papers than those of "sparse attention", but the phrase is rare.
Pairs are read from the stored text of at most ``PAIR_SAMPLE`` of the papers
holding all the words (no positions are indexed: docs/search.md "Phrases").
Used by ``bot.search.query.spelling.correct``.
"""

from __future__ import annotations

import json
import re

from bot.search.index.analysis import fold

#: Papers whose stored text is read for the pairs of one combination, at most.
PAIR_SAMPLE = 100


class QueryFit:
    """The corpus signals of one search (one per query; caches postings).

    Args:
        searcher: an open Whoosh searcher of the generation.
        stems: text -> its query stems (``Compiler.stems``).
    """

    def __init__(self, searcher, stems) -> None:
        self.searcher = searcher
        self.reader = searcher.reader()
        self.stems = stems
        self.field = "all" if "all" in searcher.schema else "abstract"
        self._postings: dict[str, set] = {}
        self._texts: dict[int, str] = {}

    def docs(self, words: list[str]) -> set:
        """Docnums of the papers holding every one of ``words`` (stop words ignored; none -> empty)."""
        sets = []
        for word in words:
            for stem in self.stems(word):
                if stem not in self._postings:
                    found = (self.field, stem) in self.reader
                    self._postings[stem] = set(self.reader.postings(self.field, stem).all_ids()) if found else set()
                sets.append(self._postings[stem])
        if not sets:
            return set()
        sets.sort(key=len)
        return sets[0].intersection(*sets[1:])

    def together(self, words: list[str]) -> int:
        """Papers holding every one of ``words`` (``docs``)."""
        return len(self.docs(words))

    def pairs(self, words: list[str], pairs: list[tuple[str, str]]) -> int:
        """Papers holding all ``words`` with one of ``pairs`` side by side in their
        title or abstract, counted in at most ``PAIR_SAMPLE`` of them (the same
        bound for every combination; scaling a sample's share up to all the
        papers let 2 chance hits among many papers outweigh a real bigram:
        "space attention" over "sparse attention" at 10,000 arXiv papers).

        Args:
            words: the combination's words (a correction and the query's other words).
            pairs: its adjacent word pairs that involve a correction.
        """
        docs = self.docs(words)
        if not docs or not pairs:
            return 0
        sample = sorted(docs)[:PAIR_SAMPLE]
        patterns = [re.compile(rf"\b{re.escape(fold(a))}[\s\-]+{re.escape(fold(b))}\b") for a, b in pairs]
        return sum(1 for d in sample if any(p.search(self._text(d)) for p in patterns))

    def _text(self, docnum: int) -> str:
        text = self._texts.get(docnum)
        if text is None:
            data = json.loads(self.searcher.stored_fields(docnum)["doc"])
            text = self._texts[docnum] = fold(f"{data.get('title', '')} . {data.get('abstract', '')}")
        return text
