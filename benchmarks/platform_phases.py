"""The pieces of ``platform_sim.py``: copying the source, slicing the corpus, reading the
Procfile, one dyno process started from its own copy of the slug, a signed slash command."""

from __future__ import annotations

import gzip
import itertools
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from tests.fakeslack import TEAM_ID, FakeSlack
from tests.signing import signed_headers

SECRET = "sim-signing-secret-0123456789abcdef"


def source_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (root / f).is_file()]


def copy_source(root: Path, dest: Path) -> int:
    files = source_files(root)
    for f in files:
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / f, dest / f)
    return len(files)


def write_slice(data: Path, docs: int, dest: Path) -> int:
    dest.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(data.glob("*.jsonl.gz")) if data.is_dir() else [data]
    lines = itertools.chain.from_iterable(gzip.open(f, "rt", encoding="utf-8") for f in files)
    n = 0
    with dest.open("w", encoding="utf-8") as out:
        for line in itertools.islice(lines, docs):
            out.write(line)
            n += 1
    return n


def run(cmd, **kw) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, done


def procfile(app: Path) -> dict[str, str]:
    kinds = {}
    for line in (app / "Procfile").read_text().splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            kind, cmd = line.split(":", 1)
            kinds[kind.strip()] = cmd.strip()
    return kinds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dyno:
    """One process started from its own copy of the slug."""

    def __init__(self, name: str, slug: Path, base: Path, cmd: str, env: dict, keep_index=True):
        self.name, self.dir = name, base / name
        shutil.copytree(slug, self.dir, symlinks=True)
        if not keep_index:
            shutil.rmtree(self.dir / "index")
            (self.dir / "index").mkdir()
        self.log = (base / f"{name}.log").open("w+")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            ["bash", "-c", cmd],
            cwd=self.dir,
            env={**env, "DYNO": name},
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_healthy(self, port: int, limit: float) -> float | None:
        while time.perf_counter() - self.started < limit and self.proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return time.perf_counter() - self.started
            except OSError:
                time.sleep(0.05)
        return None

    def stop(self) -> str:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # what the platform sends
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.seek(0)
        return self.log.read()

    def generations(self) -> list[str]:
        return sorted(p.name for p in (self.dir / "index").glob("gen-*"))


def slash(port: int, fake: FakeSlack, text: str, channel: str = "C0SIMWEB") -> tuple[int, str]:
    url = fake.new_response_url()
    body = urlencode(
        {
            "team_id": TEAM_ID,
            "team_domain": "sim",
            "channel_id": channel,
            "channel_name": "sim",
            "user_id": "U0SIM",
            "user_name": "sim",
            "command": "/paper",
            "text": text,
            "api_app_id": "A0PAPERBOT",
            "response_url": url,
            "trigger_id": "1.2.3",
        }
    )
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/slack/events", data=body.encode(), headers=signed_headers(SECRET, body), method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, url
