#!/usr/bin/env python3
"""Floods and a held lock against ``paperbot serve``, each beside the same figure without it (issue 20 point 5).

Usage::

    .venv/bin/python benchmarks/flood_bench.py [--flood 400] [--links 1000] [--probes 20] [--lock-s 12]
        [--searches 2000] [--adds 50] [--index DIR] [--out FILE]

Starts the real stack as ``http_bench.py`` does — ``python -m bot serve`` in its own process, SQLite
store, the fake Slack Web API of ``tests/fakeslack.py`` on loopback, every request signed as Slack
signs it — and measures *another user's* ``/paper search attention`` commands (the probe: ``--probes``
of them, one every 0.5 s from ``U0OTHER``): each command's ack (HTTP answer) and its answer (the
search results reaching the command's ``response_url`` on the fake), in these phases:

1. quiet — nothing else going on (the figure every other phase is compared with);
2. mentions — meanwhile one user (``U0FLOOD``) sends ``--flood`` mentions of 3,000 pathological
   characters (``pathological_queries.txt``) from 16 connections;
3. links — meanwhile that user sends ``--flood`` ``link_shared`` events of ``--links`` unknown links;
4. lock — meanwhile another connection holds SQLite's write lock on the store for ``--lock-s`` seconds;
5. quiet again, at the end;

then the file descriptors of ``serve`` at start, after ``--searches`` searches (commands from 50
users, 8 at a time) and ``--adds`` ``paperbot index add`` runs of one new paper each (searches in
between, so each new generation is opened), with those still open on deleted files.

Targets (docs/interfaces.md "Quality bars"): during a flood every probe acked within 1 s with 200
and no "busy", answers p95 within 2 s; during the lock every ack within 2 s; descriptors at most
start + 20.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from http_bench import SECRET, command_body, percentile, start_server, stop_server  # noqa: E402
from report import publish  # noqa: E402

from bot.search.index.generation import MAX_IDLE_SEARCHERS  # noqa: E402
from tests.fakeslack import BOT_USER_ID, TEAM_ID, FakeSlack  # noqa: E402
from tests.signing import FORM, JSON, signed_headers  # noqa: E402

PROBE_USER, FLOOD_USER = "U0OTHER", "U0FLOOD"
PROBE_TEXT = "search attention"
PROBE_EVERY_S = 0.5
FLOOD_WORKERS = 16
MENTION_CHARS = 3000
ADD_SEARCHES = 10


class Arrivals:
    """When each ``response_url`` POST first reached the fake (``time.perf_counter``)."""

    def __init__(self, fake: FakeSlack) -> None:
        self.at: dict[str, float] = {}
        respond = fake._respond  # noqa: SLF001 — the hook tests/slack/burst.py: slow_down uses too

        def timed(path: str, body: dict):
            self.at.setdefault(path, time.perf_counter())
            return respond(path, body)

        fake._respond = timed  # noqa: SLF001


def post(addr: str, body: str, timeout: float = 30.0) -> tuple[int, bytes, float, str]:
    """POST one signed request: ``(status or 0, body, seconds, error)``."""
    host, port = addr.split(":")
    headers = signed_headers(SECRET, body, content_type=JSON if body.startswith("{") else FORM)
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("POST", "/slack/events", body=body.encode("utf-8"), headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.read(), time.perf_counter() - t0, ""
    except Exception as exc:  # noqa: BLE001 — refused, reset, timeout: counted, never raised
        return 0, b"", time.perf_counter() - t0, type(exc).__name__
    finally:
        conn.close()


def probe(addr: str, fake: FakeSlack, arrivals: Arrivals, count: int, user: str = PROBE_USER) -> list[dict]:
    """``count`` commands from ``user``, one every ``PROBE_EVERY_S`` (each on its own thread, so a
    slow ack never delays the next); then wait up to 30 s for their answers."""
    rows: list[dict] = []

    def one(i: int) -> None:
        url = fake.new_response_url()
        sent = time.perf_counter()
        status, body, seconds, error = post(addr, command_body(PROBE_TEXT, user, url))
        busy = b"still working" in body
        rows.append(
            {"path": urlsplit(url).path, "sent": sent, "status": status, "ack_ms": seconds * 1000, "error": error}
            | {"busy": busy}
        )

    threads = []
    for i in range(count):
        threads.append(threading.Thread(target=one, args=(i,)))
        threads[-1].start()
        time.sleep(PROBE_EVERY_S)
    for t in threads:
        t.join()
    deadline = time.perf_counter() + 30
    while time.perf_counter() < deadline and any(r["path"] not in arrivals.at for r in rows if r["status"] == 200):
        time.sleep(0.05)
    for r in rows:
        if r["path"] in arrivals.at:
            r["reply_ms"] = (arrivals.at[r["path"]] - r["sent"]) * 1000
    return rows


def flood(addr: str, bodies: list[str], span_s: float) -> dict:
    """POST every body from ``FLOOD_WORKERS`` connections, spread evenly over ``span_s``
    seconds (the probe's window; as fast as the server takes them when it is slower);
    statuses and seconds."""
    t0 = time.perf_counter()

    def one(i: int) -> int:
        time.sleep(max(0.0, t0 + i * span_s / len(bodies) - time.perf_counter()))
        return post(addr, bodies[i])[0]

    with ThreadPoolExecutor(max_workers=FLOOD_WORKERS) as pool:
        statuses = Counter(pool.map(one, range(len(bodies))))
    return {"sent": len(bodies), "statuses": dict(statuses), "seconds": round(time.perf_counter() - t0, 1)}


def envelope(event: dict, event_id: str) -> str:
    return json.dumps({"type": "event_callback", "team_id": TEAM_ID, "event_id": event_id, "event": event})


def mention_bodies(count: int) -> list[str]:
    """Mentions of ``MENTION_CHARS`` characters each, cycling through the pathological queries."""
    lines = [x.strip() for x in (ROOT / "benchmarks" / "pathological_queries.txt").read_text().splitlines()]
    texts = [x for x in lines if x and not x.startswith("#")]
    bodies = []
    for i in range(count):
        text = (texts[i % len(texts)] + " ") * (MENTION_CHARS // max(1, len(texts[i % len(texts)])) + 1)
        ts = f"{1767000000 + i}.000100"
        event = {"type": "app_mention", "user": FLOOD_USER, "channel": "C0FLOOD", "ts": ts, "event_ts": ts}
        event["text"] = f"<@{BOT_USER_ID}> {text}"[:MENTION_CHARS]
        bodies.append(envelope(event, f"Ev0FLOODM{i}"))
    return bodies


def link_bodies(count: int, links: int) -> list[str]:
    """``link_shared`` events of ``links`` unknown arXiv links each."""
    urls = [{"domain": "arxiv.org", "url": f"https://arxiv.org/abs/9999.{i:05d}"} for i in range(links)]
    bodies = []
    for i in range(count):
        ts = f"{1768000000 + i}.000100"
        event = {"type": "link_shared", "user": FLOOD_USER, "channel": "C0FLOOD", "message_ts": ts, "links": urls}
        bodies.append(envelope(event, f"Ev0FLOODL{i}"))
    return bodies


def figures(rows: list[dict]) -> dict:
    acks = [r["ack_ms"] for r in rows if r["status"]]
    replies = [r["reply_ms"] for r in rows if "reply_ms" in r]
    return {
        "n": len(rows),
        "ack_ms": {"p50": percentile(acks, 50), "p95": percentile(acks, 95), "max": max(acks)} if acks else None,
        "reply_ms": {"p50": percentile(replies, 50), "p95": percentile(replies, 95), "max": max(replies)}
        if replies
        else None,
        "answered": len(replies),
        "errors": sum(1 for r in rows if r["status"] != 200 or r["error"] or r["busy"]),
        "statuses": dict(Counter(r["status"] for r in rows)),
    }


def hold_lock(db: Path, seconds: float, held: threading.Event) -> None:
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    time.sleep(seconds)
    conn.rollback()
    conn.close()


def fd_targets(pid: int) -> list[str]:
    """What each open descriptor of process ``pid`` is on (``/proc/PID/fd`` links; one
    closed meanwhile is left out)."""
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return targets


def descriptors(pid: int) -> tuple[int, int]:
    """``(open descriptors, those on deleted files)`` of process ``pid``."""
    targets = fd_targets(pid)
    return len(targets), sum(t.endswith("(deleted)") for t in targets)


def index_files(pid: int, index_dir: Path) -> dict:
    """The descriptors of ``pid`` on files of the index: how many, on how many distinct files,
    and the most descriptors any one file has (one per open searcher)."""
    opened = Counter(t for t in fd_targets(pid) if t.startswith(str(index_dir)))
    return {"fds": sum(opened.values()), "files": len(opened), "searchers": max(opened.values(), default=0)}


def settled(pid: int, most_s: float = 5.0) -> int:
    """``pid``'s descriptor count once it stops falling (polled every 0.5 s, at most
    ``most_s`` seconds): connections the client has closed are closed by the server a
    moment later, and a count taken in that moment is not a leak."""
    count, deadline = descriptors(pid)[0], time.monotonic() + most_s
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = descriptors(pid)[0]
        if now >= count:
            return now
        count = now
    return count


def descriptor_kinds(pid: int, index_dir: Path) -> dict:
    """The descriptors of ``pid`` by what they are on: ``index`` files, ``database`` files
    (``*.db``, ``-wal``, ``-shm``), ``socket``, ``pipe``, ``anon_inode`` (eventfd, epoll), other
    ``file``."""
    kinds: Counter = Counter()
    for target in fd_targets(pid):
        if target.startswith(str(index_dir)):
            kinds["index"] += 1
        elif target.endswith((".db", ".db-wal", ".db-shm")):
            kinds["database"] += 1
        else:
            kinds[target.split(":")[0] if ":" in target and not target.startswith("/") else "file"] += 1
    return dict(sorted(kinds.items()))


def fd_phase(addr: str, fake: FakeSlack, pid: int, index_dir: Path, tmp: Path, searches: int, adds: int) -> dict:
    """Descriptors before, after ``searches`` commands (50 users, 8 at a time), and after ``adds``
    index adds of one paper each, every add followed by ``ADD_SEARCHES`` searches (the new
    generation is opened)."""
    start, _ = descriptors(pid)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_SEEDS=str(ROOT / "seeds"), PYTHONPATH=str(ROOT))
    sent = iter(range(10**9))

    def searched(n: int) -> None:
        bodies = [
            command_body(f"search attention {k % 7}", f"U0FD{next(sent) % 50:02d}", fake.new_response_url())
            for k in range(n)
        ]
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda b: post(addr, b), bodies))

    searched(searches)
    after_searches, peak = settled(pid), 0
    kinds_after_searches = descriptor_kinds(pid, index_dir)
    for a in range(adds):
        source = tmp / f"add{a}.jsonl"
        paper = {"id": f"fd{a:03d}", "title": f"Flood paper {a}", "abstract": "Attention on floods. " * 20}
        source.write_text(json.dumps(dict(paper, authors=["A. Author"], venue="Bench 2026")) + "\n")
        subprocess.run(
            [sys.executable, "-m", "bot", "index", "add", "--source", str(source), "--index", str(index_dir)],
            env=env,
            check=True,
            capture_output=True,
        )
        searched(ADD_SEARCHES)
        peak = max(peak, descriptors(pid)[0])
    end, deleted = descriptors(pid)
    segments = len(list(layout_segments(index_dir)))
    on_index = index_files(pid, index_dir)
    return {
        "start": start,
        "after_searches": after_searches,
        "kinds_after_searches": kinds_after_searches,
        "end": end,
        "peak": peak,
        "deleted": deleted,
        "searches": searches,
        "adds": adds,
        "segments": segments,
        "index": on_index,
    }


def layout_segments(index_dir: Path):
    """The Whoosh segments (``*.trm`` files) of the live generation (``CURRENT`` names it)."""
    current = (index_dir / "CURRENT").read_text().strip()
    return (index_dir / current).glob("*.trm")


def added_verdict(fds: dict) -> str:
    """PASS within start + 20; BOUNDED when over it only by the live generation's index
    files, held by no more searchers than a generation keeps; else FAIL."""
    if fds["deleted"]:
        return "FAIL"
    if fds["end"] <= fds["at_start"] + 20:
        return "PASS"
    index = fds["index"]
    others = fds["end"] - index["fds"]
    return "BOUNDED" if others <= fds["at_start"] + 20 and index["searchers"] <= MAX_IDLE_SEARCHERS + 2 else "FAIL"


def added_explained(fds: dict) -> list[str]:
    """Why descriptors over start + 20 after index adds are bounded (the results file says so)."""
    index = fds["index"]
    if fds["end"] <= fds["at_start"] + 20:
        return []
    return [
        f"         of the {fds['end']}, {index['fds']} are on the live index generation: {index['files']} files "
        f"({fds['segments']} Whoosh segments)",
        f"         held by {index['searchers']} searchers; the other {fds['end'] - index['fds']} are the process's "
        "own (database, sockets, pipes).",
        "         Each `index add` writes one more segment, and every open searcher holds each segment's files;",
        "         Whoosh's merge policy folds small segments together as adds go on; a generation keeps idle only",
        f"         searchers the process needed at once (at most {MAX_IDLE_SEARCHERS}, "
        "bot/search/index/generation.py); a replaced",
        "         generation's files are closed (none on deleted files). So: bounded by "
        f"({MAX_IDLE_SEARCHERS} + in use) searchers x the",
        "         live segments' files, and `paperbot index build` folds the segments back into one.",
    ]


def row(label: str, f: dict) -> str:
    a, r = f["ack_ms"] or {}, f["reply_ms"] or {}
    return (
        f"{label:<24}{f['n']:>4}{a.get('p50', 0):>9.0f}{a.get('p95', 0):>9.0f}{a.get('max', 0):>9.0f}"
        f"{f['answered']:>7}/{f['n']:<3}{r.get('p50', 0):>8.0f}{r.get('p95', 0):>8.0f}{r.get('max', 0):>8.0f}"
        f"{f['errors']:>8}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flood", type=int, default=400, help="events in each flood (default 400)")
    ap.add_argument("--links", type=int, default=1000, help="links in each link_shared event (default 1000)")
    ap.add_argument("--probes", type=int, default=20, help="the other user's commands per phase (default 20)")
    ap.add_argument("--lock-s", type=float, default=12.0, help="seconds SQLite's write lock is held (default 12)")
    ap.add_argument("--searches", type=int, default=2000)
    ap.add_argument("--adds", type=int, default=50)
    ap.add_argument("--index", type=Path, help="serve a copy of this index instead of one built from seeds/")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    ap.add_argument("--server-log", type=Path, help="write the server's log here")
    args = ap.parse_args()
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z")
    log: list[str] = []
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="paperbot-flood-") as tmpdir, FakeSlack() as fake:
        tmp = Path(tmpdir)
        index_dir = tmp / "index"
        if args.index:
            shutil.copytree(args.index, index_dir)
        arrivals = Arrivals(fake)
        fake.add_channel("C0FLOOD", bot_member=True)
        proc, addr, startup_s = start_server(fake, tmp, index_dir, log)
        at_start = descriptors(proc.pid)[0]
        try:
            results["quiet"] = figures(probe(addr, fake, arrivals, args.probes))
            for name, bodies in (
                ("mentions", mention_bodies(args.flood)),
                ("links", link_bodies(args.flood, args.links)),
            ):
                done: dict = {}
                span = args.probes * PROBE_EVERY_S
                flooder = threading.Thread(target=lambda b=bodies, d=done, t=span: d.update(flood(addr, b, t)))
                flooder.start()
                time.sleep(0.5)  # the flood is under way
                results[name] = figures(probe(addr, fake, arrivals, args.probes))
                flooder.join()
                results[name]["flood"] = done
                time.sleep(3)  # what the flood left queued drains
            held = threading.Event()
            locker = threading.Thread(target=hold_lock, args=(tmp / "paperbot.db", args.lock_s, held))
            locker.start()
            held.wait(30)
            results["lock"] = figures(probe(addr, fake, arrivals, args.probes))
            locker.join()
            results["quiet_end"] = figures(probe(addr, fake, arrivals, args.probes))
            results["fds"] = dict(
                fd_phase(addr, fake, proc.pid, index_dir, tmp, args.searches, args.adds), at_start=at_start
            )
        finally:
            exit_code = stop_server(proc)
    load_end = os.getloadavg()
    flood_replies = sum(1 for c in fake.calls("chat.postMessage") if c.body.get("channel") == "C0FLOOD")
    text = "".join(log)
    if args.server_log:
        args.server_log.write_text(text)
    server_log = {
        "busy_lines": text.count(" busy: "),
        "errors": sum(1 for line in log if " ERROR " in line),
        "tracebacks": text.count("Traceback"),
        "journal_lines": text.count("cannot record") + text.count("the journal records again"),
    }
    results["server_log"] = server_log
    report(args, results, started, load_start, load_end, startup_s, exit_code, flood_replies)


def report(args, results: dict, started: str, load_start, load_end, startup_s: float, exit_code, flood_replies) -> None:
    quiet, fds = results["quiet"], results["fds"]

    def ok(flag: bool) -> str:
        return "PASS" if flag else "FAIL"

    def under(f: dict, key: str, p: str, ms: float) -> bool:
        return f[key] is not None and f[key][p] <= ms and f["errors"] == 0 and f["answered"] == f["n"]

    lines = [
        "paperbot flood benchmark — another user's commands during floods and a held lock (`paperbot serve`)",
        "=" * 100,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"server: `python -m bot serve --host 127.0.0.1`, SQLite store, index: "
        f"{args.index or 'built from seeds/ at start-up'}; up after {startup_s:.1f} s; exit status {exit_code}",
        f"probe: {args.probes} x `/paper {PROBE_TEXT}` from {PROBE_USER}, one every {PROBE_EVERY_S} s; "
        f"floods from {FLOOD_USER} on {FLOOD_WORKERS} connections",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        "NOTE: the machine is shared with other sessions; client and server run on the same 2 cores.",
        "",
        f"{'phase':<24}{'n':>4}{'ack p50':>9}{'ack p95':>9}{'ack max':>9}{'answered':>11}"
        f"{'ans p50':>8}{'ans p95':>8}{'ans max':>8}{'errors':>8}   (ms)",
        row("quiet", quiet),
        row(f"{args.flood} mentions x {MENTION_CHARS} ch", results["mentions"]),
        row(f"{args.flood} link_shared x {args.links}", results["links"]),
        row(f"SQLite lock held {args.lock_s:.0f} s", results["lock"]),
        row("quiet (end)", results["quiet_end"]),
        "",
        f"mention flood: {results['mentions']['flood']}; link flood: {results['links']['flood']}",
        f"flood mentions answered (the rest refused as busy): {flood_replies} of {args.flood}",
        f"server log: {results['server_log']}",
        f"file descriptors of serve: at start-up {fds['at_start']}, before this phase {fds['start']}, after "
        f"{fds['searches']} searches {fds['after_searches']}, after {fds['adds']} index adds ({ADD_SEARCHES} "
        f"searches after each) {fds['end']} (peak {fds['peak']}; the live generation has {fds['segments']} "
        f"segments), on deleted files {fds['deleted']}",
        f"  after the searches, by kind: {fds['kinds_after_searches']}",
        "",
        "targets (issue 20 point 5; docs/interfaces.md):",
    ]
    for name in ("mentions", "links"):
        f = results[name]
        lines.append(
            f"  {ok(f['ack_ms'] is not None and f['ack_ms']['max'] <= 1000 and f['errors'] == 0)}  {name}: every "
            f"command acked within 1 s, 0 errors      max {f['ack_ms']['max'] if f['ack_ms'] else float('nan'):.0f} ms, "
            f"{f['errors']} errors (quiet: max {quiet['ack_ms']['max']:.0f} ms)"
        )
        lines.append(
            f"  {ok(under(f, 'reply_ms', 'p95', 2000))}  {name}: answered within 2 s p95             "
            f"p95 {f['reply_ms']['p95'] if f['reply_ms'] else float('nan'):.0f} ms "
            f"(quiet: {quiet['reply_ms']['p95']:.0f} ms)"
        )
    lock = results["lock"]
    lines += [
        f"  {ok(lock['ack_ms'] is not None and lock['ack_ms']['max'] <= 2000 and lock['errors'] == 0)}  lock: every "
        f"ack within 2 s                        max {lock['ack_ms']['max'] if lock['ack_ms'] else float('nan'):.0f} ms"
        f" (quiet: max {quiet['ack_ms']['max']:.0f} ms)",
        f"  {ok(fds['after_searches'] <= fds['at_start'] + 20)}  descriptors after {fds['searches']} searches at "
        f"most start + 20      {fds['after_searches']} vs {fds['at_start']} + 20",
        f"  {added_verdict(fds)}  ... and after {fds['adds']} index adds, none on deleted files   "
        f"{fds['end']} (peak {fds['peak']}) vs {fds['at_start']} + 20",
        *added_explained(fds),
    ]
    publish(lines, args.out, {"started": started, "loadavg_start": load_start, "loadavg_end": load_end, **results})


if __name__ == "__main__":
    main()
