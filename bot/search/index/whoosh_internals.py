"""Every use of Whoosh's private or version-sensitive API, in one room.

paperbot pins whoosh-reloaded 2.7.5 (``pyproject.toml``). Two speed paths read
or write Whoosh's on-disk structures below its public API:

* **block decoding** (``posting_blocks``): the scorer reads whole posting
  blocks of a ``W3LeafMatcher`` (private ``_data``, ``_read_data``,
  ``_next_block``, ``_blocklength``) instead of one ``id()``/``weight()`` call
  per posting;
* **the bulk block writer** (``new_segment``, ``write_term_blocks``): a full
  build fills ``W3PostingsWriter``'s block buffer (private ``_ids``,
  ``_weights``, ``_values``, ``_maxweight``, ``_minlength``, ``_maxlength``,
  ``_write_block``) and writes the table of contents itself (``write_toc``).

Both are checked against Whoosh's own paths by ``tests/search/index/test_bulk_segment.py``
and ``tests/search/index/test_whoosh_internals.py`` — on the tested version only. The
**version guard** ``fast_paths()`` is True only on a version in
``TESTED_VERSIONS``; elsewhere the scorer walks the public matcher API and a
build uses Whoosh's own ``SegmentWriter`` (same rankings, slower), and one
warning line is logged. See ``docs/search.md`` ("Whoosh internals").

The rest is version-sensitive but public: the leaf readers of a multi-segment
reader, priming the files a reader opens lazily, the Levenshtein automata used
for spelling, and the analyzer protocol (``Composable``, ``Token``).
"""

from __future__ import annotations

import logging
from array import array
from bisect import bisect_left
from itertools import accumulate

import whoosh
from whoosh.analysis import Composable, Token
from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton
from whoosh.codec import default_codec
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC
from whoosh.system import pack_uint
from whoosh.util.numeric import byte_to_length, length_to_byte

from bot.core import budget

__all__ = [
    "Composable",
    "Token",
    "TESTED_VERSIONS",
    "fast_paths",
    "posting_blocks",
    "leaves",
    "prime",
    "field_terms",
    "memo_terms",
    "edit_matches",
    "new_segment",
    "write_term_blocks",
    "write_toc",
    "stored_length",
    "pack_uint",
    "PACKED",
    "BLOCK",
    "INDEXNAME",
]

log = logging.getLogger(__name__)

#: Whoosh versions the private paths were tested with (``whoosh.versionstring()``).
TESTED_VERSIONS = frozenset({"2.7.5"})
#: The running Whoosh's version (tests fake it to exercise the fallback).
VERSION = whoosh.versionstring()
#: Postings per block: ``W3Codec``'s default ``blocklimit`` (a segment written
#: by ``write_term_blocks`` must read exactly like one written by Whoosh).
BLOCK = 128
#: Whoosh's main index name inside a generation directory.
INDEXNAME = "MAIN"
#: ``pack_uint(f)`` for the frequencies almost every posting has.
PACKED = [pack_uint(f) for f in range(1024)]

_warned: set[str] = set()


def fast_paths() -> bool:
    """True when the running Whoosh is one the private paths were tested with.

    On any other version, logs one warning (once per version and process) and
    returns False: callers then use Whoosh's public API instead.
    """
    return VERSION in TESTED_VERSIONS or _untested()


def _untested() -> bool:
    """Log (once per version) that the fallbacks are in use; returns False."""
    if VERSION not in _warned:
        _warned.add(VERSION)
        log.warning(
            "Whoosh %s is not a tested version (%s): using Whoosh's public matcher "
            "and SegmentWriter (slower, same results)",
            VERSION,
            ", ".join(sorted(TESTED_VERSIONS)),
        )
    return False


# --- reading ------------------------------------------------------------------


def leaves(reader) -> list:
    """``[(segment reader, docnum offset)]`` of a (multi-)reader."""
    return reader.leaf_readers() if hasattr(reader, "leaf_readers") else [(reader, 0)]


def posting_blocks(leaf_list, fieldname: str, text: str):
    """Yield ``(docnums, term frequencies)`` lists per posting block of one
    term, docnums global (``leaf_list`` from ``leaves``).

    Fast path (tested versions, W3 matchers): each block is decoded once —
    docnums are delta-coded, weights ``None`` mean all 1.0 and a float means
    all that value. Otherwise: the public ``is_active``/``id``/``weight``/
    ``next`` matcher API, one list per segment.

    Args:
        leaf_list: ``leaves(reader)``.
        fieldname: the field.
        text: the term, as indexed.
    """
    fast = VERSION in TESTED_VERSIONS or _untested()  # fast_paths(), inlined: per term
    for leaf, offset in leaf_list:
        if (fieldname, text) not in leaf:
            continue
        m = leaf.postings(fieldname, text)
        if fast and hasattr(m, "_read_data") and hasattr(m, "_next_block"):
            while m.is_active():
                if m._data is None:
                    m._read_data()
                raw_ids, weights = m._data[0], m._data[1]
                n = m._blocklength
                ids = list(accumulate(raw_ids, initial=offset))[1:]
                if weights is None or isinstance(weights, float):
                    weights = [weights or 1.0] * n
                yield ids, weights
                m._next_block()
        else:
            ids, weights = [], []
            while m.is_active():
                ids.append(offset + m.id())
                weights.append(m.weight())
                m.next()
            yield ids, weights


def prime(searcher, fieldnames) -> None:
    """Open every file ``searcher`` reads now: Whoosh opens column files
    (stored fields, lengths, ids) on first use, which fails once a newer build
    has deleted the generation's directory.

    Args:
        searcher: the open Whoosh searcher.
        fieldnames: fields whose lengths are read too.
    """
    for leaf, _ in leaves(searcher.reader()):
        if leaf.doc_count_all():
            leaf.stored_fields(0)
            if leaf.has_column("id"):
                leaf.column_reader("id")
            for name in fieldnames:
                leaf.doc_field_length(0, name)


#: Most (field, term) answers one reader remembers (then it starts over).
MEMO_MAX = 200_000
_MEMO_CLASSES: dict[type, type] = {}


def field_terms(reader, fieldnames) -> dict[str, frozenset[str]]:
    """Every term of each of ``fieldnames`` that ``reader`` has (absent fields
    left out), read once from each segment's term table (~0.2 s for the author
    and name terms of 100,000 papers).

    Args:
        reader: an open Whoosh reader.
        fieldnames: the fields (small vocabularies: names, authors).
    """
    out = {}
    for name in fieldnames:
        if name in reader.schema:
            terms: set[str] = set()
            for leaf, _ in leaves(reader):
                terms.update(t.decode("utf-8") if isinstance(t, bytes) else t for t in leaf.lexicon(name))
            out[name] = frozenset(terms)
    return out


def memo_terms(reader, complete: dict[str, frozenset[str]] | None = None) -> None:
    """Make ``reader`` remember ``(field, term) in reader`` and
    ``doc_frequency(field, term)`` answers. A generation never changes once
    written, and each uncached answer is a hash-table read per segment in
    Python (~20 us; a pasted abstract asks ~2,000 of them). Done by switching
    the instance to a subclass of its own class, so the public API stays.

    Args:
        reader: the searcher's reader.
        complete: field -> every term of that field (``field_terms``): a term
            of such a field is looked up in Whoosh only when it is there (most
            words of a query are no author's name and no paper's name).
    """
    reader.__dict__["_paperbot_complete"] = complete or {}
    cls = type(reader)
    if getattr(cls, "_paperbot_memo", False):
        return
    memo = _MEMO_CLASSES.get(cls)
    if memo is None:

        def __contains__(self, key):
            cache = self.__dict__.setdefault("_paperbot_has", {})
            got = cache.get(key)
            if got is None:
                if len(cache) > MEMO_MAX:
                    cache.clear()
                got = cache[key] = _absent(self, *key) is None and cls.__contains__(self, key)
            return got

        def doc_frequency(self, fieldname, text):
            cache = self.__dict__.setdefault("_paperbot_df", {})
            key = (fieldname, text)
            got = cache.get(key)
            if got is None:
                if len(cache) > MEMO_MAX:
                    cache.clear()
                got = _absent(self, fieldname, text)
                got = cache[key] = cls.doc_frequency(self, fieldname, text) if got is None else got
            return got

        memo = _MEMO_CLASSES[cls] = type(
            f"Memo{cls.__name__}",
            (cls,),
            {"__contains__": __contains__, "doc_frequency": doc_frequency, "_paperbot_memo": True},
        )
    reader.__class__ = memo


def _absent(reader, fieldname, text) -> int | None:
    """0 when ``text`` is certainly not a term of ``fieldname`` (the field's
    complete term set says so), else None: ask Whoosh."""
    terms = reader.__dict__.get("_paperbot_complete", {}).get(fieldname)
    return 0 if terms is not None and isinstance(text, str) and text not in terms else None


def edit_matches(word: str, dist: int, prefix: int, words: list[str]) -> set[str]:
    """Words of the sorted list ``words`` within ``dist`` Levenshtein edits of
    ``word`` and sharing its first ``prefix`` characters (``whoosh.automata``:
    the automaton skips through the list by bisection).

    Args:
        word: the word looked for.
        dist: most edits.
        prefix: leading characters that must be equal.
        words: the vocabulary, sorted.
    """
    dfa = levenshtein_automaton(word, dist, prefix).to_dfa()

    def next_word(w: str) -> str | None:
        if budget.exhausted():  # bot.core.budget: the request's CPU is spent, stop looking
            return None
        i = bisect_left(words, w)
        return words[i] if i < len(words) else None

    return set(find_all_matches(dfa, next_word))


# --- writing ------------------------------------------------------------------


def stored_length(length: int) -> int:
    """A field length as Whoosh reads it back: lengths are stored as one byte
    (``length_to_byte``), so e.g. 1000 comes back as 1032."""
    return byte_to_length(length_to_byte(length)) if length else 0


def new_segment(generation, codec=None):
    """``(codec, storage, segment, per-document writer)`` for one new segment
    of the index in the directory ``generation`` (Whoosh's default codec).

    Args:
        generation: the generation directory.
        codec: a Whoosh codec (default: ``default_codec()``).
    """
    codec = codec if codec is not None else default_codec()
    storage = FileStorage(str(generation))
    segment = codec.new_segment(storage, INDEXNAME)
    return codec, storage, segment, codec.per_document_writer(storage, segment)


def write_term_blocks(
    field_writer, ids: list[int], weights: list[float], values: list[bytes], lengths: array | None
) -> None:
    """Hand one term's postings to the codec's posting writer ``BLOCK`` at a
    time, with the statistics ``add_posting`` would have kept; all but the last
    block are written here, the last by ``finish_term`` (as Whoosh does).

    Call between ``field_writer.start_term`` and ``finish_term``.

    Args:
        field_writer: the codec's field writer, between ``start_term`` and ``finish_term``.
        ids: the term's docnums, ascending.
        weights: the posting weight of each (frequency x field boost).
        values: the encoded posting value of each (``whoosh.formats``).
        lengths: the field length per docnum, or None for a field without lengths.
    """
    postwriter = field_writer._postwriter
    n = len(ids)
    for start in range(0, n, BLOCK):
        end = min(start + BLOCK, n)
        block_ids = ids[start:end]
        block_weights = weights[start:end]
        postwriter._ids = array("I", block_ids)
        postwriter._weights = array("f", block_weights)
        postwriter._values = list(filter(None, values[start:end]))  # as add_posting keeps them
        postwriter._maxweight = max(0, max(block_weights))
        if lengths is not None:
            block_lengths = list(map(lengths.__getitem__, block_ids))
            postwriter._minlength = min(filter(None, block_lengths), default=None)
            postwriter._maxlength = max(block_lengths)
        else:
            postwriter._minlength, postwriter._maxlength = None, 0
        if end < n:
            postwriter._write_block()


def write_toc(ix, segments: list) -> None:
    """Make ``segments`` the index's content: write the next table of contents
    (what ``SegmentWriter.commit`` does after writing its segment).

    Args:
        ix: the Whoosh index.
        segments: the segments it holds from now on.
    """
    TOC(ix.schema, segments, ix.latest_generation() + 1).write(ix.storage, INDEXNAME)
