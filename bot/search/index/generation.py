"""One opened generation: its Whoosh index, lexicon, norms and a small pool
of searchers (Whoosh searchers are not thread-safe: one caller at a time).
"""

from __future__ import annotations

import pickle
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from whoosh import index as whoosh_index

from bot.core.models import Paper
from bot.search.index import layout, whoosh_internals
from bot.search.index.schema import paper_from_json
from bot.search.query.lexicon import Lexicon
from bot.search.scoring.norms import SCORED_FIELDS, Norms

#: Idle searchers kept per generation (each holds open files, no big memory).
MAX_IDLE_SEARCHERS = 8
#: Fields whose whole vocabulary is kept in memory (``whoosh_internals.field_terms``;
#: ~150,000 terms at 100,000 papers): a search asks of every word whether it is an
#: author's name or a paper's name, and a word that is neither is answered
#: without a read of Whoosh's term table (~25 us each, two to a word of a pasted
#: abstract the first time it is seen; docs/search.md "Speed").
COMPLETE_FIELDS = ("authors", "name_key")


@dataclass
class Generation:
    """One opened generation: its index, lexicon, norms and idle searchers."""

    name: str
    ix: object
    lexicon: Lexicon
    norms: Norms
    idle: list = field(default_factory=list)
    retired: bool = False
    ids: list | None = None  # every paper id, sorted (SearchIndex.ids)
    derived: dict = field(default_factory=dict)  # what others make of its vectors (SearchIndex.from_vectors)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: every term of ``COMPLETE_FIELDS``, read with the first searcher
    terms: dict | None = None

    def acquire(self):
        """An idle searcher, or a new one (Whoosh searchers are not thread-safe:
        one caller at a time)."""
        with self.lock:
            if self.idle:
                return self.idle.pop()
        searcher = _opened(self.ix.searcher())
        if self.terms is None:
            self.terms = whoosh_internals.field_terms(searcher.reader(), COMPLETE_FIELDS)
        whoosh_internals.memo_terms(searcher.reader(), self.terms)
        return searcher

    def release(self, searcher) -> None:
        """Keep ``searcher`` for the next caller, or close it."""
        with self.lock:
            if not self.retired and len(self.idle) < MAX_IDLE_SEARCHERS:
                self.idle.append(searcher)
                return
        searcher.close()

    def papers(self, reader) -> Iterator[Paper]:
        """Every live paper of this generation, in index order, one at a time.

        Args:
            reader: a Whoosh reader of it (its stored fields; deletions from ``norms``).
        """
        deleted = self.norms.deleted(reader)
        for d in range(reader.doc_count_all()):
            if d not in deleted:
                yield paper_from_json(reader.stored_fields(d)["doc"])

    def retire(self) -> None:
        """Close idle searchers; ones in use close when released."""
        with self.lock:
            self.retired = True
            idle, self.idle = self.idle, []
        for searcher in idle:
            searcher.close()


def live_generation(cache: dict[str, Generation], path: Path) -> Generation:
    """The generation at ``path`` (the one CURRENT names) from ``cache``,
    opened and cached when new. Call with the cache's lock held.

    Opening a new generation retires every other cached one: their idle
    searchers close now and the ones in use when released, so after a build
    or ``index add`` only the files of generations in use stay open. When
    CURRENT has moved on while ``path`` was opened (the caller read it just
    before a publish), the generation serves that call retired, uncached.

    Args:
        cache: open generations by directory name.
        path: the generation directory CURRENT names.

    Raises:
        IndexMissing: as ``open_generation``.
    """
    gen = cache.get(path.name)
    if gen is not None:
        return gen
    gen = open_generation(path)
    if layout.current_name(path.parent) != path.name:
        gen.retire()
        return gen
    for name in list(cache):
        cache.pop(name).retire()
    cache[path.name] = gen
    return gen


def _opened(searcher):
    """``searcher`` with every file it reads already open (a newer build may
    delete this generation's directory while it is in use)."""
    whoosh_internals.prime(searcher, SCORED_FIELDS)
    return searcher


#: What opening an index built by other code or another Whoosh raises: the
#: schema is a pickle (an analyzer class moved, ``ModuleNotFoundError`` /
#: ``AttributeError``), or the TOC format differs (``IndexVersionError``, ...).
UNOPENABLE = (
    whoosh_index.EmptyIndexError,
    whoosh_index.IndexVersionError,
    OSError,
    pickle.UnpicklingError,
    ImportError,
    AttributeError,
    EOFError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
)


def open_generation(path: Path) -> Generation:
    """Open the generation at ``path``.

    Raises:
        IndexMissing: Whoosh cannot open it (damaged, half-deleted, or written
            by other code or another Whoosh version: ``UNOPENABLE``); the
            message is one line ending "rebuild the index with `paperbot
            index build`".
    """
    return Generation(name=path.name, ix=open_whoosh(path), lexicon=Lexicon.load(path), norms=Norms(path))


def open_whoosh(path: Path):
    """The Whoosh index of the generation at ``path``.

    Raises:
        IndexMissing: as ``open_generation``.
    """
    try:
        return whoosh_index.open_dir(str(path))
    except UNOPENABLE as exc:
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
        raise layout.IndexMissing(
            f"The search index in {path.parent} cannot be opened ({reason}); "
            "rebuild the index with `paperbot index build`."
        ) from exc
