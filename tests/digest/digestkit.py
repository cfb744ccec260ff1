"""Digest test helpers: a small corpus behind the index interface the digest
uses (``ids()``/``get()``) and recording posters (in memory, or appending to
a file so several processes can be checked); the settable clock is
``tests.kit.Clock``. Messages are rendered by the real
``bot.render.render_digest``.
"""
from __future__ import annotations

import json
import os
import re
import uuid
from datetime import datetime
from pathlib import Path

from bot.models import Paper
from bot.ports import HistoryUnavailable, Message, PostError
from tests.kit import Clock

MARKER = re.compile(r"potd-(\d{4}-\d{2}-\d{2})-([a-z0-9]+)")
#: Token-shaped strings the fake posters hold, as a real client would.
BOT_TOKEN = "xoxb-1111-2222-fakefakefakefake"
APP_TOKEN = "xapp-1-A111-3333-fakefakefake"


def make_papers(n: int = 38) -> list[Paper]:
    return [Paper(id=f"p{i:02d}q", title=f"Paper number {i}", abstract=f"Abstract of paper {i}. " * 5,
                  tldr=f"Paper {i} in one line.", keywords=("alpha", "beta"), venue="ICML 2026")
            for i in range(n)]


class ListIndex:
    """The two index calls the digest makes, over a list of papers."""

    def __init__(self, papers: list[Paper]) -> None:
        self.papers = {p.id: p for p in papers}

    def ids(self) -> list[str]:
        return sorted(self.papers)

    def get(self, paper_id: str) -> Paper | None:
        return self.papers.get(paper_id)


def marker_of(message: Message) -> tuple[str, str] | None:
    """(date, paper id) from a digest message's marker (metadata, block_id), or None."""
    m = MARKER.search(json.dumps([message.metadata, list(message.blocks)]))
    return (m.group(1), m.group(2)) if m else None


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


class FilePoster:
    """A ``Poster`` appending ``channel marker ts`` lines to a shared file.

    Several processes can post through it; ``find_recent_post`` reads the file
    like a channel history. ``block_before`` / ``block_after`` (multiprocessing
    Events) make ``post`` signal ``reached`` and then hang forever — before or
    after the line is written — so a test can SIGKILL the process there.
    """

    def __init__(self, path: Path, reached=None, block_before: bool = False,
                 block_after: bool = False) -> None:
        self.path, self.reached = Path(path), reached
        self.block_before, self.block_after = block_before, block_after
        self.token = BOT_TOKEN

    def _hang(self) -> None:
        self.reached.set()
        import threading
        threading.Event().wait()  # never set: the parent kills this process

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        if thread_ts is None and self.block_before:
            self._hang()
        found = marker_of(message)
        ts = f"{os.getpid()}.{uuid.uuid4().int % 10**6:06d}"
        line = f"{channel_id} {'potd-%s-%s' % found if found else '-'} {thread_ts or ts}\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
        if thread_ts is None and self.block_after:
            self._hang()
        return ts

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        for channel, mark, ts in self.lines():
            if channel == channel_id and mark == marker:
                return ts
        return None

    def lines(self) -> list[tuple[str, str, str]]:
        if not self.path.exists():
            return []
        return [tuple(line.split()) for line in self.path.read_text().splitlines()]

    def parents(self) -> list[tuple[str, str]]:
        return [(c, m) for c, m, _ in self.lines() if m != "-"]
