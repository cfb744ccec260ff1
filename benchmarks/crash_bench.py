"""``kill -9`` of ``paperbot serve`` during a burst of mentions, then a restart.

A real ``paperbot serve`` (SQLite store in a temporary folder, the seeds index)
gets ``--mentions`` signed ``app_mention`` deliveries from 32 concurrent
clients; once ``--kill-after`` of them were acknowledged (HTTP 200) it is killed
with SIGKILL while the rest are still arriving. Deliveries that got no 200 are
what Slack would retry: they are sent again to the restarted server. Counted
after the restart: replies per acknowledged mention (0 lost, 2+ doubled), how
many the restarted process retook from the journal, and the time from the
restart to the last reply. The fake Slack answers ``chat.postMessage`` after
``--post-delay`` seconds, so the kill lands while replies are in flight
(issue 10 point 2; docs/architecture.md "Idempotency and the journal").

    .venv/bin/python benchmarks/crash_bench.py --out benchmarks/results/crash.txt
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from report import publish  # noqa: E402  (benchmarks/report.py; scripts run from benchmarks/)
from tests.fakeslack import BOT_USER_ID, FakeSlack  # noqa: E402
from tests.slack.burst import (ServeProcess, _post, burst, mention_envelope, replies_in_thread,  # noqa: E402
                               slow_down)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mentions", type=int, default=600)
    ap.add_argument("--kill-after", type=int, default=300, help="acknowledged mentions before the kill")
    ap.add_argument("--post-delay", type=float, default=0.2, help="seconds the fake Slack takes per post")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with FakeSlack() as fake, tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        slow_down(fake, "chat.postMessage", args.post_delay)
        fake.add_channel("C0GENERAL", bot_member=True)   # Slack sends app_mention only from channels the bot is in
        server = ServeProcess(fake, tmp, f"sqlite:///{tmp / 'paperbot.db'}", tmp / "index")
        stamps = [f"{1766100000 + i}.000100" for i in range(args.mentions)]
        bodies = [mention_envelope(f"Ev0BURST{i}", ts, text=f"<@{BOT_USER_ID}> sparse attention {i % 17}")
                  for i, ts in enumerate(stamps)]
        url = server.start()
        statuses = [0] * len(bodies)
        acked = threading.Semaphore(0)
        killed = threading.Event()

        def one(i: int) -> None:
            if killed.is_set():
                return
            try:
                statuses[i] = _post(url, bodies[i], retry=None)
            except OSError:
                statuses[i] = 0
            if statuses[i] == 200:
                acked.release()

        with ThreadPoolExecutor(max_workers=32) as pool:
            futures = [pool.submit(one, i) for i in range(len(bodies))]
            for _ in range(min(args.kill_after, len(bodies))):
                acked.acquire(timeout=120)
            server.kill()
            killed.set()
            for f in futures:
                f.result()
        answered_at_kill = sum(1 for ts in stamps if replies_in_thread(fake, ts))
        acked_ts = [ts for ts, s in zip(stamps, statuses) if s == 200]
        unacked = [b for b, s in zip(bodies, statuses) if s != 200]
        t_restart = time.perf_counter()
        url = server.start()
        started_s = time.perf_counter() - t_restart
        retried = burst(url, unacked) if unacked else []          # Slack's retries of the unacknowledged
        wanted = set(stamps)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and any(replies_in_thread(fake, ts) == 0 for ts in wanted):
            time.sleep(0.2)
        all_answered_s = time.perf_counter() - t_restart
        exit_code = server.stop()
        counts = {ts: replies_in_thread(fake, ts) for ts in stamps}
        log = "".join(server.log)
    lost = sum(1 for ts in acked_ts if counts[ts] == 0)
    lost_all = sum(1 for ts in stamps if counts[ts] == 0)
    doubled = sum(1 for c in counts.values() if c > 1)
    retaken = log.count("left unanswered")
    skipped = log.count("already answered; not answering again")
    data = {"started": started, "mentions": args.mentions, "acked_before_kill": len(acked_ts),
            "answered_at_kill": answered_at_kill, "unacked_resent": len(unacked),
            "resent_200": sum(1 for s in retried if s == 200), "retaken_from_journal": retaken,
            "retakes_skipped_as_already_answered": skipped, "lost_acked": lost, "lost_any": lost_all,
            "doubled": doubled, "restart_to_listening_s": round(started_s, 1),
            "restart_to_all_answered_s": round(all_answered_s, 1), "exit_after_sigterm": exit_code,
            "post_delay_s": args.post_delay}
    lines = ["paperbot crash benchmark — kill -9 of paperbot serve during a burst of mentions", "=" * 76,
             f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
             "NOTE: this machine is shared with other sessions.", "",
             f"mentions sent                      {args.mentions}",
             f"acknowledged (200) before the kill {len(acked_ts)}",
             f"answered when killed               {answered_at_kill}",
             f"not acknowledged, sent again       {len(unacked)} (as Slack retries them)",
             f"retaken from the journal           {retaken} ({skipped} found already answered in the thread)",
             f"restart → listening                {started_s:.1f} s",
             f"restart → every mention answered   {all_answered_s:.1f} s",
             "",
             f"{'PASS' if lost == 0 else 'FAIL'}  0 acknowledged mentions lost      measured {lost} (any mention: {lost_all})",
             f"{'PASS' if doubled == 0 else 'FAIL'}  0 answered twice                  measured {doubled}"]
    publish(lines, args.out, data)


if __name__ == "__main__":
    main()
