"""``kill -9`` of ``paperbot serve`` during a burst of mentions and commands, then a restart.

A real ``paperbot serve`` (SQLite store in a temporary folder, the seeds index)
gets ``--mentions`` signed ``app_mention`` deliveries and ``--commands`` signed
``/paper search`` commands, interleaved, from 32 concurrent clients; once
``--kill-after`` of them were acknowledged (HTTP 200) it is killed with SIGKILL
while the rest are still arriving. Mention deliveries that got no 200 are what
Slack would retry: they are sent again to the restarted server (Slack never
retries a command). Counted after the restart: replies per acknowledged mention
(thread replies) and per acknowledged command (``response_url`` POSTs that
Slack took) — 0 lost, 2+ doubled — how many the restarted process retook from
the journal, how many it skipped because their reply may already have been
out, and the time from the restart to the last reply. The fake Slack answers
``chat.postMessage`` and each ``response_url`` POST after ``--post-delay``
seconds, so the kill lands while replies are in flight (issue 10 point 2;
docs/architecture.md "Idempotency and the journal").

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

from http_bench import command_body  # noqa: E402  (benchmarks/; scripts run from benchmarks/)
from report import publish  # noqa: E402

from tests.fakeslack import BOT_USER_ID, FakeSlack  # noqa: E402
from tests.slack.burst import ServeProcess, _post, burst, mention_envelope, replies_in_thread, slow_down  # noqa: E402


def command_replies(fake: FakeSlack, url: str) -> int:
    """``response_url`` POSTs that Slack took (HTTP 200) for the command of ``url``."""
    return sum(1 for c in fake.calls("response_url") if url.endswith(c.path) and c.status == 200)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mentions", type=int, default=600)
    ap.add_argument("--commands", type=int, default=200, help="/paper search commands mixed in")
    ap.add_argument("--kill-after", type=int, default=300, help="acknowledged mentions before the kill")
    ap.add_argument("--post-delay", type=float, default=0.2, help="seconds the fake Slack takes per post")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    started, load_start = time.strftime("%Y-%m-%d %H:%M:%S %Z"), os.getloadavg()
    with FakeSlack() as fake, tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        slow_down(fake, "chat.postMessage", args.post_delay)
        slow_down(fake, "response_url", args.post_delay)
        fake.add_channel("C0GENERAL", bot_member=True)  # Slack sends app_mention only from channels the bot is in
        server = ServeProcess(fake, tmp, f"sqlite:///{tmp / 'paperbot.db'}", tmp / "index")
        stamps = [f"{1766100000 + i}.000100" for i in range(args.mentions)]
        bodies = [
            # a burst from 100 people, not one person's flood (that is benchmarks/flood_bench.py)
            mention_envelope(
                f"Ev0BURST{i}", ts, text=f"<@{BOT_USER_ID}> sparse attention {i % 17}", user=f"U0P{i % 100}"
            )
            for i, ts in enumerate(stamps)
        ]
        urls = [fake.new_response_url() for _ in range(args.commands)]
        every = max(1, len(bodies) // max(1, len(urls)))
        for j, response_url in enumerate(urls):  # one command after every few mentions
            bodies.insert(
                min(len(bodies), (j + 1) * (every + 1) - 1),
                command_body(f"search sparse attention {j % 13}", f"U{j:04d}", response_url),
            )
        is_command = [not b.startswith("{") for b in bodies]
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
        commands_at_kill = sum(1 for u in urls if command_replies(fake, u))
        mention_status = [s for s, c in zip(statuses, is_command) if not c]
        command_status = [s for s, c in zip(statuses, is_command) if c]
        acked_ts = [ts for ts, s in zip(stamps, mention_status) if s == 200]
        acked_urls = [u for u, s in zip(urls, command_status) if s == 200]
        unacked = [b for b, s, c in zip(bodies, statuses, is_command) if s != 200 and not c]
        t_restart = time.perf_counter()
        url = server.start()
        started_s = time.perf_counter() - t_restart
        retried = burst(url, unacked) if unacked else []  # Slack's retries of the unacknowledged
        wanted = set(stamps)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and (
            any(replies_in_thread(fake, ts) == 0 for ts in wanted)
            or any(command_replies(fake, u) == 0 for u in acked_urls)
        ):
            time.sleep(0.2)
        all_answered_s = time.perf_counter() - t_restart
        exit_code = server.stop()
        counts = {ts: replies_in_thread(fake, ts) for ts in stamps}
        answers = {u: command_replies(fake, u) for u in urls}
        log = "".join(server.log)
    lost = sum(1 for ts in acked_ts if counts[ts] == 0)
    lost_all = sum(1 for ts in stamps if counts[ts] == 0)
    doubled = sum(1 for c in counts.values() if c > 1)
    cmd_lost = sum(1 for u in acked_urls if answers[u] == 0)
    cmd_doubled = sum(1 for c in answers.values() if c > 1)
    retaken = log.count("left unanswered")
    skipped = log.count("already answered; not answering again")
    cmd_skipped = log.count("a command reply cannot be looked up")
    data = {
        "started": started,
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "mentions": args.mentions,
        "acked_before_kill": len(acked_ts),
        "answered_at_kill": answered_at_kill,
        "unacked_resent": len(unacked),
        "resent_200": sum(1 for s in retried if s == 200),
        "retaken_from_journal": retaken,
        "retakes_skipped_as_already_answered": skipped,
        "lost_acked": lost,
        "lost_any": lost_all,
        "doubled": doubled,
        "commands": args.commands,
        "commands_acked_before_kill": len(acked_urls),
        "commands_answered_at_kill": commands_at_kill,
        "commands_lost_acked": cmd_lost,
        "commands_doubled": cmd_doubled,
        "command_retakes_skipped_as_maybe_out": cmd_skipped,
        "restart_to_listening_s": round(started_s, 1),
        "restart_to_all_answered_s": round(all_answered_s, 1),
        "exit_after_sigterm": exit_code,
        "post_delay_s": args.post_delay,
    }
    lines = [
        "paperbot crash benchmark — kill -9 of paperbot serve during a burst of mentions and commands",
        "=" * 89,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
        "NOTE: this machine is shared with other sessions.",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "",
        f"{'':35}{'mentions':>10}{'commands':>10}",
        f"{'sent':35}{args.mentions:>10}{args.commands:>10}",
        f"{'acknowledged (200) before the kill':35}{len(acked_ts):>10}{len(acked_urls):>10}",
        f"{'answered when killed':35}{answered_at_kill:>10}{commands_at_kill:>10}",
        f"not acknowledged mentions, sent again {len(unacked)} (as Slack retries them; commands are never retried)",
        f"retaken from the journal           {retaken} ({skipped} mentions found already answered in the "
        f"thread, {cmd_skipped} commands skipped as maybe answered)",
        f"restart → listening                {started_s:.1f} s",
        f"restart → everything answered      {all_answered_s:.1f} s",
        "",
        f"{'PASS' if lost == 0 else 'FAIL'}  0 acknowledged mentions lost      measured {lost} (any mention: {lost_all})",
        f"{'PASS' if doubled == 0 else 'FAIL'}  0 mentions answered twice        measured {doubled}",
        f"{'PASS' if cmd_lost == 0 else 'FAIL'}  0 acknowledged commands lost      measured {cmd_lost}",
        f"{'PASS' if cmd_doubled == 0 else 'FAIL'}  0 commands answered twice        measured {cmd_doubled}",
    ]
    publish(lines, args.out, data)


if __name__ == "__main__":
    main()
