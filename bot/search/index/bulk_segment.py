"""Bulk writing of one Whoosh segment for a full build.

Whoosh's ``SegmentWriter`` spends most of a large build on bookkeeping around
each posting: every (field, term, doc) goes through a pool that is sorted on
disk, and at commit every posting costs a column-file read of its document's
length and a Python call into the posting writer (profiled at 10k arXiv
papers: ~80 % of the build). ``SegmentBuilder`` writes the *same* segment —
the same files, read by Whoosh's own reader and codec — from postings kept in
memory per term, and hands Whoosh's posting writer whole blocks:

* a document's terms are counted once (``collections.Counter``) and its
  (term id, frequency) pairs are appended to flat lists in C calls, moved
  into int32 numpy chunks as they grow; at ``finish`` one stable numpy sort
  per field groups them by term (docnums stay in order);
* field lengths are known when the document is added, so no column read;
* each block of ``BLOCK`` postings is encoded by ``W3PostingsWriter``'s own
  ``_write_block`` (pickle + zlib, block statistics, term info) — through
  ``bot.search.index.whoosh_internals``, which owns every private Whoosh name used here.

``tests/search/index/test_bulk_segment.py`` checks, on the seeds, that every term, posting,
weight, value, length, stored field and column equals what ``SegmentWriter``
writes. Only what paperbot's schema uses is supported: no term vectors and no
Whoosh spelling fields (``ValueError`` otherwise).
"""

from __future__ import annotations

from array import array
from collections import Counter
from pathlib import Path

import numpy as np
from whoosh import formats

from bot.search.index.whoosh_internals import (
    BLOCK,
    INDEXNAME,
    PACKED,
    new_segment,
    pack_uint,
    stored_length,
    write_term_blocks,
)

__all__ = ["SegmentBuilder", "BLOCK", "INDEXNAME", "stored_length"]


class SegmentBuilder:
    """Accumulates documents in memory and writes them as one segment.

    Args:
        generation: the index directory (Whoosh ``FileStorage`` folder).
        schema: the index schema (``bot.search.index.schema.make_schema()``).
        codec: the codec (default: Whoosh's ``default_codec()``, the W3 codec
            ``SegmentWriter`` uses).
        keep: fast fields whose postings ``finish`` also keeps as numpy
            arrays in ``kept`` (field -> ``(terms, doc frequencies, docnums
            int32, weights float32)``, terms in order, postings term after
            term) — the impact arrays are made from them
            (``bot.search.scoring.impacts.save_impact_parts``).

    Raises:
        ValueError: the schema has term vectors or separate spelling fields.
    """

    def __init__(self, generation: Path, schema, codec=None, keep=()) -> None:
        for name, field in schema.items():
            if field.vector or field.separate_spelling():
                raise ValueError(f"bulk segments do not support vectors or spelling ({name})")
        self.schema = schema
        self.codec, self.storage, self.segment, self.perdoc = new_segment(generation, codec)
        self.docnum = 0
        # fast fields: field -> _Postings (term ids and frequencies, one entry
        # per (term, document), ids from ``_vocab``, shared by the fields);
        # others: field -> term bytes -> [docnums, weights, value bytes]
        self._vocab: _Vocab = _Vocab()
        self._rank = None  # set by ``finish``
        self.keep = frozenset(keep)
        self.kept: dict[str, tuple] = {}
        self._fast: dict[str, _Postings] = {}
        self._other: dict[str, dict[bytes, list]] = {}
        # scored field -> per-docnum length as read back (block statistics)
        self._lengths = {name: array("I") for name, field in schema.items() if field.scorable}
        for name, field in schema.items():
            if not field.indexed:
                continue
            fast = type(field.format) is formats.Frequency and hasattr(field.analyzer, "terms")
            if fast:
                self._fast[name] = _Postings()
            else:
                self._other[name] = {}

    def add(self, fields: dict) -> int:
        """Add one document (the keyword arguments ``add_document`` takes,
        without ``_boost`` options); returns its docnum in this segment."""
        docnum = self.docnum
        perdoc = self.perdoc
        perdoc.start_doc(docnum)
        lengths = self._lengths
        for name in sorted(fields):
            value = fields[name]
            if value is None:
                continue
            field = self.schema[name]
            length = 0
            if name in self._fast:
                terms = field.analyzer.terms(value)
                length = len(terms)
                counts = Counter(terms)
                self._fast[name].add(docnum, map(self._vocab.__getitem__, counts), counts.values())
            elif name in self._other:
                postings = self._other[name]
                for tbytes, freq, weight, vbytes in field.index(value):
                    length += freq
                    entry = postings.get(tbytes)
                    if entry is None:
                        postings[tbytes] = [[docnum], [weight], [vbytes]]
                    else:
                        entry[0].append(docnum)
                        entry[1].append(weight)
                        entry[2].append(vbytes)
            if not field.scorable:
                length = 0
            elif length:
                lengths[name].append(stored_length(length))
            perdoc.add_field(name, field, value if field.stored else None, length)
            if field.column_type:
                perdoc.add_column_value(name, field.column_type, field.to_column_value(value))
        perdoc.finish_doc()
        for column in lengths.values():  # fields absent from this document
            if len(column) == docnum:
                column.append(0)
        self.docnum += 1
        return docnum

    @property
    def lengths(self) -> dict[str, array]:
        """Scored field -> per-docnum length as Whoosh reads it back (what
        ``bot.search.scoring.norms.save_lengths`` would read from the segment)."""
        return self._lengths

    def finish(self):
        """Write the postings and close the segment; returns the Whoosh
        segment (for a ``TOC``). The builder cannot be used afterwards."""
        self.perdoc.close()
        writer = self.codec.field_writer(self.storage, self.segment)
        fast = set(self._fast)
        for name in sorted(fast | set(self._other)):
            field = self.schema[name]
            writer.start_field(name, field)
            lengths = self._lengths.get(name)
            if name in fast:
                self._write_fast(writer, name, field, lengths)
            else:
                for tbytes in sorted(self._other[name]):
                    ids, weights, values = self._other[name][tbytes]
                    writer.start_term(tbytes)
                    write_term_blocks(writer, ids, weights, values, lengths)
                    writer.finish_term()
            writer.finish_field()
        writer.close()
        self._fast, self._other, self._vocab = {}, {}, _Vocab()
        self.segment.set_doc_count(self.docnum)
        return self.segment

    def _write_fast(self, writer, name: str, field, lengths) -> None:
        """Write one fast field's terms in term order (called by ``finish``)."""
        if self._rank is None:  # term id -> position in sorted term order
            words = list(self._vocab)
            self._rank = np.empty(len(words), dtype=np.int32)
            self._rank[sorted(range(len(words)), key=words.__getitem__)] = np.arange(len(words))
            self._by_rank = sorted(words)
        # (the field's postings are dropped now; per-term lists are made one at a time)
        ids, freqs, docs = self._fast.pop(name).arrays()
        ranks = self._rank[ids]
        del ids
        order = np.argsort(ranks, kind="stable")  # docnums stay ascending per term
        ranks = ranks[order]
        docs, freqs = docs[order], freqs[order]
        del order
        starts = np.flatnonzero(np.r_[True, ranks[1:] != ranks[:-1]]) if len(ranks) else ranks
        bounds = np.r_[starts, len(ranks)].tolist()
        term_ranks = ranks[starts].tolist()
        del ranks, starts
        boost = field.format.field_boost
        if name in self.keep:
            self.kept[name] = (
                [self._by_rank[r] for r in term_ranks],
                np.diff(bounds),
                docs,
                (freqs * boost).astype(np.float32),
            )
        packed = int(freqs.max(initial=0)) < len(PACKED)
        by_rank = self._by_rank
        for k, rank in enumerate(term_ranks):
            start, end = bounds[k], bounds[k + 1]
            f = freqs[start:end].tolist()
            # weight = frequency x field boost, value = packed frequency
            # (whoosh.formats.Frequency), mapped in C where possible
            weights = list(map(float, f)) if boost == 1.0 else [x * boost for x in f]
            values = list(map(PACKED.__getitem__, f)) if packed else [pack_uint(x) for x in f]
            writer.start_term(by_rank[rank].encode("utf-8"))
            write_term_blocks(writer, docs[start:end].tolist(), weights, values, lengths)
            writer.finish_term()


class _Postings:
    """One fast field's (term id, frequency) entries, document after document:
    Python lists (cheap C-level extends) moved into int32 numpy chunks every
    ``FLUSH`` entries (4 bytes an entry instead of an 8-byte pointer)."""

    FLUSH = 1 << 20

    def __init__(self) -> None:
        self.ids: list = []
        self.freqs: list = []
        self.chunks: list = []
        self.docs = array("i")  # docnums that have the field ...
        self.sizes = array("i")  # ... and how many distinct terms each

    def add(self, docnum: int, ids, freqs) -> None:
        before = len(self.ids)
        self.ids.extend(ids)
        self.freqs.extend(freqs)
        self.docs.append(docnum)
        self.sizes.append(len(self.ids) - before)
        if len(self.ids) >= self.FLUSH:
            self._flush()

    def _flush(self) -> None:
        self.chunks.append((np.array(self.ids, dtype=np.int32), np.array(self.freqs, dtype=np.int32)))
        self.ids, self.freqs = [], []

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(term ids, frequencies, docnums)``, int32, in the order added."""
        self._flush()
        ids = np.concatenate([c[0] for c in self.chunks])
        freqs = np.concatenate([c[1] for c in self.chunks])
        docs = np.repeat(np.frombuffer(self.docs, dtype=np.int32), np.frombuffer(self.sizes, dtype=np.int32))
        self.chunks = []
        return ids, freqs, docs


class _Vocab(dict):
    """Term text -> term id (0, 1, 2, ... in first-seen order)."""

    def __missing__(self, term: str) -> int:
        got = self[term] = len(self)
        return got
