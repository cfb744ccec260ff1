"""Papers as term vectors, read from the index (for ``bot.recommend``).

The vectors are the ``all`` field's postings — the title ``knobs.TITLE_REPEAT``
times, then the abstract, analysed and stemmed as search analyses them — so a
recommendation and a search read the same words; there is no second text
pipeline. Terms in at least ``MIN_DF`` papers and at most ``MAX_DF_SHARE`` of
them are kept (a word of one paper cannot make two papers alike). Postings come
from the impact arrays where the build wrote them (``scoring.impacts``: terms in
128 papers or more) and from Whoosh's postings for the rarer terms.

``readable`` turns stems back into the words a paper's text spells them with
(the way snippets find the words of a stem, ``scoring.hits``), joining two
chosen stems that stand side by side into a phrase ("sparse attention").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.search.index.analysis import WORD_RE
from bot.search.index.whoosh_internals import leaves
from bot.search.scoring.impacts import impacts_of

#: The field read: title and abstract together (``index.schema``).
FIELD = "all"
#: Terms in fewer papers are left out.
MIN_DF = 2
#: Terms in more than this share of the papers are left out.
MAX_DF_SHARE = 0.5


@dataclass(frozen=True)
class PaperVectors:
    """The term counts of every paper of one generation, column by column.

    Attributes:
        ids: paper id by docnum (``""`` for a deleted document).
        live: bool per docnum, False for deleted documents.
        terms: the stem of each column.
        df: int32 per column, papers with the term (deleted ones included).
        indptr: int64, ``len(terms) + 1``: column ``j``'s postings are
            ``docs[indptr[j]:indptr[j + 1]]`` (docnums ascending) and ``tf`` alike.
        docs: int32 docnums.
        tf: float32 counts (the title's copies included).
    """

    ids: tuple[str, ...]
    live: np.ndarray
    terms: tuple[str, ...]
    df: np.ndarray
    indptr: np.ndarray
    docs: np.ndarray
    tf: np.ndarray

    def nbytes(self) -> int:
        """Bytes held by the arrays (the ids and terms not counted)."""
        return int(self.live.nbytes + self.df.nbytes + self.indptr.nbytes + self.docs.nbytes + self.tf.nbytes)


def read_vectors(searcher, norms) -> PaperVectors:
    """Read the ``PaperVectors`` of the generation ``searcher`` reads.

    Args:
        searcher: an open Whoosh searcher of the generation.
        norms: the generation's ``Norms`` (its deleted documents and impact arrays).
    """
    reader = searcher.reader()
    n = reader.doc_count_all()
    column = reader.column_reader("id")
    deleted = norms.deleted(reader)
    ids = tuple("" if d in deleted else _text(column[d]) for d in range(n))
    live = np.ones(n, dtype=bool)
    live[list(deleted)] = False
    top = max(MIN_DF, int(MAX_DF_SHARE * n))
    imp, leaf_list = impacts_of(norms), leaves(reader)
    terms, dfs, ends, doc_parts, tf_parts, at = [], [], [0], [], [], 0
    if FIELD in reader.schema:
        for tbytes, info in reader.iter_field(FIELD):
            df = info.doc_frequency()
            if df < MIN_DF or df > top:
                continue
            text = _text(tbytes)
            docs, tf = imp.postings(leaf_list, FIELD, text)
            terms.append(text)
            dfs.append(df)
            doc_parts.append(np.asarray(docs, dtype=np.int32))
            tf_parts.append(np.asarray(tf, dtype=np.float32))
            at += len(docs)
            ends.append(at)
    return PaperVectors(
        ids=ids,
        live=live,
        terms=tuple(terms),
        df=np.asarray(dfs, dtype=np.int32),
        indptr=np.asarray(ends, dtype=np.int64),
        docs=np.concatenate(doc_parts) if doc_parts else np.zeros(0, np.int32),
        tf=np.concatenate(tf_parts) if tf_parts else np.zeros(0, np.float32),
    )


def readable(analyzer, text: str, stems: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The words ``text`` spells ``stems`` with, in the order of ``stems``.

    Two of the stems that stand side by side at least ``PHRASE_MIN`` times in
    ``text`` (only a space or a hyphen between) become one phrase, placed where
    the first of them was ("sparse attention"; a pair met once, "tokens often",
    stays two words). A word capitalised only because it starts a sentence or
    a title ("Multimodal") is shown in lower case; "KV", "LLMs", "ViT" keep
    theirs. A word joined to others by hyphens is shown with them
    ("layer-wise"). A stem ``text`` does not contain is left out. Only words
    whose first two letters could start a wanted stem are analysed (stemmers
    change endings only), as snippets do (``scoring.hits``).

    Args:
        analyzer: the generation's text analyzer (``PaperAnalyzer``).
        text: the paper's title and abstract.
        stems: the stems wanted, most important first.

    Returns:
        ``[(label, stems it stands for)]``; each label is a slice of ``text``
        (its case aside).
    """
    wanted, heads = set(stems), {s[:2] for s in stems}
    seen: dict[str, list[tuple[int, int]]] = {}
    marks: dict[str, list] = {}
    for m in WORD_RE.finditer(text):
        word = m.group()
        if word.isascii() and "-" not in word and word[:2].lower() not in heads:
            continue
        found = marks.get(word)
        if found is None:  # the index's own rules for one token, each word stemmed once
            items, _ = analyzer.token(word)
            found = marks[word] = [(analyzer.stem(low), a, b) for low, a, b, parts in items if parts is None]
        for stem, a, b in found:
            if stem in wanted:
                seen.setdefault(stem, []).append((m.start() + a, m.start() + b))
    out, used = [], set()
    for stem in stems:
        if stem in used or stem not in seen:
            continue
        label, group = _phrase(text, stem, seen, used, stems)
        used.update(group)
        out.append((" ".join(_shown(w) for w in label.split(" ")), group))
    return out


#: Side-by-side occurrences that make two words a phrase.
PHRASE_MIN = 2


def _phrase(text: str, stem: str, seen: dict, used: set, stems: list[str]) -> tuple[str, tuple[str, ...]]:
    """``stem``'s first spelling, or a phrase of it and the wanted stem most often
    next to it (at least ``PHRASE_MIN`` times; ties: the earlier in ``stems``)."""
    best: list[tuple[int, int]] = []
    partner = None
    for other in stems:
        if other == stem or other in used or other not in seen:
            continue
        found = []
        for start, end in seen[stem]:
            for start2, end2 in seen[other]:
                (s1, e1), (s2, e2) = sorted([(start, end), (start2, end2)])
                if text[e1:s2] in (" ", "-"):
                    found.append((s1, e2))
        if len(found) >= PHRASE_MIN and len(found) > len(best):
            best, partner = found, other
    if partner is not None:
        s1, e2 = min(best)
        return text[s1:e2], (stem, partner)
    start, end = seen[stem][0]
    return _hyphenated(text, start, end), (stem,)


def _shown(word: str) -> str:
    """``word`` in lower case when only its first letter is a capital."""
    return word.lower() if word[:1].isupper() and word[1:] == word[1:].lower() else word


def _hyphenated(text: str, start: int, end: int) -> str:
    """The word at ``text[start:end]`` with the words hyphens join to it ("wise" -> "layer-wise")."""
    while start > 1 and text[start - 1] == "-" and text[start - 2].isalnum():
        start -= 1
        while start > 0 and text[start - 1].isalnum():
            start -= 1
    while end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum():
        end += 1
        while end < len(text) and text[end].isalnum():
            end += 1
    return text[start:end]


def _shown(word: str) -> str:
    """``word`` in lower case when only its first letter is a capital."""
    return word.lower() if word[:1].isupper() and word[1:] == word[1:].lower() else word


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
