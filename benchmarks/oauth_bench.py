#!/usr/bin/env python3
"""What a distributed app's per-request ``authorize`` costs: concurrent signed ``/paper search``
commands against ``paperbot serve`` with one ``SLACK_BOT_TOKEN``, then as a distributed app with
two installed workspaces (README "Distributed app (many workspaces)"), in one run on one machine.

Usage::

    .venv/bin/python benchmarks/oauth_bench.py [--concurrency 50] [--rounds 3] [--out FILE]

Both servers are real ``python -m bot serve`` processes (SQLite store in a temporary folder, the
index built from ``seeds/`` once and served by both) against the strict fake Slack on loopback. A
distributed app's request first finds its workspace's installation in the database, opens its
token (Fernet) and calls ``auth.test`` with it (Bolt's ``InstallationStoreAuthorize``) — all before
the listener can ``ack()``; this measures the ack and reply times that adds. Commands alternate
between the two workspaces. Figures of ``benchmarks/http_bench.py`` (single mode) for the same load.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from http_bench import QUERIES, percentile, stop_server  # noqa: E402  (benchmarks/http_bench.py)
from report import publish  # noqa: E402

from bot import corpus, search  # noqa: E402
from tests.fakeslack import TEAM_ID, FakeSlack  # noqa: E402
from tests.signing import signed_headers  # noqa: E402
from tests.slack.oauth.oauthkit import MANIFEST, SECRET, Browser, new_key, oauth_env  # noqa: E402

TEAMS = ("T0BENCHA", "T0BENCHB")


def start(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen, str]:
    """``python -m bot serve`` on a free port; returns the process and ``http://127.0.0.1:PORT``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    for line in proc.stderr:
        lines.append(line)
        if "serving on http://127.0.0.1:" in line:
            port = line.rsplit(":", 1)[1].split("/")[0]
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, f"http://127.0.0.1:{port}"
    proc.wait()
    sys.exit(f"paperbot serve did not start:\n{''.join(lines)[-3000:]}")


def one_round(url: str, fake: FakeSlack, teams: tuple[str, ...], n: int, round_no: int) -> list[dict]:
    """``n`` signed commands released together; ack and reply time of each (ms)."""
    parts = urlsplit(url)
    barrier, jobs = threading.Barrier(n), []
    for i in range(n):
        team, response_url = teams[i % len(teams)], fake.new_response_url()
        body = urlencode(
            {
                "team_id": team,
                "channel_id": "C" + team[1:],
                "user_id": f"U{round_no}{i:04d}",
                "command": "/paper",
                "text": QUERIES[(i + round_no) % len(QUERIES)],
                "api_app_id": "A0PAPERBOT",
                "response_url": response_url,
                "trigger_id": "1.2.3",
            }
        )
        jobs.append((response_url, body, signed_headers(SECRET, body)))

    def fire(i: int) -> dict:
        response_url, body, headers = jobs[i]
        barrier.wait()
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request("POST", "/slack/events", body=body.encode(), headers=headers)
            status = conn.getresponse().status
        finally:
            conn.close()
        return {
            "path": urlsplit(response_url).path,
            "sent": t0,
            "status": status,
            "ack": (time.perf_counter() - t0) * 1000,
        }

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(fire, range(n)))
    wanted = {r["path"]: r for r in results}
    deadline = time.perf_counter() + 60
    while wanted and time.perf_counter() < deadline:
        for c in fake.calls("response_url"):
            r = wanted.pop(c.path, None)
            if r is not None:
                r["reply"] = (time.perf_counter() - r["sent"]) * 1000
        time.sleep(0.01)
    return results


def run_mode(name: str, env: dict[str, str], fake: FakeSlack, teams, args, cwd: Path) -> dict:
    proc, url = start(env, cwd)
    try:
        if name == "distributed":
            fake.redirect_url = url + "/slack/oauth_redirect"
            for team in teams:
                assert Browser().install(url, team).status == 200, team
        before = len(fake.calls("auth.test"))
        every = [x for r in range(args.rounds) for x in one_round(url, fake, teams, args.concurrency, r)]
        auth_tests = len(fake.calls("auth.test")) - before
    finally:
        stop_server(proc)
    acks, replies = [x["ack"] for x in every], [x["reply"] for x in every if "reply" in x]
    return {
        "mode": name,
        "n": len(every),
        "ok": sum(x["status"] == 200 for x in every),
        "ack": [percentile(acks, 50), percentile(acks, 95), max(acks)],
        "replies": len(replies),
        "reply": [percentile(replies, 50), percentile(replies, 95), max(replies)] if replies else None,
        "auth_tests": auth_tests,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    started, load_start = time.strftime("%Y-%m-%d %H:%M:%S %Z"), os.getloadavg()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
    base["PYTHONPATH"] = str(ROOT)
    results = []
    with tempfile.TemporaryDirectory(prefix="paperbot-oauth-") as tmp:
        tmp = Path(tmp)
        index = tmp / "index"
        search.build_index(
            index, corpus.load_papers([ROOT / "seeds"]), fingerprint=corpus.seeds_fingerprint([ROOT / "seeds"])
        )
        with FakeSlack() as fake:
            single = dict(
                base,
                SLACK_BOT_TOKEN="xoxb-bench-token",
                SLACK_SIGNING_SECRET=SECRET,
                SLACK_API_URL=fake.api_url,
                PAPERBOT_INDEX_DIR=str(index),
                PAPERBOT_SEEDS=str(ROOT / "seeds"),
                DATABASE_URL=f"sqlite:///{tmp / 'single.db'}",
            )
            results.append(run_mode("one token", single, fake, (TEAM_ID,), args, tmp))
        with FakeSlack(MANIFEST) as fake:
            env = dict(base, **oauth_env(fake, f"sqlite:///{tmp / 'distributed.db'}", index, new_key()))
            results.append(run_mode("distributed", env, fake, TEAMS, args, tmp))
    load_end = os.getloadavg()

    def row(r: dict) -> str:
        rep = r["reply"] or [0, 0, 0]
        return (
            f"{r['mode']:<13}{r['n']:>5}{r['ok']:>5}{r['ack'][0]:>9.1f}{r['ack'][1]:>9.1f}{r['ack'][2]:>9.1f}"
            f"{r['replies']:>8}{rep[0]:>9.0f}{rep[1]:>9.0f}{rep[2]:>9.0f}{r['auth_tests']:>11}"
        )

    lines = [
        "paperbot distributed-app benchmark — the cost of per-request authorize",
        "=" * 80,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs",
        f"load: {args.rounds} rounds x {args.concurrency} simultaneous signed `/paper search …` commands per mode, "
        "`python -m bot serve` (SQLite), strict fake Slack on loopback, index of seeds/",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        "NOTE: the machine is shared with other sessions; client and servers run on the same cores.",
        "",
        f"{'mode':<13}{'n':>5}{'200':>5}{'ack p50':>9}{'ack p95':>9}{'ack max':>9}{'replies':>8}"
        f"{'rep p50':>9}{'rep p95':>9}{'rep max':>9}{'auth.test':>11}   (ms)",
        *[row(r) for r in results],
        "",
        "auth.test: calls the fake took during the commands (Bolt's authorize: one per request of a",
        "distributed app; none with one token, checked once at start-up).",
    ]
    publish(
        lines, args.out, {"started": started, "loadavg_start": load_start, "loadavg_end": load_end, "modes": results}
    )


if __name__ == "__main__":
    main()
