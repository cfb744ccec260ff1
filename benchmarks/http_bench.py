#!/usr/bin/env python3
"""HTTP benchmark: 50 concurrent signed ``/paper search …`` commands against ``paperbot serve``.

Usage::

    .venv/bin/python benchmarks/http_bench.py [--concurrency 50] [--rounds 3] [--index DIR] [--out FILE]

Starts the real stack as an operator would — ``python -m bot serve --host 127.0.0.1`` in its own
process (waitress + Bolt + the real Service, SQLite store in a temporary folder) — against a
fake Slack Web API on loopback (``tests/fakeslack.py``). The index is built from ``seeds/`` at
start-up, or ``--index DIR`` serves an index built beforehand (e.g. the 100k arXiv one).

Each round releases N threads at once (a barrier), each POSTing one slash command signed exactly as
Slack signs it (``tests/signing.py``: v0 HMAC-SHA256) on its own connection. Measured per request:
the time to the HTTP answer (the *ack* Slack waits at most 3 s for), its status code, and any
connection error (refused, reset, timeout). Then the replies the bot posts to each
``response_url`` are awaited (first-seen time, polled every 10 ms).

docs/interfaces.md quality bar: every ack < 3 s, p95 ack < 500 ms, no connection refused or reset.
"""

from __future__ import annotations

import argparse
import http.client
import math
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from report import publish  # noqa: E402  (benchmarks/report.py; scripts run from benchmarks/)

from tests.fakeslack import TEAM_ID, FakeSlack  # noqa: E402
from tests.signing import signed_headers  # noqa: E402

SECRET = "bench-signing-secret-0123456789abcdef"
QUERIES = [
    "search image steganography",
    "search sparse attention",
    "search speculative decoding",
    "search mixture of experts",
    "search test-time scaling",
    "search chess",
    "search diffusion",
    "search reinforcement learning",
    "search distilation",
    "search graph neural network",
]


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def start_server(
    fake: FakeSlack, tmp: Path, index_dir: Path | None, log: list[str] | None = None
) -> tuple[subprocess.Popen, str, float]:
    """Start ``python -m bot serve`` on a free port; ``(process, "host:port", seconds to start)``.
    Its stderr is read to the end in a thread (kept in ``log`` when given)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        SLACK_BOT_TOKEN="xoxb-bench-token",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url.rstrip("/"),
        PAPERBOT_INDEX_DIR=str(index_dir or tmp / "index"),
        PAPERBOT_SEEDS=str(ROOT / "seeds"),
        DATABASE_URL=f"sqlite:///{tmp / 'paperbot.db'}",
        PORT="0",
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1"],
        cwd=tmp,
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if m := re.search(r"serving on http://127\.0\.0\.1:(\d+)", line):
            if log is not None:
                log.extend(lines)
            # keep draining stderr so the server never blocks on a full pipe
            threading.Thread(target=_drain, args=(proc, log), daemon=True).start()
            return proc, f"127.0.0.1:{m.group(1)}", time.perf_counter() - t0
    proc.wait()
    sys.exit(f"paperbot serve did not start (exit {proc.returncode}):\n{''.join(lines)[-3000:]}")


def _drain(proc: subprocess.Popen, keep: list[str] | None) -> None:
    for line in proc.stderr:
        if keep is not None:
            keep.append(line)


def stop_server(proc: subprocess.Popen) -> int | None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def command_body(text: str, user: str, response_url: str) -> str:
    return urlencode(
        {
            "token": "deprecated",
            "team_id": TEAM_ID,
            "team_domain": "paperbot-bench",
            "channel_id": "C0BENCH",
            "channel_name": "bench",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/paper",
            "text": text,
            "api_app_id": "A0PAPERBOT",
            "is_enterprise_install": "false",
            "response_url": response_url,
            "trigger_id": "1.2.3",
        }
    )


def one_round(addr: str, fake: FakeSlack, n: int, round_no: int, timeout: float) -> list[dict]:
    host, port = addr.split(":")
    barrier = threading.Barrier(n)
    # bodies are prepared and signed before the barrier, so only the HTTP exchange is timed
    jobs = []
    for i in range(n):
        url = fake.new_response_url()
        body = command_body(QUERIES[(i + round_no) % len(QUERIES)], f"U{round_no}{i:04d}", url)
        jobs.append((url, body, signed_headers(SECRET, body)))

    def fire(i: int) -> dict:
        url, body, headers = jobs[i]
        barrier.wait()
        t0 = time.perf_counter()
        out = {"response_url": url, "sent": t0}
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        try:
            conn.request("POST", "/slack/events", body=body.encode(), headers=headers)
            answer = conn.getresponse()
            answer.read()
            out["status"] = answer.status
        except Exception as e:  # refused, reset, timeout: recorded, never raised
            out["error"] = type(e).__name__ + (f": {e}" if str(e) else "")
        finally:
            conn.close()
        out["ack_ms"] = (time.perf_counter() - t0) * 1000
        return out

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(fire, range(n)))

    # replies: first time each response_url path is seen on the fake
    wanted = {urlsplit(r["response_url"]).path: r for r in results if r.get("status") == 200}
    deadline = time.perf_counter() + 60
    while wanted and time.perf_counter() < deadline:
        now = time.perf_counter()
        for call in fake.calls("response_url"):
            r = wanted.pop(call.path, None)
            if r is not None:
                r["reply_ms"] = (now - r["sent"]) * 1000
        time.sleep(0.01)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of N simultaneous commands (default 3)")
    ap.add_argument("--index", type=Path, help="serve this existing index instead of building one from seeds/")
    ap.add_argument("--timeout", type=float, default=10.0, help="client socket timeout, s")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()

    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z")
    rounds = []
    with tempfile.TemporaryDirectory(prefix="paperbot-http-") as tmp, FakeSlack() as fake:
        tmp = Path(tmp)
        proc, addr, startup_s = start_server(fake, tmp, args.index)
        try:
            for r in range(args.rounds):
                rounds.append(one_round(addr, fake, args.concurrency, r, args.timeout))
                time.sleep(0.5)
        finally:
            exit_code = stop_server(proc)
    load_end = os.getloadavg()

    every = [x for rnd in rounds for x in rnd]
    acks = [x["ack_ms"] for x in every if "status" in x]
    statuses = Counter(x.get("status", "no answer") for x in every)
    errors = Counter(x["error"].split(":")[0] for x in every if "error" in x)
    replies = [x["reply_ms"] for x in every if "reply_ms" in x]
    under_3s = all(x.get("status") == 200 and x["ack_ms"] < 3000 for x in every)
    p95 = percentile(acks, 95) if acks else float("inf")
    refused_reset = sum(
        n for e, n in errors.items() if "Refused" in e or "Reset" in e or "Disconnected" in e or "BrokenPipe" in e
    )

    def row(label: str, xs: list[dict]) -> str:
        a = [x["ack_ms"] for x in xs if "status" in x]
        rp = [x["reply_ms"] for x in xs if "reply_ms" in x]
        st = Counter(x.get("status", "error") for x in xs)
        return (
            f"{label:<10}{len(xs):>5}{percentile(a, 50) if a else 0:>9.1f}{percentile(a, 95) if a else 0:>9.1f}"
            f"{max(a) if a else 0:>9.1f}   {dict(st)!s:<16}{len(rp):>4}/{len(xs):<4}"
            f"{(percentile(rp, 50) if rp else 0):>8.0f}{(percentile(rp, 95) if rp else 0):>8.0f}"
            f"{(max(rp) if rp else 0):>8.0f}"
        )

    lines = [
        "paperbot HTTP benchmark — concurrent signed slash commands against `paperbot serve`",
        "=" * 80,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"server: `python -m bot serve --host 127.0.0.1` (waitress + Bolt + Service, SQLite store), "
        f"index: {args.index or 'built from seeds/ at start-up'}; up after {startup_s:.1f} s; exit status {exit_code}",
        "Slack Web API: tests/fakeslack.py on loopback; requests signed per tests/signing.py (v0 HMAC-SHA256)",
        f"load: {args.rounds} rounds x {args.concurrency} simultaneous `/paper search …` commands, one connection each",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        "NOTE: the machine is shared with other sessions; client and server run on the same 2 cores.",
        "",
        f"{'':<10}{'n':>5}{'ack p50':>9}{'ack p95':>9}{'ack max':>9}   {'status codes':<16}{'replies':>9}"
        f"{'rep p50':>8}{'rep p95':>8}{'rep max':>8}   (ms)",
        *[row(f"round {i + 1}", rnd) for i, rnd in enumerate(rounds)],
        row("all", every),
        "",
        f"status codes: {dict(statuses)}",
        f"connection errors: {dict(errors) if errors else 'none'}",
        f"replies posted to response_url: {len(replies)} of {len(every)} (reply = time from sending the "
        "command to the search results reaching the fake Slack)",
        "",
        "quality bar (docs/interfaces.md):",
        f"  {'PASS' if under_3s else 'FAIL'}  every command acked with 200 in < 3 s        max {max(acks) if acks else float('nan'):.1f} ms",
        f"  {'PASS' if p95 < 500 else 'FAIL'}  p95 ack < 500 ms                            p95 {p95:.1f} ms",
        f"  {'PASS' if refused_reset == 0 and not errors else 'FAIL'}  no connection refused/reset (no errors)   "
        f"{sum(errors.values())} errors",
    ]
    publish(
        lines,
        args.out,
        {
            "started": started,
            "concurrency": args.concurrency,
            "rounds": args.rounds,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "startup_s": round(startup_s, 2),
            "ack_ms": {"p50": round(percentile(acks, 50), 2), "p95": round(p95, 2), "max": round(max(acks), 2)}
            if acks
            else None,
            "statuses": {str(k): v for k, v in statuses.items()},
            "errors": dict(errors),
            "replies": len(replies),
            "requests": len(every),
            "pass": {"every_ack_under_3s": under_3s, "p95_under_500ms": p95 < 500, "no_conn_errors": not errors},
        },
    )


if __name__ == "__main__":
    main()
