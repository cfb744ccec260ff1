"""Forked helper processes (corpus parsing, index building) die with their parent.

A forked child inherits the parent's open files — among them the index
directory's ``LOCK`` — so a child left running after its parent was killed
(``kill -9``, an out-of-memory kill, a platform's hard stop) would hold the
lock and block every later build. Linux can deliver a signal to a child when
its parent exits (``prctl(PR_SET_PDEATHSIG)``, man 2 prctl); elsewhere the
children still end when their work or their pipes do.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading

#: ``PR_SET_PDEATHSIG`` from <linux/prctl.h>.
PR_SET_PDEATHSIG = 1


def fork_is_safe() -> bool:
    """True when forking helpers is safe here: the platform has ``fork`` and
    this process runs a single thread (a forked copy of a threaded server
    could inherit a lock some other thread holds)."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def die_with_parent(parent_pid: int) -> None:
    """Call first thing in a forked child: SIGKILL this process when the
    parent exits (Linux; a no-op elsewhere), and exit at once when the parent
    ``parent_pid`` is already gone (it died between fork and this call).

    Ctrl-C reaches the whole process group: the child ignores SIGINT and
    takes SIGTERM's default action, so only the parent unwinds (it stops its
    children) and no child prints a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # the process' own symbols: libc's
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)
