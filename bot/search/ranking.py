"""Every ranking knob of the search index, and the text analysis it uses.

This is the one module to tune (a benchmark sweeps it on BEIR SciFact).
Two kinds of settings live here:

* Index-time (need ``paperbot index build`` to take effect): the tokenizer
  rules, stop words and stemmer in :class:`PaperAnalyzer`. The analyzer is
  pickled into each index generation, so searches always use the analyzer the
  generation was built with.
* Query-time (take effect on the next search): the :class:`Ranking` values —
  BM25F parameters, per-field weights, expansion weights, coordination,
  pseudo-relevance feedback (PRF), "similar papers" and spelling limits. Pass a
  ``Ranking`` to ``SearchIndex(dir, ranking=...)`` to try variants without
  editing this file.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from math import log

from whoosh.analysis import Composable, Token
from whoosh.lang.porter import stem as porter_stem
from whoosh.lang.snowball.english import EnglishStemmer

#: Whoosh's English stop list (StopFilter default); "it", "the", "of" are in it.
STOP_WORDS = frozenset(
    "a an and are as at be by can for from have if in is it may not of on or tbd"
    " that the this to us we when will with yet you your".split())

#: One token: a word of letters/digits (dots allowed inside: "2.61", "e.g"),
#: hyphen-joined words ("test-time", "GPT-4"), and a trailing "++" or "#"
#: ("C++", "C#").
WORD_RE = re.compile(r"\w+(?:\.\w+)*(?:-\w+(?:\.\w+)*)*(?:\+\+|#)?(?![\w+#])|\w+")
#: CJK ideographs, kana and hangul are indexed one character per token.
CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_SPLIT_RE = re.compile(CJK_RE.pattern + r"|(?:(?!" + CJK_RE.pattern + r")\w)+")


def fold(text: str) -> str:
    """Lowercase and strip accents ("Schölkopf" -> "scholkopf")."""
    text = text.lower()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_english = EnglishStemmer()
STEMMERS = {"porter": porter_stem, "porter2": _english.stem, "none": None}
_STEM_CACHES: dict[str, dict[str, str]] = {name: {} for name in STEMMERS}


class PaperAnalyzer(Composable):
    """Tokenizer, lowercase/accent folding, stop words and stemming in one pass.

    Hyphenated words ("test-time") give their parts at consecutive positions;
    ``words(compounds=True)`` also reports the joined form ("testtime") for
    the lexicon, which lets ``test-time``, ``test time`` and ``testtime`` be
    searched alike (see ``bot.search.compile``) without indexing compounds.
    Single characters are dropped unless they are part of a hyphenated word
    ("k-means").

    Args:
        stoplist: words never indexed.
        minsize: shortest standalone token kept (characters).
        stemmer: a key of ``STEMMERS``.
        max_parts: hyphenated words with more parts get no compound token.
    """

    is_morph = True

    def __init__(self, stoplist=STOP_WORDS, minsize=2, stemmer="porter", max_parts=4):
        self.stoplist = frozenset(stoplist)
        self.minsize = minsize
        self.stemmer = stemmer
        self.max_parts = max_parts
        self.is_morph = STEMMERS[stemmer] is not None

    def __eq__(self, other):
        return other.__class__ is self.__class__ and self.__dict__ == other.__dict__

    def stem(self, word: str) -> str:
        """Stem one folded word (cached per process, shared by all instances:
        Whoosh unpickles a new analyzer with every reader)."""
        fn = STEMMERS[self.stemmer]
        if fn is None or not word.isalpha():
            return word
        cache = _STEM_CACHES[self.stemmer]
        cached = cache.get(word)
        if cached is None:
            if len(cache) > 500_000:
                cache.clear()
            cached = cache[word] = fn(word)
        return cached

    def words(self, text: str, compounds: bool = False):
        """Yield ``(word, start, end, pos, parts)`` for each kept unstemmed word.

        ``parts`` is None except for compound entries (only with
        ``compounds=True``; never indexed): then ``word`` is the joined form
        and ``parts`` the folded parts joined by spaces ("test time").
        """
        pos = 0
        stop, minsize, max_parts = self.stoplist, self.minsize, self.max_parts
        for m in WORD_RE.finditer(text):
            word, start = m.group(), m.start()
            if not word.isascii() and CJK_RE.search(word):
                for piece in _CJK_SPLIT_RE.finditer(word):
                    low = fold(piece.group())
                    if low not in stop and (len(low) >= minsize or CJK_RE.match(low)):
                        yield low, start + piece.start(), start + piece.end(), pos, None
                        pos += 1
                continue
            if "-" not in word:
                low = fold(word)
                if low not in stop and len(low) >= minsize:
                    yield low, start, m.end(), pos, None
                    pos += 1
                continue
            parts, offset = fold(word).split("-"), start
            if compounds and len(parts) <= max_parts:
                yield "".join(parts), start, m.end(), pos, " ".join(parts)
            for part in parts:
                if part and part not in stop:
                    yield part, offset, offset + len(part), pos, None
                    pos += 1
                offset += len(part) + 1

    def terms(self, value: str) -> list[str]:
        """The indexed term texts of ``value`` in order — exactly the token
        texts ``__call__`` yields in index mode (``Analyzed`` values reuse their
        words); used by the bulk segment writer (``bot.search.bulk``)."""
        if isinstance(value, Analyzed):
            if value.terms is None:
                value.terms = self._terms(value.tokens)
            return value.terms
        return self._terms(self.words(value))

    def _terms(self, items) -> list[str]:
        stem = self.stem   # cached; returns the word itself without a stemmer
        return [stem(text) for text, _, _, _, parts in items if parts is None]

    def __call__(self, value, positions=False, chars=False, keeporiginal=False,
                 removestops=True, start_pos=0, start_char=0, tokenize=True,
                 mode="", no_morph=False, nomorph=False, **kwargs):
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        t.boost, t.stopped = 1.0, False
        morph = self.is_morph and not (no_morph or nomorph)
        if isinstance(value, Analyzed):
            items = value.tokens
        elif not tokenize:
            items = [(fold(value), 0, len(value), 0, None)]
        else:
            items = self.words(value)
        stem = self.stem
        for text, start, end, pos, parts in items:
            if parts is not None:
                continue
            t.text = stem(text) if morph else text
            if keeporiginal:
                t.original = value[start:end]
            if positions:
                t.pos = start_pos + pos
            if chars:
                t.startchar, t.endchar = start_char + start, start_char + end
            yield t


class Analyzed(str):
    """A field value whose ``words()`` were computed once already (build speed:
    the same pass also feeds the spelling vocabulary)."""

    tokens: list
    #: the indexed terms (``PaperAnalyzer.terms``), computed on first use or
    #: given (the ``all`` field reuses its title's and abstract's)
    terms: list | None

    def __new__(cls, text: str, tokens: list, terms: list | None = None) -> "Analyzed":
        obj = super().__new__(cls, text)
        obj.tokens = tokens
        obj.terms = terms
        return obj

    def __reduce__(self):
        return (Analyzed, (str(self), self.tokens, self.terms))


def idf(n: int, df: int, kind: str = "bm25") -> float:
    """Inverse document frequency: ``"bm25"`` = Lucene's ``ln(1 + (N - df + .5) /
    (df + .5))``; ``"whoosh"`` = ``ln(N / (df + 1)) + 1``."""
    if kind == "whoosh":
        return log(n / (df + 1)) + 1
    return log(1 + (n - df + 0.5) / (df + 0.5))


def text_analyzer() -> PaperAnalyzer:
    """Analyzer of title, name, abstract and all (index-time setting).

    Porter2 and single-character tokens kept (digits, "T cells"): SciFact
    train nDCG@10 0.6937 -> 0.6966 -> 0.6992 (benchmarks/relevance.py)."""
    return PaperAnalyzer(minsize=1, stemmer="porter2")


def plain_analyzer() -> PaperAnalyzer:
    """Analyzer of authors and venue: folded words, no stop words, no stemming."""
    return PaperAnalyzer(stoplist=(), minsize=1, stemmer="none")


#: Fields searched by words without a ``field:`` prefix. ``authors`` and
#: ``name_key`` (the whole name) only join a query when the word occurs there.
#: ``all`` is title x TITLE_REPEAT + abstract as one field: one BM25 field
#: beat title and abstract scored apart (SciFact train nDCG@10 0.694 vs 0.669,
#: measured with benchmarks/relevance.py).
DEFAULT_FIELDS = ("all", "authors", "name_key")
#: How often the title is repeated in ``all`` (index-time; train 0.7037 with 4
#: vs 0.6976 with 1, benchmarks/relevance.py).
TITLE_REPEAT = 4


@dataclass(frozen=True)
class Ranking:
    """Query-time ranking settings (no rebuild needed).

    Attributes:
        k1, b: BM25F term-frequency saturation and length normalisation
            (Whoosh's BM25F formula, computed by ``bot.search.scorer``).
        idf: ``"bm25"`` (Lucene's) or ``"whoosh"`` (``bot.search.scorer.idf``).
        common_df: "common terms": an optional query word found in more than
            this share of the papers only adds score to papers that match a
            rarer word (0 turns it off; Lucene's CommonTermsQuery).
        common_min_docs: ... and in more than this many papers.
        field_b: per-field ``b`` overriding ``b`` (titles are short).
        weights: per-field query weight (multiplies that field's BM25 score;
            fields' scores add up); ``name_key`` is the exact whole-name match.
        expansion_weight: weight of an added form relative to the typed one
            (acronym <-> expansion, compound <-> split words).
        compound_min_share: see ``Lexicon.split_form``.
        expansion_phrases: match a multi-word form ("mixture of experts",
            "test-time") as a phrase instead of all its words anywhere (more
            precise; each candidate's stored text is then re-read: slow for
            common words at 100k papers).
        coord: Lucene-style coordination: scores are multiplied by
            ``(matched groups / query groups) ** coord`` (0 turns it off); a
            group is one typed word, phrase, acronym/compound run or
            parenthesised group.
        prf_docs, prf_terms, prf_weight: RM3-like pseudo-relevance feedback
            (0 docs turns it off): add the top ``prf_terms`` key terms of the
            first ``prf_docs`` hits, each weighted ``prf_weight``.
        similar_terms: key terms of a paper used to find similar papers.
        similar_title_weight: how much a title term counts vs an abstract term.
        resolve_min_coverage: share of the words a search hit must match for
            ``resolve`` to treat it as the paper meant.
        spell_min_chars: shortest word ever spelling-corrected.
        spell_prefix: leading characters a correction must share (speed).
        prefix_max_terms: most words a ``prefix*`` expands to.
        max_clauses: most words/phrases used from one query.
        time_limit_s: stop scoring after this many seconds (a note says the
            results may be incomplete).
    """

    # SciFact numbers below: nDCG@10 on train (809 queries; choices made on
    # train only), measured through this product with benchmarks/relevance.py
    # (BEIR SciFact train judgments).
    # k1/b 1.2/0.75: train 0.6987; 0.9/0.6: 0.6959; 1.5/0.8: 0.6975
    k1: float = 1.2
    b: float = 0.75
    idf: str = "bm25"  # Lucene idf: train 0.6462 -> 0.6502 (Whoosh idf "whoosh")
    common_df: float = 0.05  # common-terms rule: train 0.6970 -> 0.6987
    common_min_docs: int = 100  # small corpora: every word is "common" (off)
    field_b: dict = field(default_factory=lambda: {"title": 0.5, "name": 0.3})
    weights: dict = field(default_factory=lambda: {
        "title": 2.0, "name": 2.0, "name_key": 3.0, "abstract": 1.0,
        "authors": 1.5, "venue": 1.0})
    # acronym expansions hurt SciFact (benchmarks/relevance.py): with coord 0,
    # weight 0.8 -> 0.3 gave train 0.6668 -> 0.6896 (porter, before minsize=1)
    expansion_weight: float = 0.3
    expansion_phrases: bool = False
    # a joined word ("testtime") also matches its parts ("test-time") only when
    # at least this share of its papers hyphenate it (not "net-works"); set a
    # priori, not tuned: SciFact train 0.7001 -> 0.7010 with it
    compound_min_share: float = 0.1
    coord: float = 0.0  # coordination 1.0 vs 0: train 0.6792 vs 0.6987
    prf_docs: int = 0
    prf_terms: int = 10
    prf_weight: float = 0.3
    similar_terms: int = 25
    similar_title_weight: float = 2.0
    resolve_min_coverage: float = 0.75
    spell_min_chars: int = 5
    spell_prefix: int = 1
    prefix_max_terms: int = 64
    max_clauses: int = 32
    time_limit_s: float = 0.8

    def spell_max_edits(self, word: str) -> int:
        """Edits allowed when correcting ``word``: 1 up to 7 letters, else 2."""
        return 1 if len(word) <= 7 else 2


DEFAULT = Ranking()
