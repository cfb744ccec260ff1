"""The ranking rules of docs/search.md, each with its "removed" variant, and
the machinery to measure an index with one rule taken out.

A rule is *removed* when the product behaves as if it did not exist — the
plain behaviour it replaces — not when one formula is swapped for another
(``ALTERNATIVES`` lists such swaps, reported without a verdict; ``ADDED_BACK``
the rules this ablation removed, put back):

* query-time rules: a ``Ranking`` override on the full index, or the search
  without automatic spelling correction (``correct=False``);
* index-time rules: a rebuild with ``bot.search.index.schema.IndexRules``.

Verdict (issue 11, point 5): a rule *holds* when removing it costs at least
``BAR`` (0.005) on SciFact-train nDCG@10 or on known-item MRR@10 and gains
nothing on the other — deltas compared at the 4 decimals reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.core.models import QueryError
from bot.search import SearchIndex, build_index
from bot.search.index.schema import DEFAULT_RULES, IndexRules, paper_from_json
from bot.search.query import parser
from bot.search.resolving import linked_docs
from bot.search.scoring.knobs import Ranking
from bot.search.scoring.rank import pin

BAR = 0.005


@dataclass(frozen=True)
class Rule:
    """One ranking rule and what the product does without it.

    Attributes:
        name: short id (table row).
        rule: the rule, as docs/search.md states it.
        removed: what its removal means.
        ranking: ``Ranking`` field overrides (query time).
        index: index-time rules of the rebuild (None: the full index).
        correct: automatic spelling correction on (``SearchIndex.search``).
    """

    name: str
    rule: str
    removed: str
    ranking: dict = field(default_factory=dict)
    index: IndexRules | None = None
    correct: bool = True

    def setup(self) -> IndexRules:
        """The index-time rules of the index this variant needs."""
        return self.index or DEFAULT_RULES


FULL = Rule("full", "every rule (the defaults)", "nothing")

RULES = [
    Rule(
        "qtf-k3",
        "query-term saturation (k3 + 1) n / (k3 + n), k3 = 1",
        "a word said n times weighs n",
        {"qtf_k3": None},
    ),
    Rule(
        "compounds",
        "test-time / test time / testtime searched alike",
        "only the typed spelling (compounds=False)",
        {"compounds": False},
    ),
    Rule(
        "compound-share",
        "a joined word matches its parts only when >= 10 % hyphenate it",
        "every recorded hyphenation is used (share 0)",
        {"compound_min_share": 0.0},
    ),
    Rule(
        "spelling",
        "unknown words auto-corrected when the correction finds papers",
        "words searched as typed",
        correct=False,
    ),
    Rule("title-x4", "title repeated 4 times in `all`", "title once", index=IndexRules(title_repeat=1)),
    Rule(
        "one-field",
        "one free-text field `all` (title + abstract)",
        "title and abstract scored as separate BM25 fields",
        index=IndexRules(all_field=False),
    ),
    Rule("stemming", "Porter2 stemming", "no stemming", index=IndexRules(analyzer={"stemmer": "none"})),
    Rule(
        "stop-words", "Whoosh's 34-word English stop list", "no stop list", index=IndexRules(analyzer={"stoplist": ()})
    ),
    Rule(
        "caps-acronyms",
        "a stop word in capitals (IT, US) kept as an acronym",
        "stop words always dropped",
        index=IndexRules(analyzer={"caps": False}),
    ),
]

#: Rules the ablation removed (docs/search.md), added back to show what they
#: would be worth on today's defaults ("would hold": adding it back gains the
#: bar on one measure and costs nothing on the other).
ADDED_BACK = [
    Rule(
        "+acronyms",
        "(removed) acronym <-> expansion in ranked search, weight 0.3",
        "added back (acronyms=True)",
        {"acronyms": True},
    ),
    Rule(
        "+field-b", "(removed) per-field b: title 0.5, name 0.3", "added back", {"field_b": {"title": 0.5, "name": 0.3}}
    ),
    Rule(
        "+field-weights",
        "(removed) weights title 2, name 2, name_key 3, authors 1.5",
        "added back",
        {"weights": {"title": 2.0, "name": 2.0, "name_key": 3.0, "authors": 1.5}},
    ),
    Rule(
        "+single-chars",
        "(removed) single characters kept (minsize 1)",
        "added back",
        index=IndexRules(analyzer={"minsize": 1}),
    ),
]

ALTERNATIVES = [
    Rule("idf-whoosh", "Lucene idf", "Whoosh's idf", {"idf": "whoosh"}),
    Rule("porter", "Porter2 stemming", "the original Porter stemmer", index=IndexRules(analyzer={"stemmer": "porter"})),
    Rule("k1-1.5", "k1 = 1.2", "k1 = 1.5 (bm25s' default)", {"k1": 1.5}),
]


def verdict(scifact: float, known: float, bar: float = BAR) -> bool:
    """Does a rule hold? ``scifact``, ``known``: removed minus full
    (negative = the removal costs), compared at 4 decimals."""
    s, k = round(scifact, 4), round(known, 4)
    return (-s >= bar and k <= 0) or (-k >= bar and s <= 0)


class Indexes:
    """The indexes a set of rules needs, one build per ``IndexRules``.

    Args:
        papers: the corpus (``bot.core.models.Paper``).
        root: folder for the index directories (removed by ``close``).
    """

    def __init__(self, papers: list, root: Path) -> None:
        self.papers, self.root = papers, Path(root)
        self._dirs: dict[tuple, Path] = {}
        self.build_s: dict[str, float] = {}

    def get(self, rules: IndexRules) -> Path:
        """The index directory built with ``rules`` (``Rule.setup()``), built once."""
        key = repr(rules)  # IndexRules holds a dict: not hashable
        if key not in self._dirs:
            target = self.root / f"ix{len(self._dirs)}"
            started = time.perf_counter()
            build_index(target, self.papers, rules=rules)
            self.build_s[key] = round(time.perf_counter() - started, 2)
            self._dirs[key] = target
        return self._dirs[key]


def source_ids(index: SearchIndex) -> list:
    """docnum -> ``source_id`` of the live generation (for ranked docnums)."""
    with index._searcher() as (_, searcher):
        reader = searcher.reader()
        return [paper_from_json(reader.stored_fields(d)["doc"]).source_id for d in range(reader.doc_count_all())]


def ranked(index: SearchIndex, ids: list, text: str, limit: int = 100, correct: bool = True) -> list:
    """The ``source_id``s ``index.search(text, limit=limit)`` would return,
    in order, without building hits (no snippets, no stored-paper reads):
    the same parse, ``_find`` (compile, spelling, rank) and linked-paper
    pin as ``SearchIndex.search``. A ``QueryError`` gives ``[]``."""
    try:
        parsed = parser.parse(text)
        with index._searcher() as (gen, searcher):
            found = index._find(gen, searcher, parsed, limit, correct)
            result = pin(found.ranked, linked_docs(searcher, parsed.text), limit)
    except QueryError:
        return []
    return [ids[d] for _, d in result.scored[:limit]]


def run_queries(index_dir: Path, rule: Rule, texts: list, limit: int = 100) -> tuple[list, float, float]:
    """``(ranked source ids per text, wall s, CPU s)`` of ``rule``'s ranking on ``index_dir``."""
    index = SearchIndex(index_dir, ranking=replace(Ranking(), **rule.ranking))
    index.warm()
    ids = source_ids(index)
    wall, cpu = time.perf_counter(), time.process_time()
    out = [ranked(index, ids, t, limit, rule.correct) for t in texts]
    return out, time.perf_counter() - wall, time.process_time() - cpu
