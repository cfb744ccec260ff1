"""The corpus vocabulary kept beside each generation (``lexicon.json``).

Collected during a build from the same analysis pass that feeds the index:

* ``words``: unstemmed alphabetic words -> document frequency (title +
  abstract) — for spelling correction and ``prefix*`` expansion;
* ``compounds``: joined hyphenated words -> their parts ("testtime" ->
  "test time") — so ``test time`` and ``testtime`` find ``test-time``;
* ``compound_df``: joined word -> papers where it is written hyphenated
  (``split_form`` ignores a rare hyphenation of a common word: "net-works");
* ``acronyms``: acronym stem -> ``[expansion, count]`` pairs, most frequent
  first ("moe" -> [["mixture of experts", 3]]), from ``bot.corpus.acronyms``.

Kept out of Whoosh on purpose: Whoosh's own spelling field doubles the
postings written and costs a file ``stat`` per posting of an unscored field
(whoosh3 ``_cached_reader``), which made builds several times slower.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from pathlib import Path

from bot.core.acronyms import acronyms as corpus_acronyms
from bot.search.index import layout
from bot.search.index.analysis import STOP_WORDS, fold

FILE = "lexicon.json"
MAX_EXPANSIONS = 3


class LexiconBuilder:
    """Accumulates a lexicon over papers (one per build or add).

    Args:
        stem: the index analyzer's stem function (acronym keys are stems,
            so "LLMs" and "LLM" share one entry).
        existing: a loaded ``Lexicon`` to extend (``add_to_index``).
    """

    def __init__(self, stem, existing: "Lexicon | None" = None) -> None:
        self.stem = stem
        self.df: Counter = Counter(existing.df if existing else {})
        self.compounds: dict[str, str] = dict(existing.compounds if existing else {})
        self.compound_df: Counter = Counter(existing.compound_df or {} if existing else {})
        # an older lexicon has no counts: partial ones would hide its compounds
        self._counted = existing is None or existing.compound_df is not None
        self.pairs: Counter = Counter()
        for key, pairs in (existing.counted if existing else {}).items():
            for exp, count in pairs:
                self.pairs[key, exp] += count

    def add(self, abstract: str, tokens) -> None:
        """Count one paper: its analysed ``words()`` tuples and acronyms.

        Args:
            abstract: the paper's abstract (for its acronym definitions).
            tokens: the ``PaperAnalyzer.words(compounds=True)`` tuples of its title and abstract.
        """
        seen, joined = set(), set()
        for word, _, _, _, parts in tokens:
            if parts is not None:
                joined.add(word)
                if word not in self.compounds:
                    self.compounds[word] = parts
            seen.add(word)
        self.df.update(w for w in seen if w.isalpha())
        self.compound_df.update(joined)
        self._acronyms(abstract)

    def add_words(self, abstract: str, words: set, compounds: list) -> None:
        """``add`` for a paper whose words were collected already
        (``bot.search.index.bulk_documents``): its distinct words (compounds' joined forms
        included) and its ``(joined, parts)`` pairs in text order.

        Args:
            abstract: the paper's abstract (for its acronym definitions).
            words: its distinct words.
            compounds: its ``(joined, parts)`` pairs.
        """
        for word, parts in compounds:
            if word not in self.compounds:
                self.compounds[word] = parts
        self.df.update(filter(str.isalpha, words))
        self.compound_df.update({word for word, _ in compounds})
        self._acronyms(abstract)

    def _acronyms(self, abstract: str) -> None:
        for short, long in corpus_acronyms(abstract):
            key = self.stem(fold(short))
            exp = " ".join(fold(long).replace("-", " ").split())
            if key and exp and key not in STOP_WORDS:
                self.pairs[key, exp] += 1

    def state(self) -> dict:
        """The counts so far (picklable; see ``merge``)."""
        return {"df": self.df, "compounds": self.compounds, "compound_df": self.compound_df, "pairs": self.pairs}

    def merge(self, state: dict) -> None:
        """Add another builder's ``state()`` (a later chunk of the same build:
        its compounds only fill words not seen yet, as ``add`` would)."""
        self.df.update(state["df"])
        for word, parts in state["compounds"].items():
            self.compounds.setdefault(word, parts)
        self.compound_df.update(state["compound_df"])
        self.pairs.update(state["pairs"])

    def finish(self) -> dict:
        """The JSON-ready lexicon."""
        by_key: dict[str, list[tuple[int, str]]] = {}
        for (key, exp), count in self.pairs.items():
            by_key.setdefault(key, []).append((count, exp))
        acronyms = {}
        for key, items in by_key.items():
            items.sort(key=lambda item: (-item[0], item[1]))
            top = items[0][0]
            acronyms[key] = [[e, c] for c, e in items[:MAX_EXPANSIONS] if c * 4 >= top]
        data = {"words": dict(self.df), "compounds": self.compounds, "acronyms": acronyms}
        if self._counted:
            data["compound_df"] = dict(self.compound_df)
        return data


class Lexicon:
    """A loaded lexicon (read-only; shared between threads)."""

    def __init__(self, data: dict) -> None:
        self.df: dict[str, int] = data.get("words", {})
        self.words: list[str] = sorted(self.df)
        self.compounds: dict[str, str] = data.get("compounds", {})
        # None: a lexicon written before the counts (every compound is used)
        self.compound_df: dict[str, int] | None = data.get("compound_df")
        self.counted: dict[str, list] = {  # (plain strings: an older format)
            key: [(p, 1) if isinstance(p, str) else tuple(p) for p in pairs]
            for key, pairs in data.get("acronyms", {}).items()
        }
        self.acronyms = {key: [e for e, _ in pairs] for key, pairs in self.counted.items()}
        best: dict[str, tuple] = {}
        for key, pairs in self.counted.items():
            for exp, count in pairs:  # the expansion's most frequent acronym
                rank = (-count, len(key), key)
                if exp not in best or rank < best[exp]:
                    best[exp] = rank
        self.reverse = {exp: rank[2] for exp, rank in best.items()}

    @classmethod
    def load(cls, generation: Path) -> "Lexicon":
        """Read ``generation/lexicon.json`` (an empty lexicon when absent)."""
        return cls(layout.read_json(generation / FILE, {}))

    def split_form(self, joined: str, min_share: float) -> str | None:
        """The parts of ``joined`` ("testtime" -> "test time") when its
        hyphenated spelling is a real variant: written hyphenated in at least
        ``min_share`` of the papers that have the word at all (``df`` counts
        both spellings). "networks" is hyphenated as "net-works" in 2 of
        12,091 arXiv papers, so a search for it does not also match every
        paper with "net" and "work" (a fresh-user finding at 100k papers).

        Args:
            joined: the folded word, as typed without a hyphen.
            min_share: the smallest share of hyphenated spellings (``Ranking.compound_min_share``).
        """
        parts = self.compounds.get(joined)
        if parts is None or self.compound_df is None:
            return parts
        return parts if self.compound_df.get(joined, 0) >= min_share * self.df.get(joined, 0) else None

    def prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` words starting with ``prefix``, most frequent first.

        Args:
            prefix: the folded prefix.
            limit: words returned at most.
        """
        words, df = self.words, self.df
        i = bisect_left(words, prefix)
        found = []
        while i < len(words) and words[i].startswith(prefix) and len(found) < 50 * limit:
            found.append(words[i])
            i += 1
        found.sort(key=lambda w: (-df[w], w))
        return found[:limit]


def field_prefix(reader, fieldname: str, prefix: str, limit: int) -> list[str]:
    """Up to ``limit`` indexed terms of ``fieldname`` starting with ``prefix``,
    most frequent first (authors and venues: their terms are the words).

    Args:
        reader: the generation's Whoosh reader.
        fieldname: the field.
        prefix: the folded prefix.
        limit: terms returned at most.
    """
    found = []
    try:
        for term in reader.expand_prefix(fieldname, prefix):
            found.append(term.decode("utf-8") if isinstance(term, bytes) else term)
            if len(found) > 20 * limit:
                break
    except KeyError:  # field absent from this generation
        return []
    if len(found) > limit:
        found.sort(key=lambda t: -reader.doc_frequency(fieldname, t))
    return found[:limit]
