"""The "similar papers" query: a paper's whole title and abstract as a more-like-this
query, and the rule that a similar paper shares at least two of its key terms (issue 18);
also the key terms pseudo-relevance feedback adds (``bot.search.scoring.rank``).
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable

import Stemmer

from bot.core.models import Paper, QueryError
from bot.search.index import layout
from bot.search.index.generation import Generation
from bot.search.query import parser
from bot.search.query.compile import Compiler
from bot.search.query.plan import Compiled
from bot.search.scoring.knobs import Ranking

#: English function words (NLTK's English stop-word list, the "stopwords" corpus of
#: https://www.nltk.org/nltk_data/, without its contraction fragments): never key terms.
FUNCTION_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with you your yours yourself yourselves""".split()
)
_NUMBER = re.compile(r"^[\d.,]+$")


def _terms(analyzer, text: str):
    """The analysed terms of ``text`` that may be key terms: 3+ characters, no number
    (``0.628``), no function word."""
    for t in analyzer(text, mode="query"):
        if len(t.text) > 2 and not _NUMBER.match(t.text) and t.text not in FUNCTION_WORDS:
            yield t.text


def key_terms(searcher, texts, n: int, field: str = "abstract") -> list[tuple[str, float]]:
    """Top ``n`` tf-idf terms of weighted ``texts``.

    Args:
        searcher: an open Whoosh searcher (the abstract field's analyzer and frequencies).
        texts: ``[(text, weight)]``; a term's tf is the weighted count.
        n: terms returned.
        field: the field whose document frequencies give the idf, ``ln((N + 1) / df)``.

    Returns:
        ``[(stemmed term, weight)]``, best first (ties by term), weights scaled to max 1.0.
    """
    analyzer = searcher.schema["abstract"].analyzer
    reader = searcher.reader()
    tf: Counter = Counter()
    for text, weight in texts:
        for term in _terms(analyzer, text):
            tf[term] += weight
    docs = max(1, reader.doc_count_all())
    scored = []
    for term, freq in tf.items():
        df = reader.doc_frequency(field, term)
        if df:
            scored.append((freq * math.log((docs + 1) / df), term))
    scored.sort(key=lambda x: (-x[0], x[1]))
    best = scored[:n]
    if not best:
        return []
    scale = best[0][0] or 1.0
    return [(term, w / scale) for w, term in best]


def similar_query(searcher, lexicon, paper: Paper, r: Ranking) -> Compiled | None:
    """The paper's title (said twice) and abstract as one prose query — every distinct
    word a group weighted by how often the text says it (``r.similar_qtf_k3``), up to
    ``r.similar_max_groups`` groups — the more-like-this query of Lucene's
    MoreLikeThis (https://lucene.apache.org/core/9_0_0/queries/org/apache/lucene/queries/mlt/MoreLikeThis.html)
    with BM25 weights. None when the text has no searchable word.

    Args:
        searcher: an open Whoosh searcher.
        lexicon: the generation's lexicon (``bot.search.query.lexicon``).
        paper: the paper.
        r: ranking settings.
    """
    text = f"{paper.title}. {paper.title}. {paper.abstract}" if paper.title else paper.abstract
    settings = replace(r, max_groups=r.similar_max_groups, qtf_k3=r.similar_qtf_k3)
    try:
        return Compiler(searcher, lexicon, settings).compile(parser.prose(text))
    except QueryError:  # only stop words or symbols
        return None


class SharedTerms:
    """The rule "a similar paper shares at least ``r.similar_min_shared`` of the source's
    ``r.similar_key_terms`` key terms" (one common word is no topic, issue 18).

    Key terms are word stems: the lower-cased words of 3+ characters (a letter, then
    letters or digits), no English stop word (``NLTK_STOP_WORDS``), stemmed with Snowball's
    English stemmer as published now (``snowball_stem``); each scored tf × ln(N / df),
    a title word counting ``r.similar_title_weight`` and an abstract word 1, N the live
    papers and df the papers whose title or abstract holds a word with that stem, both
    counted on the same words as tf (``StemCounts``: a stem the index spells otherwise —
    "Gallouët", "github.com", "MgSnN$_2$" — keeps its df, and is not dropped for want of
    an indexed form). Ties go by stem.
    A candidate shares a key term when a word of its title or abstract has that stem.

    Args:
        searcher: an open Whoosh searcher (the index analyzer, for ``marks``).
        counts: the generation's ``StemCounts``.
        paper: the source paper.
        r: ranking settings.
    """

    def __init__(self, searcher, counts: "StemCounts", paper: Paper, r: Ranking) -> None:
        analyzer = searcher.schema["abstract"].analyzer
        docs = max(1, counts.papers)
        tf: Counter = Counter()
        words: dict[str, set[str]] = {}
        for text, weight in ((paper.abstract, 1.0), (paper.title, r.similar_title_weight)):
            for stem, word in _stems(text):
                tf[stem] += weight
                words.setdefault(stem, set()).add(analyzer.stem(word))
        scored = sorted((-freq * math.log(docs / max(1, counts.df.get(stem, 0))), stem) for stem, freq in tf.items())
        self.terms = {stem for _, stem in scored[: r.similar_key_terms]}
        #: the key terms as the index analyses them (for the snippets' marks)
        self.marks = {term for stem in self.terms for term in words[stem]}
        self.need = min(r.similar_min_shared, len(self.terms))

    def holds(self, other: Paper) -> bool:
        """True when ``other`` shares enough of the key terms."""
        if self.need <= 0:
            return True
        found = {stem for text in (other.title, other.abstract) for stem, _ in _stems(text) if stem in self.terms}
        return len(found) >= self.need


@dataclass(frozen=True)
class StemCounts:
    """Document frequencies of key-term stems over one generation (``SharedTerms``).

    Attributes:
        papers: the live papers counted (N).
        df: stem -> papers whose title or abstract holds a word with that stem.
    """

    papers: int
    df: dict[str, int]

    @classmethod
    def of(cls, texts: Iterable[str]) -> "StemCounts":
        """Count ``texts``, one per paper (its title and abstract); about 2 s per
        10,000 arXiv papers on the shared 2-core machine, load 6
        (``benchmarks/results/similar_bench.txt``, "key-term counts")."""
        df: Counter = Counter()
        papers = 0
        for text in texts:
            df.update({stem for stem, _ in _stems(text)})
            papers += 1
        return cls(papers, dict(df))

    @classmethod
    def kept(cls, folder: Path, texts: Callable[[], Iterable[str]]) -> "StemCounts":
        """The counts of the generation in ``folder``: read from its ``COUNTS_FILE``, or
        counted from ``texts()`` (``of``; ~19 s of CPU for the 102,289 papers of the arXiv
        sample) and written there for the next process — a generation never changes once
        published (docs/search.md "Similar papers"). A folder that cannot be written
        keeps them in memory only.

        Args:
            folder: the generation's directory.
            texts: the live papers' title and abstract, one text per paper.
        """
        try:
            saved = layout.read_json(folder / COUNTS_FILE)
        except (OSError, ValueError):  # unreadable or not JSON: counted again
            saved = None
        if isinstance(saved, dict) and saved.get("format") == COUNTS_FORMAT:
            return cls(saved["papers"], saved["df"])
        counts = cls.of(texts())
        with contextlib.suppress(OSError):  # read-only, or another process writing the same
            layout.write_json(folder / COUNTS_FILE, {"format": COUNTS_FORMAT, "papers": counts.papers, "df": counts.df})
        return counts


def stem_counts(gen: Generation, reader) -> StemCounts:
    """The ``StemCounts`` of the generation ``gen`` over its live papers: kept in memory
    once read or counted (``StemCounts.kept``); callers at the same time wait for one count.

    Args:
        gen: the opened generation (its folder, deletions and ``derived`` cache).
        reader: a Whoosh reader of it (the papers' stored fields).
    """
    lock = gen.derived.setdefault("stem_counts_lock", threading.Lock())
    with lock:
        if "stem_counts" not in gen.derived:
            texts = lambda: (f"{p.title}\n{p.abstract}" for p in gen.papers(reader))  # noqa: E731
            gen.derived["stem_counts"] = StemCounts.kept(Path(gen.norms.generation), texts)
    return gen.derived["stem_counts"]


#: The file beside a generation's index that keeps its ``StemCounts``.
COUNTS_FILE = layout.COUNTS_FILE
#: Its format: a new stemmer, stop list or word pattern is a new number (old files are recounted).
COUNTS_FORMAT = 1


_WORD = re.compile(r"[a-z][a-z0-9]*")
#: NLTK's contraction fragments of 3+ letters ("don't" -> "don", "t"): the regex above
#: splits contractions, so these are function words here (NLTK's list has them for that).
_FRAGMENTS = frozenset(
    "ain aren couldn didn doesn don hadn hasn haven isn mightn mustn needn shan shouldn wasn weren won wouldn".split()
)
#: Never key terms: NLTK's whole English stop-word list (``FUNCTION_WORDS`` and its
#: contraction fragments), as bm25s's ``STOPWORDS_EN_PLUS``.
NLTK_STOP_WORDS = FUNCTION_WORDS | _FRAGMENTS
_local = threading.local()
_STEMS: dict[str, str] = {}


def snowball_stem(word: str) -> str:
    """The Snowball English stem of a lower-cased word, by the reference implementation
    (PyStemmer, the Snowball project's libstemmer; the algorithm of
    https://snowballstem.org/algorithms/english/stemmer.html and
    https://github.com/snowballstem/snowball/blob/master/algorithms/english.sbl).
    Not Whoosh's ``EnglishStemmer``: that is Snowball English before 2.0, which joins
    "universal" with "universe" and "organic" with "organ" (the R1 exceptions "univers",
    "organ", "emerg", "later", "past" came later). Cached per process."""
    stem = _STEMS.get(word)
    if stem is None:
        stemmer = getattr(_local, "stemmer", None)
        if stemmer is None:  # a PyStemmer object is not safe to share between threads
            stemmer = _local.stemmer = Stemmer.Stemmer("english")
        if len(_STEMS) > 500_000:
            _STEMS.clear()
        stem = _STEMS[word] = stemmer.stemWord(word)
    return stem


def _stems(text: str):
    """``(stem, word)`` for each word of ``text`` that may be a key term (``SharedTerms``)."""
    for word in _WORD.findall(text.lower()):
        if len(word) >= 3 and word not in NLTK_STOP_WORDS:
            yield snowball_stem(word), word
