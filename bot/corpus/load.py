"""Loading inputs: seed text files, folders, JSON Lines / JSON / CSV (``.gz`` too).

``load_papers`` is what ``paperbot index build`` and the bot's start-up
call; ``iter_records`` streams one big file; ``seeds_fingerprint`` tells
whether the seed inputs changed since the index was built.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
from pathlib import Path
from typing import Iterable, Iterator

from bot.core.models import Paper
from bot.corpus.assemble import Entry, with_id
from bot.corpus.errors import CorpusError
from bot.corpus.ids import assign_ids
from bot.corpus.parallel import parallel_file_entries, worker_count
from bot.corpus.records import LoadStats, iter_file_entries, record_kind
from bot.corpus.seeds import seed_entries

log = logging.getLogger(__name__)


def _is_seed_text(path: Path) -> bool:
    return path.name.lower().removesuffix(".gz").endswith(".txt")


def expand_paths(paths: Iterable[Path | str], stats: LoadStats | None = None) -> list[tuple[str, Path]]:
    """The input files behind ``paths``, as (name relative to its root, path).

    Args:
        paths: files or folders. A folder contributes its supported files
            (``.txt``, ``.jsonl``, ``.ndjson``, ``.json``, ``.csv``, each
            optionally ``.gz``; not recursive; hidden files ignored), sorted
            by name; other files in it are ignored and counted.
        stats: where to count ignored files, optional.

    Returns:
        ``[(relative name, path), …]`` in the order given, each folder sorted.

    Raises:
        CorpusError: a path does not exist, is an unsupported file or not a
            regular file at all (a device, a pipe), or is a folder without any
            supported file.
    """
    out: list[tuple[str, Path]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = []
            for child in sorted(path.iterdir()):
                if child.name.startswith(".") or not child.is_file():
                    continue
                if _is_seed_text(child) or record_kind(child):
                    found.append((child.name, child))
                elif stats is not None:
                    stats.skipped_files += 1
            if not found:
                raise CorpusError(
                    f"{path}: no paper files in this folder (.txt, .jsonl, .json or .csv, optionally .gz)"
                )
            out.extend(found)
        elif path.is_file():
            if not (_is_seed_text(path) or record_kind(path)):
                raise CorpusError(f"{path}: unsupported file type (use .txt, .jsonl, .json or .csv, optionally .gz)")
            out.append((path.name, path))
        elif path.exists():  # a device (/dev/null), a pipe, a socket
            raise CorpusError(f"{path}: not a regular file or folder (give a file of papers or a folder of them)")
        else:
            raise CorpusError(f"{path}: no such file or folder")
    return out


def _read_bytes(path: Path) -> bytes:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except OSError as e:
        raise CorpusError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from e


def _seed_file_entries(path: Path, stats: LoadStats) -> list[Entry]:
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: not UTF-8 text") from e
    stats.files += 1
    return seed_entries(text, path.name)


def iter_entries(paths: Iterable[Path | str], stats: LoadStats, workers: int | None = None) -> Iterator[Entry]:
    """Entries of every input in order (base ids, duplicates included).

    Runs of consecutive record files are parsed on several processes when
    they are large (``bot.corpus.parallel``; ``workers`` None = decide, 0 or
    1 = in this process, n = n processes), else in this process.

    Args:
        paths: files and folders of paper sources.
        stats: counts what was read, skipped and left out (updated).
        workers: parser processes: None decides, 0 or 1 parses here.
    """
    files = [path for _, path in expand_paths(paths, stats)]
    i = 0
    while i < len(files):
        if _is_seed_text(files[i]):
            yield from _seed_file_entries(files[i], stats)
            i += 1
            continue
        j = i
        while j < len(files) and not _is_seed_text(files[j]):
            j += 1
        group, i = files[i:j], j
        count = worker_count(group) if workers is None else workers
        if count > 1:
            yield from parallel_file_entries(group, stats, count)
        else:
            for path in group:
                yield from iter_file_entries(path, stats)


def iter_records(path: Path | str, stats: LoadStats | None = None, *, workers: int | None = None) -> Iterator[Paper]:
    """Stream the papers of one file or folder without holding them all.

    Args:
        path: a JSON Lines / JSON / CSV file (``.gz`` too), a seed ``.txt``
            file, or a folder of them.
        stats: optional ``LoadStats`` to count skipped and bad records.
        workers: worker processes for large record files (None = decide:
            all cores for ≥ 4 MB of records in a single-threaded process; 0
            or 1 = parse here).

    Yields:
        ``Paper`` objects in file order. Ids are base ids (source id or
        ``"p"`` + 4 hash characters), not yet made unique — use
        ``load_papers`` for a whole corpus.

    Raises:
        CorpusError: for unreadable or unsupported input (see ``load_papers``).
    """
    for entry in iter_entries([path], stats if stats is not None else LoadStats(), workers):
        yield entry.paper


def load_papers(
    paths: Iterable[Path | str],
    *,
    stats: LoadStats | None = None,
    workers: int | None = None,
    accepted_only: bool = False,
) -> list[Paper]:
    """Load a whole corpus from seed files, folders and record files.

    Args:
        paths: seed ``.txt`` files, folders of inputs, ``.jsonl``/``.json``/
            ``.csv`` files (each optionally ``.gz``), in any order.
        stats: optional ``LoadStats`` filled with counts (skipped records
            without abstract, bad lines, duplicates dropped).
        workers: as for ``iter_records`` (None = decide).
        accepted_only: leave out OpenReview notes whose status is not "accepted"
            (``bot.corpus.sources.note_status``; counted in ``stats.not_accepted``).
            Records of other sources say nothing about acceptance and are kept.

    Returns:
        The papers in input order, ids unique and independent of the order
        of files and paragraphs (see ``bot.corpus.ids``); exact duplicates
        (same id and text) appear once. Skipped records are logged (warning).

    Raises:
        CorpusError: a path is missing, unreadable, of an unsupported type,
            not UTF-8 (seed text), or yields no paper at all.
    """
    stats = stats if stats is not None else LoadStats()
    paths = list(paths)
    entries = list(iter_entries(paths, stats, workers))
    if accepted_only:
        entries = _accepted(entries, stats)
    kept, ids = assign_ids([e.key for e in entries])
    papers = [with_id(entries[i].paper, pid) for i, pid in zip(kept, ids)]
    stats.duplicates += len(entries) - len(kept)
    stats.papers = len(papers)
    for note in stats.notes:
        log.warning("%s", note)
    if stats.duplicates:
        log.info("dropped %d exact duplicate papers", stats.duplicates)
    if not papers and stats.not_accepted:
        raise CorpusError(
            "no accepted papers in "
            + ", ".join(str(p) for p in paths)
            + f" (left out: {not_accepted_summary(stats)}; \"unknown\" notes carry "
            "no venueid or venue: API 1 keeps decisions in separate notes)"
        )
    if not papers:
        raise CorpusError(
            "no papers found in "
            + ", ".join(str(p) for p in paths)
            + " (records need an \"abstract\" or \"text\" field; a CSV file "
            "needs a header row naming it, comma-separated)"
        )
    return papers


def not_accepted_summary(stats: LoadStats) -> str:
    """``"12 rejected, 3 withdrawn"``: what ``accepted_only`` left out, most first ("" if nothing)."""
    counts = sorted(stats.not_accepted.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n} {status.replace('_', '-')}" for status, n in counts)


def _accepted(entries: list[Entry], stats: LoadStats) -> list[Entry]:
    """The entries ``--accepted-only`` keeps; the others counted by status."""
    out = []
    for entry in entries:
        if entry.status in (None, "accepted"):
            out.append(entry)
        else:
            stats.not_accepted[entry.status] = stats.not_accepted.get(entry.status, 0) + 1
    return out


def seeds_fingerprint(paths: Iterable[Path | str]) -> str:
    """SHA-256 over the seed inputs' names and bytes, to detect changed seeds.

    Args:
        paths: the same paths given to ``load_papers`` (files or folders).

    Returns:
        64 hex digits over the sorted ``(relative name, bytes)`` pairs of all
        input files (name = file name inside its folder, or the file's own
        name). Order of ``paths`` does not matter; any content change does.

    Raises:
        CorpusError: as ``expand_paths`` / unreadable file.
    """
    h = hashlib.sha256()
    files = sorted((name, str(path)) for name, path in expand_paths(paths))
    for name, path in files:
        try:
            data = Path(path).read_bytes()  # the stored bytes, compressed or not
        except OSError as e:
            raise CorpusError(f"{path}: cannot read ({e.strerror or e})") from e
        encoded = name.encode()
        h.update(len(encoded).to_bytes(4, "big") + encoded + len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()
