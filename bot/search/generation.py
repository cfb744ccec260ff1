"""One opened generation: its Whoosh index, lexicon, norms and a small pool
of searchers (Whoosh searchers are not thread-safe: one caller at a time).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from whoosh import index as whoosh_index

from bot.search import layout
from bot.search.lexicon import Lexicon
from bot.search.norms import SCORED_FIELDS, Norms

#: Idle searchers kept per generation (each holds open files, no big memory).
MAX_IDLE_SEARCHERS = 8


@dataclass
class Generation:
    """One opened generation: its index, lexicon, norms and idle searchers."""

    name: str
    ix: object
    lexicon: Lexicon
    norms: Norms
    idle: list = field(default_factory=list)
    retired: bool = False
    ids: list | None = None   # every paper id, sorted (SearchIndex.ids)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire(self):
        """An idle searcher, or a new one (Whoosh searchers are not thread-safe:
        one caller at a time)."""
        with self.lock:
            if self.idle:
                return self.idle.pop()
        return _opened(self.ix.searcher())

    def release(self, searcher) -> None:
        """Keep ``searcher`` for the next caller, or close it."""
        with self.lock:
            if not self.retired and len(self.idle) < MAX_IDLE_SEARCHERS:
                self.idle.append(searcher)
                return
        searcher.close()

    def retire(self) -> None:
        """Close idle searchers; ones in use close when released."""
        with self.lock:
            self.retired = True
            idle, self.idle = self.idle, []
        for searcher in idle:
            searcher.close()


def _opened(searcher):
    """``searcher`` with every file it reads already open: Whoosh opens
    column files (stored fields, lengths, ids) lazily, which fails once a
    newer build has deleted the generation's directory."""
    reader = searcher.reader()
    leaves = reader.leaf_readers() if hasattr(reader, "leaf_readers") else [(reader, 0)]
    for leaf, _ in leaves:
        if leaf.doc_count_all():
            leaf.stored_fields(0)
            if leaf.has_column("id"):
                leaf.column_reader("id")
            for name in SCORED_FIELDS:
                leaf.doc_field_length(0, name)
    return searcher


def open_generation(path: Path) -> Generation:
    """Open the generation at ``path``.

    Raises:
        IndexMissing: Whoosh cannot open it (damaged or half-deleted).
    """
    try:
        ix = whoosh_index.open_dir(str(path))
    except (whoosh_index.EmptyIndexError, OSError) as exc:
        raise layout.IndexMissing(
            f"The search index in {path.parent} cannot be opened ({exc}); "
            "rebuild it with `paperbot index build`.") from exc
    return Generation(path.name, ix, Lexicon.load(path), Norms(path))
