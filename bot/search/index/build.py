"""Writing generations: full builds, incremental adds, the stored fingerprint.

A full build writes its segments with ``bot.search.index.bulk_segment`` (in parallel through
``bot.search.index.fanout``); an add uses Whoosh's own writer (few papers, and it
must replace documents). Both hold ``DIR/LOCK``, write a *new* generation, and only then point
CURRENT at it, so a failure at any point leaves the live index untouched and
removes the partial generation.
"""

from __future__ import annotations

import functools
import logging
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from whoosh import index as whoosh_index

from bot.core.models import Paper
from bot.search.index import fanout, layout, whoosh_internals
from bot.search.index.bulk_documents import PROGRESS_EVERY, save_derived, write_chunk
from bot.search.index.bulk_segment import INDEXNAME
from bot.search.index.generation import open_whoosh
from bot.search.index.schema import DEFAULT_RULES, IndexRules, make_schema, paper_to_document
from bot.search.query.lexicon import FILE as LEXICON_FILE
from bot.search.query.lexicon import Lexicon, LexiconBuilder
from bot.search.scoring.impacts import save_impacts
from bot.search.scoring.norms import save_lengths

log = logging.getLogger(__name__)

#: Whoosh writer options for ``add_to_index``: memory before spilling to disk
#: (MB), and no compound segment file — a reader copies a compound file's
#: postings into memory (``BufferFile`` wraps it in ``BytesIO``: ~300 MB per
#: open reader at 100k papers); separate files are read on demand.
WRITER_ARGS = {"limitmb": 1024, "compound": False}
#: Builds of at least this many papers write one segment per process
#: (``bot.search.index.fanout``), up to ``MAX_PROCS``; smaller ones run in-process.
PARALLEL_MIN = 5000
MAX_PROCS = 2


def build_index(
    index_dir: Path,
    papers: Iterable[Paper],
    *,
    fingerprint: str | None = None,
    progress: Callable[[int], None] | None = None,
    needed: Callable[[], bool] | None = None,
    rules: IndexRules = DEFAULT_RULES,
) -> str | None:
    """Build a new generation from ``papers`` and make it the live one.

    Segments are written by ``bot.search.index.bulk_segment.SegmentBuilder`` (the files
    Whoosh's own writer produces, several times faster), one per process for
    builds of ``PARALLEL_MIN`` papers or more.

    Args:
        index_dir: the container directory (created when missing).
        papers: the whole corpus; ids must be unique. Read once, inside the
            build lock, and held in memory.
        fingerprint: stored in the generation's meta (see ``stored_fingerprint``).
        progress: called as ``progress(n_done)`` about every ``PROGRESS_EVERY``
            papers (every ``fanout.POLL_S`` s with several processes) and
            once at the end.
        needed: called once the lock is held, before anything is read or
            written; False → no build (another process built what was needed
            while this one waited for the lock).
        rules: index-time ranking rules (``schema.IndexRules``; other than
            the defaults only to measure them, ``benchmarks/ablation.py``).

    Returns:
        The new generation's name (``"gen-<UTC timestamp>"``), or None when
        ``needed()`` said no build was needed.

    Raises:
        IndexBusy: another build or add is running on ``index_dir``.
        ValueError: two papers share an id.
        fanout.WorkerFailed: a build process raised or died. Any exception
            from ``papers`` propagates; in every failure case CURRENT is
            untouched and the partial generation is removed.
    """
    index_dir = Path(index_dir)
    started = time.monotonic()
    with layout.locked(index_dir):
        if needed is not None and not needed():
            return None
        gen = layout.new_generation(index_dir)
        try:
            papers = list(papers)  # inside the lock: a lazy source is read while we hold it
            _check_unique(papers)
            n = len(papers)
            ix = whoosh_index.create_in(str(gen), make_schema(rules))
            progress = _changes_only(progress)
            if whoosh_internals.fast_paths():
                procs = fanout.usable_processes(MAX_PROCS if n >= PARALLEL_MIN else 1)
                chunk = functools.partial(write_chunk, gen, ix, papers, rules)
                results = fanout.run_chunks(chunk, n, procs, progress)
                lexicon = LexiconBuilder(ix.schema["abstract"].analyzer.stem)
                for _, state, _, _ in results:
                    lexicon.merge(state)
                whoosh_internals.write_toc(ix, [segment for segment, _, _, _ in results])
                shutil.rmtree(gen / f"{INDEXNAME}.tmp", ignore_errors=True)  # writers' scratch
            else:  # an untested Whoosh: its own writer (docs/search.md)
                procs, results = 1, None
                lexicon = _write_with_whoosh(ix, papers, progress, rules)
            ix = whoosh_index.open_dir(str(gen))
            with ix.reader() as reader:
                if reader.doc_count() != n:
                    raise RuntimeError(
                        f"The index build lost papers ({reader.doc_count()} of {n} written); run it again."
                    )
                if results is None:
                    save_lengths(gen, reader)
                    save_impacts(gen, reader)
            if results is not None:  # from what the bulk writers kept: no read-back
                save_derived(gen, results, n)
            _write_meta(
                gen, fingerprint=fingerprint, doc_count=n, lexicon=lexicon.finish(), seconds=time.monotonic() - started
            )
            if progress is not None:
                progress(n)
            previous = layout.publish(index_dir, gen)
        except BaseException:
            layout.discard(index_dir, gen)
            raise
        layout.remove_unused(index_dir, keep={gen.name, previous or gen.name})
    log.info("built %s: %d papers in %.1f s (%d process(es))", gen.name, n, time.monotonic() - started, procs)
    return gen.name


def _changes_only(progress: Callable[[int], None] | None) -> Callable[[int], None] | None:
    """``progress`` without repeated values (workers are polled)."""
    if progress is None:
        return None
    last = [-1]

    def report(done: int) -> None:
        if done != last[0]:
            last[0] = done
            progress(done)

    return report


def _check_unique(papers: list[Paper]) -> None:
    seen: set[str] = set()
    for paper in papers:
        if paper.id in seen:
            raise ValueError(f"Two papers have the id {paper.id!r}.")
        seen.add(paper.id)


def _write_with_whoosh(ix, papers: list[Paper], progress, rules: IndexRules = DEFAULT_RULES) -> LexiconBuilder:
    """Write every paper with Whoosh's own ``SegmentWriter`` (one segment,
    the version-guard fallback of ``bot.search.index.whoosh_internals``); returns the lexicon."""
    analyzer = ix.schema["abstract"].analyzer
    lexicon = LexiconBuilder(analyzer.stem)
    writer = ix.writer(**WRITER_ARGS)
    try:
        for i, paper in enumerate(papers, 1):
            doc, words = paper_to_document(paper, analyzer, rules)
            writer.add_document(**doc)
            lexicon.add(paper.abstract, words)
            if progress is not None and i % PROGRESS_EVERY == 0:
                progress(i)
    except BaseException:
        writer.cancel()
        raise
    writer.commit()
    return lexicon


def add_to_index(index_dir: Path, papers: Iterable[Paper]) -> int:
    """Add or update ``papers`` (same id = replace) without a full rebuild.

    The live generation is copied into a new one (or a new empty one is made
    when there is none), updated, and published like a build.

    Args:
        index_dir: the index container directory.
        papers: the papers to add or replace (by id).

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
                shutil.copytree(old, gen, ignore=shutil.ignore_patterns(*layout.CACHES))
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
                    for fieldname in ("all", "doi_key"):  # a generation built before `all` / DOIs
                        if fieldname not in ix.schema:
                            doc.pop(fieldname, None)
                    writer.update_document(**doc)
                    lexicon.add(paper.abstract, words)
                    n += 1
            except BaseException:
                writer.cancel()  # releases Whoosh's lock and temporary files
                raise
            writer.commit()
            with ix.reader() as reader:
                count = reader.doc_count()
                save_lengths(gen, reader)
                save_impacts(gen, reader)
            _write_meta(
                gen,
                fingerprint=meta.get("fingerprint"),
                doc_count=count,
                lexicon=lexicon.finish(),
                seconds=time.monotonic() - started,
                added=meta.get("added", 0) + n,
            )
            previous = layout.publish(index_dir, gen)
        except BaseException:
            layout.discard(index_dir, gen)
            raise
        layout.remove_unused(index_dir, keep={gen.name, previous or gen.name})
    return n


def has_index(index_dir: Path) -> bool:
    """True when ``index_dir`` holds a usable live generation."""
    try:
        layout.current_path(Path(index_dir))
    except layout.IndexMissing:
        return False
    return True


def opens(index_dir: Path) -> bool:
    """True when the live generation of ``index_dir`` can be opened by this
    Whoosh and this code (its pickled schema loads); False when there is no
    index or it must be rebuilt (``bot.search.index.generation.open_whoosh``)."""
    try:
        open_whoosh(layout.current_path(Path(index_dir))).close()
    except layout.IndexMissing:
        return False
    return True


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
    layout.write_json(
        gen / layout.META,
        {
            "format": 1,
            "generation": gen.name,
            "fingerprint": fingerprint,
            "doc_count": doc_count,
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "build_seconds": round(seconds, 3),
            "added": added,
        },
    )
