"""Writing generations: full builds, incremental adds, the stored fingerprint.

Both writers hold ``DIR/LOCK``, write a *new* generation, and only then point
CURRENT at it, so a failure at any point leaves the live index untouched and
removes the partial generation.
"""
from __future__ import annotations

import gc
import itertools
import logging
import os
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from whoosh import index as whoosh_index

from bot.models import Paper
from bot.search import layout
from bot.search.lexicon import FILE as LEXICON_FILE
from bot.search.lexicon import Lexicon, LexiconBuilder
from bot.search.schema import make_schema, paper_to_document
from bot.search.norms import save_lengths

log = logging.getLogger(__name__)

#: How often (in papers) ``progress`` is called during a build.
PROGRESS_EVERY = 100
#: Whoosh writer options: memory before spilling to disk (MB per process),
#: and no compound segment file — a reader copies a compound file's postings
#: into memory (``BufferFile`` wraps it in ``BytesIO``: ~300 MB per open
#: reader at 100k papers); separate files are read on demand.
#: 1024 MB: big enough that a 100k build spills few runs (measured 76 -> 55 s
#: CPU per 20k papers, /work/scratch/bench/FINDINGS.md B).
WRITER_ARGS = {"limitmb": 1024, "compound": False}
#: Builds of at least this many papers index in parallel (Whoosh MpWriter,
#: one segment per process: measured ~2x on 2 cores; not used for small
#: builds, where MpWriter is known to misbehave — PLATFORM-FACTS.md D).
PARALLEL_MIN = 5000
MAX_PROCS = 2


def build_index(index_dir: Path, papers: Iterable[Paper], *, fingerprint: str | None = None,
                progress: Callable[[int], None] | None = None) -> str:
    """Build a new generation from ``papers`` and make it the live one.

    Args:
        index_dir: the container directory (created when missing).
        papers: the whole corpus; ids must be unique. Streamed (only the first
            ``PARALLEL_MIN`` are held, to choose the writer).
        fingerprint: stored in the generation's meta (see ``stored_fingerprint``).
        progress: called as ``progress(n_done)`` every ``PROGRESS_EVERY``
            papers and once at the end.

    Returns:
        The new generation's name (``"gen-<UTC timestamp>"``).

    Raises:
        IndexBusy: another build or add is running on ``index_dir``.
        ValueError: two papers share an id. Any exception from ``papers``
            propagates; in every failure case CURRENT is untouched.
    """
    index_dir = Path(index_dir)
    started = time.monotonic()
    with layout.locked(index_dir):
        gen = layout.new_generation(index_dir)
        try:
            papers = iter(papers)  # inside the lock: a lazy source is read while we hold it
            head = list(itertools.islice(papers, PARALLEL_MIN))
            procs = min(MAX_PROCS, os.cpu_count() or 1) if len(head) >= PARALLEL_MIN else 1
            ix = whoosh_index.create_in(str(gen), make_schema())
            analyzer = ix.schema["abstract"].analyzer
            lexicon = LexiconBuilder(analyzer.stem)
            gc_was_on = gc.isenabled()
            gc.disable()  # millions of small objects, no cycles: ~7 % of a build
            if procs > 1:
                writer = ix.writer(procs=procs, multisegment=True, **WRITER_ARGS)
            else:
                writer = ix.writer(**WRITER_ARGS)
            try:
                n = _add_all(writer, itertools.chain(head, papers), analyzer, lexicon, progress)
                writer.commit()
            finally:
                if gc_was_on:
                    gc.enable()
            with ix.reader() as reader:
                if reader.doc_count() != n:  # a worker process died (MpWriter hides it)
                    raise RuntimeError(f"The index build lost papers ({reader.doc_count()} "
                                       f"of {n} written); run it again.")
                save_lengths(gen, reader)
            _write_meta(gen, fingerprint=fingerprint, doc_count=n, lexicon=lexicon.finish(),
                        seconds=time.monotonic() - started)
            if progress is not None:
                progress(n)
            previous = layout.publish(index_dir, gen)
        except BaseException:
            shutil.rmtree(gen, ignore_errors=True)
            raise
        layout.remove_unused(index_dir, keep={gen.name, previous or gen.name})
    log.info("built %s: %d papers in %.1f s (%d process(es))", gen.name, n,
             time.monotonic() - started, procs)
    return gen.name


def _add_all(writer, papers, analyzer, lexicon, progress) -> int:
    """Add every paper (ids must be unique); cancel the writer on failure."""
    seen: set[str] = set()
    n = 0
    try:
        for paper in papers:
            if paper.id in seen:
                raise ValueError(f"Two papers have the id {paper.id!r}.")
            seen.add(paper.id)
            doc, words = paper_to_document(paper, analyzer)
            writer.add_document(**doc)
            lexicon.add(paper.abstract, words)
            n += 1
            if progress is not None and n % PROGRESS_EVERY == 0:
                progress(n)
    except BaseException:
        _cancel(writer)
        raise
    return n


def _cancel(writer) -> None:
    """Cancel a writer; stop MpWriter's worker processes too (its own cancel()
    only flips a flag in the parent's copy, leaving the workers blocked)."""
    for task in getattr(writer, "tasks", ()):
        task.terminate()
        task.join()
    writer.cancel()


def add_to_index(index_dir: Path, papers: Iterable[Paper]) -> int:
    """Add or update ``papers`` (same id = replace) without a full rebuild.

    The live generation is copied into a new one (or a new empty one is made
    when there is none), updated, and published like a build.

    Returns:
        The number of papers written.

    Raises:
        IndexBusy: another build or add is running on ``index_dir``.
    """
    index_dir = Path(index_dir)
    started = time.monotonic()
    with layout.locked(index_dir):
        name = layout.current_name(index_dir)
        old = index_dir / name if name else None
        gen = layout.new_generation(index_dir)
        try:
            if old is not None and (old / layout.META).is_file():
                gen.rmdir()
                shutil.copytree(old, gen)
                ix = whoosh_index.open_dir(str(gen))
                meta = layout.read_json(gen / layout.META, {})
                existing = Lexicon.load(gen)
            else:
                ix = whoosh_index.create_in(str(gen), make_schema())
                meta, existing = {}, None
            analyzer = ix.schema["abstract"].analyzer
            lexicon = LexiconBuilder(analyzer.stem, existing)
            writer = ix.writer(**WRITER_ARGS)
            n = 0
            try:
                for paper in papers:
                    doc, words = paper_to_document(paper, analyzer)
                    if "all" not in ix.schema:  # a generation built before `all`
                        doc.pop("all")
                    writer.update_document(**doc)
                    lexicon.add(paper.abstract, words)
                    n += 1
            except BaseException:
                _cancel(writer)
                raise
            writer.commit()
            with ix.reader() as reader:
                count = reader.doc_count()
                save_lengths(gen, reader)
            _write_meta(gen, fingerprint=meta.get("fingerprint"), doc_count=count,
                        lexicon=lexicon.finish(), seconds=time.monotonic() - started,
                        added=meta.get("added", 0) + n)
            previous = layout.publish(index_dir, gen)
        except BaseException:
            shutil.rmtree(gen, ignore_errors=True)
            raise
        layout.remove_unused(index_dir, keep={gen.name, previous or gen.name})
    return n


def stored_fingerprint(index_dir: Path) -> str | None:
    """The fingerprint the live generation was built with, or None (no index,
    or built without one)."""
    try:
        path = layout.current_path(Path(index_dir))
    except layout.IndexMissing:
        return None
    return layout.read_json(path / layout.META, {}).get("fingerprint")


def _write_meta(gen: Path, *, fingerprint, doc_count, lexicon, seconds, added=0) -> None:
    layout.write_json(gen / LEXICON_FILE, lexicon)
    layout.write_json(gen / layout.META, {
        "format": 1,
        "generation": gen.name,
        "fingerprint": fingerprint,
        "doc_count": doc_count,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "build_seconds": round(seconds, 3),
        "added": added,
    })
