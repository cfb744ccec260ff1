"""Bulk writing of one Whoosh segment for a full build.

Whoosh's ``SegmentWriter`` spends most of a large build on bookkeeping around
each posting: every (field, term, doc) goes through a pool that is sorted on
disk, and at commit every posting costs a column-file read of its document's
length and a Python call into the posting writer (profiled at 10k arXiv
papers: ~80 % of the build). ``SegmentBuilder`` writes the *same* segment —
the same files, read by Whoosh's own reader and codec — from postings kept in
memory per term, and hands Whoosh's posting writer whole blocks:

* a document's terms are counted once (``collections.Counter``) and each
  (term, doc, frequency) is one append;
* field lengths are known when the document is added, so no column read;
* each block of ``BLOCK`` postings is encoded by ``W3PostingsWriter``'s own
  ``_write_block`` (pickle + zlib, block statistics, term info) — through
  ``bot.search.internals``, which owns every private Whoosh name used here.

``tests/search/test_bulk.py`` checks, on the seeds, that every term, posting,
weight, value, length, stored field and column equals what ``SegmentWriter``
writes. Only what paperbot's schema uses is supported: no term vectors and no
Whoosh spelling fields (``ValueError`` otherwise).
"""
from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from pathlib import Path

from whoosh import formats

from bot.search.internals import (BLOCK, INDEXNAME, PACKED, new_segment, pack_uint,
                                  stored_length, write_term_blocks)

__all__ = ["SegmentBuilder", "BLOCK", "INDEXNAME", "stored_length"]


class SegmentBuilder:
    """Accumulates documents in memory and writes them as one segment.

    Args:
        generation: the index directory (Whoosh ``FileStorage`` folder).
        schema: the index schema (``bot.search.schema.make_schema()``).
        codec: the codec (default: Whoosh's ``default_codec()``, the W3 codec
            ``SegmentWriter`` uses).

    Raises:
        ValueError: the schema has term vectors or separate spelling fields.
    """

    def __init__(self, generation: Path, schema, codec=None) -> None:
        for name, field in schema.items():
            if field.vector or field.separate_spelling():
                raise ValueError(f"bulk segments do not support vectors or spelling ({name})")
        self.schema = schema
        self.codec, self.storage, self.segment, self.perdoc = new_segment(generation, codec)
        self.docnum = 0
        # field -> term -> [docnum, frequency, docnum, frequency, ...] (fast
        # fields: one flat list, the cheapest append) or
        # field -> term bytes -> [docnums, weights, value bytes] (others)
        self._fast: dict[str, defaultdict[str, list]] = {}
        self._other: dict[str, dict[bytes, list]] = {}
        # scored field -> per-docnum length as read back (block statistics)
        self._lengths = {name: array("I") for name, field in schema.items() if field.scorable}
        for name, field in schema.items():
            if not field.indexed:
                continue
            fast = (type(field.format) is formats.Frequency
                    and hasattr(field.analyzer, "terms"))
            if fast:
                self._fast[name] = defaultdict(list)
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
                postings = self._fast[name]
                for term, freq in Counter(terms).items():
                    postings[term] += (docnum, freq)
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

    def finish(self):
        """Write the postings and close the segment; returns the Whoosh
        segment (for a ``TOC``). The builder cannot be used afterwards."""
        self.perdoc.close()
        writer = self.codec.field_writer(self.storage, self.segment)
        for name in sorted(set(self._fast) | set(self._other)):
            field = self.schema[name]
            writer.start_field(name, field)
            lengths = self._lengths.get(name)
            if name in self._fast:
                boost = field.format.field_boost
                for term in sorted(self._fast[name]):
                    flat = self._fast[name][term]
                    ids, freqs = flat[0::2], flat[1::2]
                    # weight = frequency x field boost, value = packed frequency
                    # (whoosh.formats.Frequency), mapped in C where possible
                    weights = (list(map(float, freqs)) if boost == 1.0
                               else [f * boost for f in freqs])
                    values = (list(map(PACKED.__getitem__, freqs)) if max(freqs) < len(PACKED)
                              else [pack_uint(f) for f in freqs])
                    writer.start_term(term.encode("utf-8"))
                    write_term_blocks(writer, ids, weights, values, lengths)
                    writer.finish_term()
            else:
                for tbytes in sorted(self._other[name]):
                    ids, weights, values = self._other[name][tbytes]
                    writer.start_term(tbytes)
                    write_term_blocks(writer, ids, weights, values, lengths)
                    writer.finish_term()
            writer.finish_field()
        writer.close()
        self._fast, self._other = {}, {}
        self.segment.set_doc_count(self.docnum)
        return self.segment
