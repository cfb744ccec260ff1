"""A cold page cache for chosen files: evict them, and count their pages in memory.

``evict`` writes back and drops each file's pages (``fdatasync`` +
``posix_fadvise(POSIX_FADV_DONTNEED)``, Linux ``posix_fadvise(2)``): the next
read of them goes to the disk, as after a machine start — without dropping
the whole page cache (``/proc/sys/vm/drop_caches``), which would also slow
every other process on a shared machine. Pages another process has mapped or
locked stay; ``resident`` (``mincore(2)`` through ``ctypes``, Linux) says what
is left. Used by ``latency_rounds.py --cold``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
from pathlib import Path

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_FAILED = ctypes.c_void_p(-1).value


def files_under(*dirs: Path) -> list[Path]:
    """Every regular file under ``dirs`` (recursively), sorted."""
    return sorted(p for d in dirs for p in Path(d).rglob("*") if p.is_file())


def live_generation(index_dir: Path) -> Path:
    """The generation directory ``index_dir/CURRENT`` names."""
    return index_dir / (index_dir / "CURRENT").read_text("utf-8").strip()


def evict(paths: list[Path]) -> None:
    """Write back and drop the cached pages of each of ``paths``."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fdatasync(fd)  # dirty pages are not dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def resident(path: Path) -> int:
    """Bytes of ``path`` in the page cache (whole pages), by ``mincore(2)``.

    Raises:
        OSError: the file cannot be opened or mapped.
    """
    size = os.path.getsize(path)
    if not size:
        return 0
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, _FAILED):
            raise OSError(ctypes.get_errno(), f"mmap {path}")
        try:
            vec = (ctypes.c_ubyte * ((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE))()
            if _libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), f"mincore {path}")
            return sum(v & 1 for v in vec) * mmap.PAGESIZE
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def resident_total(paths: list[Path]) -> int:
    """Bytes of ``paths`` in the page cache, summed."""
    return sum(resident(p) for p in paths)
