"""Reading a generation's files ahead into the operating system's page cache.

A search reads parts of a generation's files: the Whoosh term tables
(``*.trm``), the impact arrays (``imp-*.npy``, memory-mapped), the stored
fields (``*_stored.col``, for the hits and snippets), the postings (``*.pst``)
of the rarer terms. When those pages are not in the page cache — the first
searches after a machine start, or after other work evicted them — every
first touch waits for the disk, and a mapped array's fault reads the device's
whole read-ahead window: at 100k, round 1 of issue 18's queries read 84.5 MB
from disk and its long-query p95 was 7.11 x ``bm25s`` (median of 7 cold runs,
2 over 8 x) against 5.41 x warm (``benchmarks/results/latency_cold_100k.txt``).
``read_ahead`` reads the files once, in a background thread, in ``ORDER``
(the files those queries touched), so the first queries meet them in memory;
``SearchIndex.warm`` starts it. One ``posix_fadvise(WILLNEED)``
over a whole file is not used: Linux reads only the first read-ahead window of
it (8 MB here) and ignores the rest of the hint.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

#: The files a search reads in part, in the order they are read ahead
#: (``fnmatch`` patterns of names in the generation directory).
ORDER = ("len-*.bin", "*.trm", "imp-*.npy", "*.id.col", "*_stored.col", "*.pst")
#: Bytes per read call where ``sendfile`` cannot be used (few calls: each one
#: hands the interpreter's lock back and forth with the searching threads).
CHUNK = 8 << 20
#: Most bytes one ``sendfile`` call moves on Linux (``sendfile(2)``, NOTES).
SENDFILE_MOST = 0x7FFFF000
#: At most this share of physical memory is read (a quarter).
MEMORY_SHARE = 4
#: The bound when physical memory cannot be asked (``os.sysconf``).
FALLBACK_LIMIT = 1 << 30


@dataclass
class ReadAhead:
    """What ``read_ahead`` read (filled in by its thread; ``wait`` first).

    ``read``: names of the files read (the last one in part at the bound); ``bytes``:
    bytes read; ``skipped``: name -> why not read (unreadable: the ``OSError``; or
    over the bound);
    ``seconds``: wall time of the reads, from the thread's start.
    """

    generation: Path
    limit: int
    read: list[str] = field(default_factory=list)
    bytes: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the reads to end; True when they have (False: ``timeout``
        seconds went by first)."""
        return self.done.wait(timeout)


def memory_limit() -> int:
    """A quarter of physical memory in bytes (``MEMORY_SHARE``), or
    ``FALLBACK_LIMIT`` where ``os.sysconf`` cannot tell."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // MEMORY_SHARE
    except (ValueError, OSError, AttributeError):
        return FALLBACK_LIMIT


def query_files(generation: Path) -> list[Path]:
    """The files of ``generation`` a search reads in part (``ORDER``, in that
    order, then by name within a pattern). Left out: what opening the
    generation reads whole anyway (``lexicon.json``, ``meta.json``, the term
    table of the impact arrays, Whoosh's table of contents) and Whoosh's own
    length columns (``*_len.col``: the norms come from ``len-*.bin``).

    Raises:
        OSError: the directory cannot be listed.
    """
    with os.scandir(generation) as entries:
        names = sorted(e.name for e in entries if not e.is_dir())
    return [generation / n for pattern in ORDER for n in names if fnmatch.fnmatchcase(n, pattern)]


def read_ahead(generation: Path, limit: int | None = None, background: bool = True) -> ReadAhead:
    """Read ``query_files(generation)`` once, in that order, until ``limit``
    bytes (the file at the bound is read in part). Never raises: an
    unreadable file is a warning and is skipped, and a thread that cannot
    start is a warning (nothing is read).

    Args:
        generation: the generation directory.
        limit: most bytes read (default ``memory_limit()``).
        background: read in a daemon thread and return at once (else read
            before returning).
    """
    got = ReadAhead(generation, memory_limit() if limit is None else limit)
    if not background:
        _read(got)
        return got
    try:
        threading.Thread(target=_read, args=(got,), name="read-ahead", daemon=True).start()
    except RuntimeError as exc:  # can't start new thread
        log.warning("page cache: no read-ahead of %s (%s)", generation, exc)
        got.done.set()
    return got


def _read(got: ReadAhead) -> None:
    t0 = time.perf_counter()
    sink = _null()
    try:
        for path in query_files(got.generation):
            if got.bytes >= got.limit:
                got.skipped[path.name] = f"over the bound of {got.limit} bytes"
                continue
            try:
                got.bytes += _read_file(path, sink, got.limit - got.bytes)
                got.read.append(path.name)
            except OSError as exc:
                got.skipped[path.name] = f"{type(exc).__name__}: {exc}"
                log.warning("page cache: cannot read %s ahead (%s)", path, exc)
    except OSError as exc:  # the directory itself (a newer build removed it)
        log.warning("page cache: cannot list %s (%s)", got.generation, exc)
    except Exception:  # noqa: BLE001 — only a head start: never the caller's failure
        log.exception("page cache: read-ahead of %s failed", got.generation)
    finally:
        if sink is not None:
            os.close(sink)
        got.seconds = time.perf_counter() - t0
        got.done.set()
        log.info(
            "page cache: read %d files (%.0f MB) of %s in %.2f s, %d skipped",
            len(got.read),
            got.bytes / 1e6,
            got.generation.name,
            got.seconds,
            len(got.skipped),
        )


def _null() -> int | None:
    """A descriptor of ``os.devnull`` for ``sendfile``, or None."""
    try:
        return os.open(os.devnull, os.O_WRONLY) if hasattr(os, "sendfile") else None
    except OSError:
        return None


def _read_file(path: Path, sink: int | None, most: int) -> int:
    """Read at most ``most`` bytes of ``path`` once; the bytes read.

    Few system calls on purpose: the thread takes the interpreter's lock back
    after each, waiting up to its switch interval (5 ms) while a search holds it.

    Raises:
        OSError: the file cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        if sink is not None:
            with contextlib.suppress(OSError):  # not Linux, or a file system without splice
                return _send(fd, sink, most)
        done, buf = 0, bytearray(min(CHUNK, most))
        while done < most and (n := os.readv(fd, [buf])):
            done += n
        return min(done, most)
    finally:
        os.close(fd)


def _send(fd: int, sink: int, most: int) -> int:
    """``sendfile(2)`` up to ``most`` bytes of ``fd`` to ``os.devnull``: the
    kernel reads the pages into the page cache without copying them out
    (Linux). One call per file: a call stops short of what was asked only at
    the end of the file or at Linux's most per call (``SENDFILE_MOST``)."""
    done = 0
    while done < most:
        n = os.sendfile(sink, fd, done, most - done)
        done += n
        if n < min(SENDFILE_MOST, most - done + n):
            break
    return done
