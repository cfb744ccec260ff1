"""Processes sharing one index folder start together: two ``paperbot serve``
and a ``paperbot clock`` on an empty default index. Each one that finds the
index being built says so once, waits for the lock, then serves the index
the other built — one build in all, every process up (real processes, since
the lock is a flock between processes; the test holds it first so the three
overlap on every run, however the machine schedules them)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli.test_cli_index_wait import hold_lock
from tests.fakeslack import FakeSlack
from tests.kit import ROOT, stop_process
from tests.slack.slackkit import SECRET, SEEDS, SlackHarness

WAITING = "another process is building the index in"
BUILDING = "building the default index from"


def _env(fake: FakeSlack, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
    env.update(
        SLACK_BOT_TOKEN="xoxb-test-token",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url.rstrip("/"),
        PAPERBOT_INDEX_DIR=str(tmp_path / "index"),
        PAPERBOT_SEEDS=str(SEEDS),
        DATABASE_URL=f"sqlite:///{tmp_path / 'paperbot.db'}",
        PORT="0",
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    return env


def _wait_for(logs: dict[str, Path], procs: dict[str, subprocess.Popen], pattern: str, timeout=120) -> None:
    """Until every log in ``logs`` has a line matching ``pattern``; fails early when a process exits."""
    deadline = time.monotonic() + timeout
    pending = set(logs)
    while pending and time.monotonic() < deadline:
        for name in list(pending):
            text = logs[name].read_text()
            if re.search(pattern, text):
                pending.discard(name)
            elif procs[name].poll() is not None:
                raise AssertionError(f"{name} exited {procs[name].returncode}: {text[-2000:]}")
        time.sleep(0.1)
    assert not pending, {n: logs[n].read_text()[-2000:] for n in pending}


@pytest.mark.long_wall
def test_serve_serve_and_clock_started_together_build_once_and_all_run(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    release = threading.Event()
    holder = hold_lock(index_dir, release, most=150)  # as if a fourth process were building now
    procs: dict[str, subprocess.Popen] = {}
    logs = {name: tmp_path / f"{name}.log" for name in ("serve-a", "serve-b", "clock")}
    with FakeSlack() as fake:
        env = _env(fake, tmp_path)
        try:
            for name, log in logs.items():
                args = ["clock"] if name == "clock" else ["serve", "--host", "127.0.0.1"]
                with open(log, "w") as out:
                    procs[name] = subprocess.Popen(
                        [sys.executable, "-m", "bot", "-v", *args],
                        cwd=tmp_path,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
            _wait_for(logs, procs, WAITING)  # all three found the index being built
            release.set()
            holder.join(30)
            _wait_for({n: p for n, p in logs.items() if n != "clock"}, procs, r"http://127\.0\.0\.1:\d+")
            _wait_for({"clock": logs["clock"]}, procs, "paperbot clock: posting due papers")
            texts = {name: log.read_text() for name, log in logs.items()}
            assert sum(t.count(BUILDING) for t in texts.values()) == 1, texts
            assert all(t.count(WAITING) == 1 and "Traceback" not in t for t in texts.values()), texts
            assert len([p for p in index_dir.iterdir() if p.name.startswith("gen-")]) == 1
            for name in ("serve-a", "serve-b"):
                port = re.findall(r"http://127\.0\.0\.1:(\d+)", texts[name])[-1]
                slack = SlackHarness(f"http://127.0.0.1:{port}", fake, None, None, None, None)
                response, url = slack.command("search image steganography")
                assert response.status == 200
                (reply,) = slack.replies(url)
                assert "KIStego" in str(reply["blocks"]), name
            assert all(p.poll() is None for p in procs.values())
        finally:
            release.set()
            for proc in procs.values():
                stop_process(proc)
