"""Text analysis of the index: tokenizer, folding, stop words, stemming.

These are index-time settings (``paperbot index build`` applies a change):
the analyzer is pickled into each index generation's schema, so a search
always analyses the query with the analyzer its generation was built with.
``PaperAnalyzer`` keeps the import path ``bot.search.ranking.PaperAnalyzer``
in those pickles (see ``bot/search/ranking.py``).
"""

from __future__ import annotations

import re
import unicodedata

from whoosh.lang.porter import stem as porter_stem
from whoosh.lang.snowball.english import EnglishStemmer

from bot.search.index.whoosh_internals import Composable, Token

#: Whoosh's English stop list (StopFilter default); "it", "the", "of" are in it.
STOP_WORDS = frozenset(
    "a an and are as at be by can for from have if in is it may not of on or tbd"
    " that the this to us we when will with yet you your".split()
)

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
    searched alike (see ``bot.search.query.compile``) without indexing compounds.
    Single characters are dropped unless they are part of a hyphenated word
    ("k-means").

    Args:
        stoplist: words never indexed.
        minsize: shortest standalone token kept (characters).
        stemmer: a key of ``STEMMERS``.
        max_parts: hyphenated words with more parts get no compound token.
        caps: keep a stop word written in capitals as the acronym it is (see ``words``).
        acronym_case: index such a kept stop word in capitals, unstemmed ("IT"), so it
            never meets the stem of another word ("its" -> "it").
    """

    is_morph = True
    #: keep a stop word written in capitals ("IT", "US") as the acronym it is;
    #: False for analyzers pickled before this rule (their indexes lack them)
    caps = False
    #: index a kept stop word as its capitals ("IT"), not as the stem "it" that
    #: "its" also has; False for analyzers pickled before this rule (issue 18)
    acronym_case = False

    def __init__(self, stoplist=STOP_WORDS, minsize=2, stemmer="porter", max_parts=4, caps=False, acronym_case=False):
        self.stoplist = frozenset(stoplist)
        self.caps = caps
        self.acronym_case = acronym_case
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
        if fn is None or not word.isalpha() or word.isupper():  # capitals: a kept acronym ("IT")
            return word
        cache = _STEM_CACHES[self.stemmer]
        cached = cache.get(word)
        if cached is None:
            if len(cache) > 500_000:
                cache.clear()
            cached = cache[word] = fn(word)
        return cached

    def words(self, text: str, compounds: bool = False, caps: bool | None = None):
        """Yield ``(word, start, end, pos, parts)`` for each kept unstemmed word.

        ``parts`` is None except for compound entries (only with
        ``compounds=True``; never indexed): then ``word`` is the joined form
        and ``parts`` the folded parts joined by spaces ("test time").
        A stop word written in capitals ("IT", "US") is kept when the analyzer
        has ``caps`` and ``caps`` is True, or None and fewer than half of
        ``text``'s words are in capitals (a title in capitals keeps none).

        Args:
            text: the text to analyse.
            compounds: also yield the joined form of each hyphenated word (for the lexicon).
            caps: apply the caps rule: True, False, or None to decide from ``text`` (ignored when the analyzer has no
                ``caps``).
        """
        pos = 0
        stop, minsize = self.stoplist, self.minsize
        if not self.caps:
            caps = False
        for m in WORD_RE.finditer(text):
            word = m.group()
            if "-" in word or (not word.isascii() and CJK_RE.search(word)):
                # hyphenated or CJK: the token's pieces, by the rules of ``token``
                start = m.start()
                for low, s, e, parts in self.token(word)[0]:
                    if parts is None:
                        yield low, start + s, start + e, pos, None
                        pos += 1
                    elif compounds:
                        yield low, start + s, start + e, pos, parts
                continue
            low = fold(word)
            if low not in stop:
                if len(low) >= minsize:
                    yield low, m.start(), m.end(), pos, None
                    pos += 1
            elif caps is not False and len(word) > 1 and word.isupper():
                if caps is None:
                    caps = mostly_lower(text)
                if caps:
                    yield self.acronym(low), m.start(), m.end(), pos, None
                    pos += 1

    def acronym(self, low: str) -> str:
        """The indexed word of a stop word kept as an acronym: ``low`` in
        capitals under ``acronym_case`` ("it" -> "IT"), else ``low``."""
        return low.upper() if self.acronym_case else low

    def token(self, word: str) -> tuple[tuple, str | None]:
        """``(items, caps_low)`` of one ``WORD_RE`` token (for builds, which
        keep per-token tables: ``bot.search.index.bulk_documents``): ``items`` are
        ``(low, start, end, parts)`` with offsets inside the token, in ``words()`` order (a compound entry,
        ``parts`` not None, before its parts); ``caps_low`` is the folded
        word when the token is a stop word written in capitals (kept only
        under the caps rule of ``words()``), else None."""
        stop, minsize = self.stoplist, self.minsize
        if not word.isascii() and CJK_RE.search(word):
            items = []
            for piece in _CJK_SPLIT_RE.finditer(word):
                low = fold(piece.group())
                if low not in stop and (len(low) >= minsize or CJK_RE.match(low)):
                    items.append((low, piece.start(), piece.end(), None))
            return tuple(items), None
        if "-" not in word:
            low = fold(word)
            if low not in stop:
                return (((low, 0, len(word), None),) if len(low) >= minsize else ()), None
            return (), (self.acronym(low) if len(word) > 1 and word.isupper() else None)
        parts, offset = fold(word).split("-"), 0
        items = [("".join(parts), 0, len(word), " ".join(parts))] if len(parts) <= self.max_parts else []
        for part in parts:
            if part and part not in stop:
                items.append((part, offset, offset + len(part), None))
            offset += len(part) + 1
        return tuple(items), None

    def terms(self, value: str) -> list[str]:
        """The indexed term texts of ``value`` in order — exactly the token
        texts ``__call__`` yields in index mode (``Analyzed`` values reuse their
        words); used by the bulk segment writer (``bot.search.index.bulk_segment``)."""
        if isinstance(value, Analyzed):
            if value.terms is None:
                value.terms = self._terms(value.tokens)
            return value.terms
        return self._terms(self.words(value))

    def _terms(self, items) -> list[str]:
        stem = self.stem  # cached; returns the word itself without a stemmer
        return [stem(text) for text, _, _, _, parts in items if parts is None]

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        no_morph=False,
        nomorph=False,
        **kwargs,
    ):
        caps = kwargs.pop("caps", None)
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        t.boost, t.stopped = 1.0, False
        morph = self.is_morph and not (no_morph or nomorph)
        if isinstance(value, Analyzed):
            items = value.tokens
        elif not tokenize:
            items = [(fold(value), 0, len(value), 0, None)]
        else:
            items = self.words(value, caps=caps)
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


# Pickled path: every generation's schema pickles its analyzers by class path,
# and indexes built since the start name ``bot.search.ranking.PaperAnalyzer``.
# Declaring that module here keeps new pickles identical to old ones, and
# bot/search/ranking.py re-exports the class so both load (docs/search.md).
PaperAnalyzer.__module__ = "bot.search.ranking"


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


def mostly_lower(text: str) -> bool:
    """True when fewer than half of ``text``'s words (2+ letters) are in capitals."""
    words = [w for w in WORD_RE.findall(text) if len(w) > 1 and w.isalpha()]
    return sum(w.isupper() for w in words) * 2 < len(words)


def text_analyzer(**overrides) -> PaperAnalyzer:
    """Analyzer of title, name, abstract and all (index-time setting).

    Porter2 (SciFact train nDCG@10 0.6937 -> 0.6966 over Porter); single
    characters dropped outside hyphenated words (keeping them did not hold
    in the ablation: train +0.0013, known-item -0.0003; docs/search.md).
    ``overrides``: ``PaperAnalyzer`` arguments replacing these (an ablation
    build, ``bot.search.index.schema.IndexRules``)."""
    return PaperAnalyzer(**{"minsize": 2, "stemmer": "porter2", "caps": True, "acronym_case": True, **overrides})


def plain_analyzer() -> PaperAnalyzer:
    """Analyzer of authors and venue: folded words, no stop words, no stemming."""
    return PaperAnalyzer(stoplist=(), minsize=1, stemmer="none")
