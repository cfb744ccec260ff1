"""Digest test helpers: a small corpus behind the index interface the digest
uses (``ids()``/``get()``) and a poster appending to a file so several
processes can be checked; the in-memory ``RecordingPoster`` and the settable
``Clock`` are ``tests.kit``'s. Messages are rendered by the real
``bot.render.render_digest``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import uuid
from pathlib import Path

from bot.core.models import Paper
from bot.core.ports import Message
from tests.kit import BOT_TOKEN

MARKER = re.compile(r"potd-(\d{4}-\d{2}-\d{2})-([a-z0-9]+)")


def make_papers(n: int = 38) -> list[Paper]:
    return [
        Paper(
            id=f"p{i:02d}q",
            title=f"Paper number {i}",
            abstract=f"Abstract of paper {i}. " * 5,
            tldr=f"Paper {i} in one line.",
            keywords=("alpha", "beta"),
            venue="ICML 2026",
        )
        for i in range(n)
    ]


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


class FilePoster:
    """A ``Poster`` appending ``channel marker ts`` lines to a shared file.

    Several processes can post through it; ``find_recent_post`` reads the file
    like a channel history. ``block_before`` / ``block_after`` (multiprocessing
    Events) make ``post`` signal ``reached`` and then hang forever — before or
    after the line is written — so a test can SIGKILL the process there.
    """

    def __init__(self, path: Path, reached=None, block_before: bool = False, block_after: bool = False) -> None:
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


#: Forked processes: each test's workers share only the database and files.
FORK = multiprocessing.get_context("fork")


def run_together(target, argsets: list[tuple]) -> list:
    """Run ``target(*args, barrier, results)`` in one forked process per ``args``,
    released together by ``barrier``; return what each put on ``results``
    (in arrival order). Every process must exit with status 0."""
    barrier, results = FORK.Barrier(len(argsets)), FORK.Queue()
    procs = [FORK.Process(target=target, args=(*args, barrier, results)) for args in argsets]
    for p in procs:
        p.start()
    got = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return got
