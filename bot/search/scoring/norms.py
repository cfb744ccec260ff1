"""Per-generation BM25 length norms and deleted documents (for both scorers).

A build saves each scored field's per-document lengths as ``len-<field>.bin``
(array of uint32, by docnum); ``Norms`` turns them into
``k1 * (1 - b + b * len / avg_len)`` arrays on first use.
"""

from __future__ import annotations

import threading
from array import array
from pathlib import Path

from bot.search.index.whoosh_internals import leaves

#: Fields whose per-document lengths a build saves (``len-<field>.bin``).
SCORED_FIELDS = ("all", "title", "name", "abstract", "authors", "venue")


class Norms:
    """Per-generation caches: ``k1 * (1 - b + b * len / avg)`` arrays per field
    and the deleted documents. Thread-safe; built on first use from the
    lengths the build saved (reading them from Whoosh instead takes ~0.15 s
    per field at 100k papers).

    Args:
        generation: the generation directory (``None``: always ask Whoosh).
    """

    def __init__(self, generation: Path | None = None) -> None:
        self.generation = generation
        self._lock = threading.Lock()
        self._norms: dict[tuple, array] = {}
        self._deleted: set | None = None

    def get(self, reader, fieldname: str, k1: float, b: float) -> array:
        """Per-docnum ``k1 * (1 - b + b * len / avg_len)`` of ``fieldname``
        (float64), computed once per field and parameters.

        Args:
            reader: the generation's Whoosh reader.
            fieldname: the scored field.
            k1: BM25's ``k1``.
            b: BM25's ``b`` for this field.
        """
        key = (fieldname, k1, b)
        norms = self._norms.get(key)
        if norms is None:
            with self._lock:
                norms = self._norms.get(key)
                if norms is None:
                    lengths = load_lengths(self.generation, fieldname, reader)
                    norms = self._norms[key] = _norms(reader, fieldname, lengths, k1, b)
        return norms

    def deleted(self, reader) -> set:
        """The generation's deleted docnums (global), read once."""
        if self._deleted is None:
            found = set()
            for leaf, offset in leaves(reader):
                if leaf.has_deletions():
                    found.update(offset + d for d in range(leaf.doc_count_all()) if leaf.is_deleted(d))
            self._deleted = found
        return self._deleted


def doc_lengths(reader, fieldname: str) -> array:
    """Per-docnum lengths of ``fieldname`` as Whoosh stores them (lossy bytes);
    zeros for a field Whoosh keeps no lengths of (not scorable, e.g. an ID —
    asking Whoosh costs a file ``stat`` per document: 0.5 s at 100k papers).

    Args:
        reader: the generation's Whoosh reader.
        fieldname: the field.
    """
    field = reader.schema[fieldname] if fieldname in reader.schema else None
    if field is None or not field.scorable:
        return array("I", bytes(4 * reader.doc_count_all()))
    lengths = array("I")
    for leaf, _ in leaves(reader):
        dfl = leaf.doc_field_length
        # (whoosh3 returns None, not the default, for an empty field)
        lengths.extend(dfl(d, fieldname, 0) or 0 for d in range(leaf.doc_count_all()))
    return lengths


def save_lengths(generation: Path, reader) -> None:
    """Write ``len-<field>.bin`` for every scored field (called by builds).

    Args:
        generation: the generation directory.
        reader: its Whoosh reader.
    """
    for name in SCORED_FIELDS:
        (generation / f"len-{name}.bin").write_bytes(doc_lengths(reader, name).tobytes())


def save_length_arrays(generation: Path, lengths: dict[str, array], doc_count: int) -> None:
    """``save_lengths`` from lengths known already (the bulk writer's
    ``SegmentBuilder.lengths``, segments concatenated): the same files; a
    field without lengths is all zeros.

    Args:
        generation: the generation directory.
        lengths: the field lengths per docnum, by field.
        doc_count: documents in the generation.
    """
    for name in SCORED_FIELDS:
        got = lengths.get(name)
        data = got.tobytes() if got is not None else bytes(4 * doc_count)
        (generation / f"len-{name}.bin").write_bytes(data)


def load_lengths(generation: Path | None, fieldname: str, reader) -> array:
    """Saved lengths when they match the reader, else read from Whoosh.

    Args:
        generation: the generation directory (None: read from Whoosh).
        fieldname: the field.
        reader: the generation's Whoosh reader.
    """
    lengths = array("I")
    path = generation / f"len-{fieldname}.bin" if generation else None
    if path is not None and path.is_file():
        lengths.frombytes(path.read_bytes())
        if len(lengths) == reader.doc_count_all():
            return lengths
    return doc_lengths(reader, fieldname)


def _norms(reader, fieldname, lengths, k1, b) -> array:
    avg = (reader.field_length(fieldname) / max(1, reader.doc_count_all())) or 1.0
    base, scale = k1 * (1 - b), k1 * b / avg
    return array("d", [base + scale * n for n in lengths])
