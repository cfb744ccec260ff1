"""The index container directory: generations, CURRENT, the lock, meta files.

Layout (docs/interfaces.md "Index directory layout")::

    DIR/
      LOCK                      flock'ed by a build or add (never deleted)
      CURRENT                   one line: the live generation's name
      gen-20260101T093000123456Z/
        (Whoosh index files: one set per segment, no compound file)
        meta.json               fingerprint, doc count, build time
        lexicon.json            vocabulary, compounds, acronyms (bot.search.query.lexicon)
        len-<field>.bin         per-document field lengths (bot.search.scoring.postings)
        stem_counts.json        similar's key-term counts, written once by the first process
                                that needs them (bot.search.scoring.similar.StemCounts.kept)

A generation is never modified once CURRENT has named it — except that a cache
derived from it alone (``CACHES``) may be added — ``add`` copies it, caches left out,
into a new one. CURRENT is replaced atomically (temp file + ``os.replace``).
No Whoosh here.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, TypeVar

CURRENT = "CURRENT"
LOCK = "LOCK"
PREFIX = "gen-"
META = "meta.json"
#: Files derived from a generation after it was published (written whole, by rename);
#: ``add`` leaves them out of its copy, where they would be stale.
COUNTS_FILE = "stem_counts.json"
CACHES = (COUNTS_FILE, "*.tmp")
#: The names ``new_generation`` makes; only these are ever deleted (a folder
#: the user keeps in DIR, say "gen-figures", is left alone).
GENERATION_NAME = re.compile(r"gen-\d{8}T\d{12}Z(?:-\d+)?")


T = TypeVar("T")
#: Seconds between tries of a busy index's lock (``take_turn``).
WAIT_POLL_S = 0.25


class IndexMissing(Exception):
    """There is no usable index in the directory (message says what to run)."""


class IndexBusy(Exception):
    """Another build or add holds the directory's lock."""


@contextlib.contextmanager
def locked(index_dir: Path) -> Iterator[None]:
    """Hold ``DIR/LOCK`` (an exclusive, non-blocking ``fcntl.flock``).

    Raises:
        IndexBusy: another process or thread holds it.
    """
    index_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(index_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusy(
                f"Another index build or add is running on {index_dir} "
                "(it holds LOCK there); wait for it to finish and try again."
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def take_turn(
    attempt: Callable[[], T], wait_s: float, on_wait: Callable[[float], None] | None = None
) -> tuple[T, float | None]:
    """``attempt()``, tried again every ``WAIT_POLL_S`` s for up to ``wait_s``
    seconds while it raises ``IndexBusy`` (another build or add holds the
    lock; ``attempt`` must have changed nothing then). The lock is a
    non-blocking flock, so waiting is polling (flock(2)).

    Args:
        attempt: takes the lock itself (``build_index``, ``add_to_index``).
        wait_s: seconds to keep trying; 0 → one try.
        on_wait: called as ``on_wait(seconds_waited_so_far)`` before each
            pause (the first call has the first busy try's time, near 0).

    Returns:
        ``(attempt's result, seconds waited)``, the seconds being None when
        the first try went through.

    Raises:
        IndexBusy: still busy after ``wait_s`` seconds (the last try's error,
            with ``waited_s`` set to the seconds waited, None when it never paused).
    """
    started, waited = time.monotonic(), None
    while True:
        try:
            return attempt(), waited
        except IndexBusy as e:
            so_far = time.monotonic() - started
            if so_far >= wait_s:
                e.waited_s = so_far if waited is not None else None
                raise
            if on_wait is not None:
                on_wait(so_far)
            waited = so_far
            time.sleep(min(WAIT_POLL_S, wait_s - so_far))


def current_name(index_dir: Path) -> str | None:
    """The generation CURRENT names, or None when there is none."""
    try:
        name = (index_dir / CURRENT).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return name if name.startswith(PREFIX) and "/" not in name else None


def current_path(index_dir: Path) -> Path:
    """Path of the live generation.

    Raises:
        IndexMissing: no CURRENT, or it names a generation that is gone.
    """
    name = current_name(index_dir)
    if index_dir.exists() and not index_dir.is_dir():
        raise IndexMissing(f"{index_dir} is a file, not an index directory.")
    if name is None or not (index_dir / name / META).is_file():
        raise IndexMissing(f"No search index in {index_dir}; build it with `paperbot index build --index {index_dir}`.")
    return index_dir / name


def new_generation(index_dir: Path) -> Path:
    """Create and return an empty, uniquely named generation directory."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    path = index_dir / f"{PREFIX}{stamp}"
    n = 1
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            path = index_dir / f"{PREFIX}{stamp}-{n}"
            n += 1


def publish(index_dir: Path, generation: Path) -> str | None:
    """Point CURRENT at ``generation`` atomically; return the previous name.

    Args:
        index_dir: the index container directory.
        generation: the generation directory, inside ``index_dir``.
    """
    previous = current_name(index_dir)
    tmp = index_dir / f".{CURRENT}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(generation.name + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, index_dir / CURRENT)
    except BaseException:
        tmp.unlink(missing_ok=True)  # e.g. a full disk: leave no stray temp file
        raise
    return previous


def discard(index_dir: Path, generation: Path) -> None:
    """Delete a generation a failed build or add was writing — unless CURRENT
    already names it (an interrupt right after ``publish`` must not delete
    the live index).

    Args:
        index_dir: the index container directory.
        generation: the generation directory to delete.
    """
    if current_name(index_dir) != generation.name:
        shutil.rmtree(generation, ignore_errors=True)


def remove_unused(index_dir: Path, keep: set[str]) -> list[str]:
    """Delete generations not in ``keep`` (call with the lock held).

    The previous generation is kept by callers because a searcher may still be
    reading it; anything older (or a partial one left by a crash) goes.
    Returns the names removed.

    Args:
        index_dir: the index container directory.
        keep: names of the generations to keep.
    """
    removed = []
    for child in index_dir.iterdir():
        if child.name not in keep and GENERATION_NAME.fullmatch(child.name) and child.is_dir():
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child.name)
    return removed


def write_json(path: Path, data) -> None:
    """Write JSON to ``path`` (temp file + rename, so readers never see half).

    Args:
        path: the file written.
        data: anything ``json.dumps`` takes.
    """
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # two writers never share one
    try:
        tmp.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half file behind
        raise


def read_json(path: Path, default=None):
    """Read JSON from ``path``; ``default`` when the file does not exist.

    Args:
        path: the file read.
        default: returned when the file does not exist.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
