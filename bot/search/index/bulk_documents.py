"""Build-time analysis of whole papers, each distinct token analysed once.

A full build (``bot.search.index.build``) analyses 100k abstracts; most of their
~15 million tokens are repeats of a few hundred thousand distinct ones.
``TextTerms`` cuts a text with ``analysis.WORD_RE`` in one C call and looks
every token up in per-token tables filled by ``PaperAnalyzer.token`` — the
same per-token rule ``PaperAnalyzer.words`` applies — so each distinct
token is folded, split and stemmed once per process:

* index terms: the stems ``PaperAnalyzer.terms`` gives (the same multiset;
  a stop word kept under the caps rule is appended at the end, not in place —
  the bulk writer only counts terms);
* lexicon input: the distinct words and the compounds (joined form -> parts,
  first spelling first) ``LexiconBuilder.add`` would collect from ``words()``.

``bulk_document`` is ``schema.paper_to_document`` for ``SegmentBuilder``:
the same fields, with every analysed field's terms computed here.
``tests/search/index/test_bulk_documents.py`` checks both against the ``words()`` path.
"""

from __future__ import annotations

import gc
from array import array
from itertools import chain, compress, repeat
from operator import is_
from pathlib import Path
from typing import Callable

from bot.core.models import Paper
from bot.search.index.analysis import WORD_RE, Analyzed, mostly_lower
from bot.search.index.bulk_segment import SegmentBuilder
from bot.search.index.schema import DEFAULT_RULES, IndexRules, all_text, paper_to_json, with_keys
from bot.search.query.lexicon import LexiconBuilder
from bot.search.scoring.impacts import FIELDS as IMPACT_FIELDS
from bot.search.scoring.impacts import save_impact_parts
from bot.search.scoring.norms import save_length_arrays

#: Most distinct tokens one ``TextTerms`` keeps (then it starts over).
TOKEN_TABLE_MAX = 2_000_000
#: How often (in papers) a build reports progress (``write_chunk``'s ``tick``).
PROGRESS_EVERY = 100


class TextTerms:
    """Per-token tables of one analyzer (one per build process).

    Args:
        analyzer: a ``PaperAnalyzer`` (its stop list, minsize, stemmer, caps).
    """

    def __init__(self, analyzer) -> None:
        self.analyzer = analyzer
        self.caps_rule = bool(analyzer.caps)
        self._stems: dict[str, tuple] = {}  # token -> its index terms
        self._words: dict[str, tuple] = {}  # token -> its lexicon words
        self._compound: dict[str, tuple] = {}  # token -> (joined, parts), hyphenated only
        self._caps: dict[str, str] = {}  # token -> its word under the caps rule

    def _learn(self, token: str) -> None:
        items, caps_low = self.analyzer.token(token)
        stem = self.analyzer.stem
        self._stems[token] = tuple(stem(low) for low, _, _, parts in items if parts is None)
        self._words[token] = tuple(low for low, _, _, _ in items)
        for low, _, _, parts in items:
            if parts is not None:
                self._compound[token] = (low, parts)
        if caps_low is not None:
            self._caps[token] = caps_low

    def cut(self, text: str) -> tuple[list[str], list[str], list[str]]:
        """``(tokens, terms, caps words)`` of ``text``: the ``WORD_RE``
        tokens, the index terms (see the module docstring) and the stop words
        kept under the caps rule (folded, unstemmed)."""
        tokens = WORD_RE.findall(text)
        if len(self._stems) > TOKEN_TABLE_MAX:
            self.__init__(self.analyzer)
        got = list(map(self._stems.get, tokens))
        if None in got:  # tokens not seen before: learn them, once each
            for token in set(compress(tokens, map(is_, got, repeat(None)))):
                self._learn(token)
            got = list(map(self._stems.__getitem__, tokens))
        terms = list(chain.from_iterable(got))
        kept: list[str] = []
        if self.caps_rule and not self._caps.keys().isdisjoint(tokens) and mostly_lower(text):
            kept = [self._caps[t] for t in tokens if t in self._caps]
            terms.extend(map(self.analyzer.stem, kept))
        return tokens, terms, kept

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text`` (see ``cut``)."""
        return self.cut(text)[1]

    def lexicon_words(self, cuts: list[tuple]) -> tuple[set, list]:
        """``(words, compounds)`` of several ``cut`` results, as
        ``LexiconBuilder.add`` collects them from ``words(compounds=True)``:
        the distinct words (compounds' joined forms included) and the
        ``(joined, parts)`` pairs in text order."""
        words: set[str] = set()
        compounds: list = []
        for tokens, _, kept in cuts:
            distinct = set(tokens)
            words = words.union(*map(self._words.__getitem__, distinct), kept)
            if self._compound.keys().isdisjoint(distinct):
                continue
            compounds.extend(filter(None, map(self._compound.get, tokens)))
        return words, compounds


def bulk_document(
    paper: Paper, text: TextTerms, plain: TextTerms, rules: IndexRules = DEFAULT_RULES
) -> tuple[dict, set, list]:
    """``schema.paper_to_document`` for the bulk writer: the same fields, the
    analysed ones as ``Analyzed`` values carrying their terms.

    Args:
        paper: the paper.
        text: the tables of the title/name/abstract/all analyzer.
        plain: the tables of the authors/venue analyzer.
        rules: the build's index-time rules (title copies, ``all`` or not).

    Returns:
        ``(document, words, compounds)``; the last two for
        ``LexiconBuilder.add_words`` (see ``TextTerms.lexicon_words``).
    """
    title_cut, abstract_cut = text.cut(paper.title), text.cut(paper.abstract)
    title_terms, abstract_terms = title_cut[1], abstract_cut[1]
    authors = "; ".join(paper.authors)
    doc = {
        "id": paper.id,
        "key": paper.id.casefold(),
        "title": Analyzed(paper.title, None, title_terms),
        "abstract": Analyzed(paper.abstract, None, abstract_terms),
        "all": Analyzed(all_text(paper.title, paper.abstract), None, title_terms * rules.title_repeat + abstract_terms),
        "authors": Analyzed(authors, None, plain.terms(authors)),
        "venue": Analyzed(paper.venue, None, plain.terms(paper.venue)),
        "doc": paper_to_json(paper),
    }
    with_keys(doc, paper, rules, Analyzed(paper.name, None, text.terms(paper.name)) if paper.name else None)
    words, compounds = text.lexicon_words([title_cut, abstract_cut])
    return doc, words, compounds


def save_derived(gen: Path, results: list, n: int) -> None:
    """Length norms and impact arrays from the chunks' ``(segment, lexicon
    state, kept postings, lengths)`` results (chunks are contiguous).

    Args:
        gen: the generation directory the files go into.
        results: each chunk's ``write_chunk`` result, in chunk order.
        n: documents in the generation.
    """
    offsets = [0]
    for segment, _, _, _ in results:
        offsets.append(offsets[-1] + segment.doc_count_all())
    lengths = {}
    for name in results[0][3]:
        lengths[name] = array("I")
        for _, _, _, part in results:
            lengths[name].extend(part[name])
    save_length_arrays(gen, lengths, n)
    save_impact_parts(gen, [kept for _, _, kept, _ in results], offsets[:-1])


def write_chunk(
    gen: Path, ix, papers: list[Paper], rules: IndexRules, start: int, end: int, tick: Callable[[int], None]
):
    """Write ``papers[start:end]`` as one segment; returns ``(segment, lexicon
    state, kept postings, lengths)`` (``SegmentBuilder.kept``, ``.lengths``).

    Args:
        gen: the generation directory the segment goes into.
        ix: the generation's Whoosh index (its schema and analyzers).
        papers: every paper of the build.
        rules: the build's index-time rules.
        start: the chunk's first paper (an index into ``papers``).
        end: one past its last paper.
        tick: called with the number of papers written since the last call.
    """
    analyzer = ix.schema["abstract"].analyzer
    text, plain = TextTerms(analyzer), TextTerms(ix.schema["authors"].analyzer)
    lexicon = LexiconBuilder(analyzer.stem)
    builder = SegmentBuilder(gen, ix.schema, keep=tuple(f for f in IMPACT_FIELDS if f in ix.schema.names()))
    gc_was_on = gc.isenabled()
    gc.disable()  # millions of small objects, no cycles: ~7 % of a build
    try:
        for i in range(start, end):
            paper = papers[i]
            doc, words, compounds = bulk_document(paper, text, plain, rules)
            builder.add(doc)
            lexicon.add_words(paper.abstract, words, compounds)
            if (i - start + 1) % PROGRESS_EVERY == 0:
                tick(PROGRESS_EVERY)
        if (end - start) % PROGRESS_EVERY:
            tick((end - start) % PROGRESS_EVERY)
        return builder.finish(), lexicon.state(), builder.kept, builder.lengths
    finally:
        if gc_was_on:
            gc.enable()
