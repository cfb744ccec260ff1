"""The "similar papers" query: a paper's whole title and abstract as a more-like-this
query, and the rule that a similar paper shares at least two of its key terms (issue 18);
also the key terms pseudo-relevance feedback adds (``bot.search.scoring.rank``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace

from bot.core.models import Paper, QueryError
from bot.search.index.analysis import STEMMERS
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
    letters or digits), no English function word, stemmed with Snowball's English stemmer
    (https://snowballstem.org/algorithms/english/stemmer.html); each scored tf × ln(N / df),
    a title word counting ``r.similar_title_weight`` and an abstract word 1, df the
    number of papers whose title or abstract holds the stem's most frequent form among the
    source's words (the index's ``all`` field).
    A candidate shares a key term when a word of its title or abstract has that stem.

    Args:
        searcher: an open Whoosh searcher.
        paper: the source paper.
        r: ranking settings.
    """

    def __init__(self, searcher, paper: Paper, r: Ranking) -> None:
        field = "all" if "all" in searcher.schema else "abstract"
        reader, analyzer = searcher.reader(), searcher.schema["abstract"].analyzer
        docs = max(1, reader.doc_count())
        tf: Counter = Counter()
        words: dict[str, set[str]] = {}
        for text, weight in ((paper.abstract, 1.0), (paper.title, r.similar_title_weight)):
            for stem, word in _stems(text):
                tf[stem] += weight
                words.setdefault(stem, set()).add(analyzer.stem(word))
        scored = []
        for stem, freq in tf.items():  # a stem's df: its most frequent indexed form's
            df = max(reader.doc_frequency(field, term) for term in words[stem])
            if df:
                scored.append((-freq * math.log(docs / df), stem))
        self.terms = {stem for _, stem in sorted(scored)[: r.similar_key_terms]}
        #: the key terms as the index analyses them (for the snippets' marks)
        self.marks = {term for stem in self.terms for term in words[stem]}
        self.need = min(r.similar_min_shared, len(self.terms))

    def holds(self, other: Paper) -> bool:
        """True when ``other`` shares enough of the key terms."""
        if self.need <= 0:
            return True
        found = {stem for text in (other.title, other.abstract) for stem, _ in _stems(text) if stem in self.terms}
        return len(found) >= self.need


_WORD = re.compile(r"[a-z][a-z0-9]*")


def _stems(text: str):
    """``(stem, word)`` for each word of ``text`` that may be a key term (``SharedTerms``)."""
    for word in _WORD.findall(text.lower()):
        if len(word) >= 3 and word not in FUNCTION_WORDS:
            yield STEMMERS["porter2"](word), word
