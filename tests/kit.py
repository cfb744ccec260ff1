"""What every test package shares, defined once: the repository's paths, the
local PostgreSQL server's address, a settable clock and a recording poster. Fixtures built on
them (``pg_schema``, ``sqlite_url``, ``db_url``, ``clock``, ...) live in
tests/conftest.py.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from bot.core.ports import HistoryUnavailable, Message, PostError

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
#: The local PostgreSQL server (this machine's kind runs one; override for others).
PG_DSN = os.environ.get("PAPERBOT_TEST_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
PG_URL = os.environ.get("PAPERBOT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: Token-shaped strings the fake posters hold, as a real client would.
BOT_TOKEN = "xoxb-1111-2222-fakefakefakefake"
APP_TOKEN = "xapp-1-A111-3333-fakefakefake"


class Clock:
    """A settable clock returning aware UTC datetimes: ``clock()`` → ``clock.now``."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class RecordingPoster:
    """A ``Poster`` recording every post with the clock's time.

    ``fail[channel] = code`` makes parent posts there raise ``PostError(code)``;
    ``fail_all`` does so everywhere; ``found[marker] = ts`` answers
    ``find_recent_post``; ``history_unavailable = True`` makes it raise
    ``HistoryUnavailable``. Holds token strings like a real Slack poster.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock
        self.token, self.app_token = BOT_TOKEN, APP_TOKEN
        self.posts: list[tuple[str, Message, str | None, datetime | None]] = []
        self.fail: dict[str, str] = {}
        self.fail_all: str | None = None
        self.found: dict[str, str] = {}
        self.history_unavailable = False
        self.lookups: list[tuple[str, str, float]] = []
        self.attempts = 0

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        if thread_ts is None:
            self.attempts += 1
            code = self.fail_all or self.fail.get(channel_id)
            if code:
                raise PostError(code)
        self.posts.append((channel_id, message, thread_ts, self.clock() if self.clock else None))
        return f"{1700000000 + len(self.posts)}.000100"

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        self.lookups.append((channel_id, marker, oldest_ts))
        if self.history_unavailable:
            raise HistoryUnavailable(f"cannot read the history of {channel_id} (missing_scope)")
        return self.found.get(marker)

    @property
    def parents(self) -> list[tuple[str, Message, datetime | None]]:
        return [(c, m, at) for c, m, t, at in self.posts if t is None]

    def channels(self) -> list[str]:
        return [c for c, _, _ in self.parents]


def stop_process(proc, timeout: float = 15) -> None:
    """Stop a ``subprocess.Popen`` still running as Ctrl-C would (SIGINT),
    killing it when it has not exited after ``timeout`` seconds."""
    import signal
    import subprocess

    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def older_database(path: Path, version: int, *statements: str) -> None:
    """Turn the SQLite store at ``path`` into what schema ``version`` wrote: run
    ``statements`` (dropping what later versions added), then record ``version``."""
    import sqlite3

    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.commit()
    conn.close()


class HeldSqliteLock:
    """Another connection holding a SQLite file's write lock (``BEGIN IMMEDIATE``),
    as a backup, a ``VACUUM`` or a stalled process does — until ``release()``, or
    ``at_most`` seconds at the latest (so a test against code that waits for the
    lock instead of giving up ends instead of hanging). ``held`` tells whether the
    lock is still held. Use as a context manager."""

    def __init__(self, path: Path, at_most: float = 15.0) -> None:
        import sqlite3
        import threading

        self._conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._conn.execute("BEGIN IMMEDIATE")
        self._release = threading.Event()
        self._released = threading.Event()
        self._thread = threading.Thread(target=self._hold, args=(at_most,), daemon=True)
        self._thread.start()

    def _hold(self, at_most: float) -> None:
        self._release.wait(at_most)
        self._conn.rollback()
        self._conn.close()
        self._released.set()

    @property
    def held(self) -> bool:
        return not self._released.is_set()

    def release(self) -> None:
        self._release.set()
        self._released.wait(30)

    def __enter__(self) -> "HeldSqliteLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
