#!/usr/bin/env python3
"""CPU time per slash-command ack in ``paperbot serve``, and where it goes.

Usage::

    .venv/bin/python benchmarks/ack_cpu.py [--sequential 150] [--concurrency 50] [--rounds 3]
                                           [--profile] [--out FILE]

Builds the stack ``paperbot serve`` builds (``bot.runtime.processes.build``: waitress + Bolt +
the real Service over the seeds, SQLite store with the journal, in a temporary folder) in this
process, against the fake Slack on loopback (``tests/fakeslack.py``), and serves it with
``bot.slack.transport.http_server.make_server`` on a thread. Signed ``/paper search …`` commands
(``tests/signing.py``) are sent over HTTP, first one at a time (each reply awaited before the next
command, so nothing else runs), then in rounds of N at once as ``benchmarks/http_bench.py`` does.

CPU is read from each thread's own clock (``time.pthread_getcpuclockid`` + ``clock_gettime``,
``time.thread_time`` inside a thread): time spent waiting for a core, the GIL or a lock does not
count, so the figures do not depend on the machine's load (the wall-clock ack times printed beside
them do). Measured:

- **waitress threads, per ack**: the CPU of waitress's loop thread and its request threads over
  the phase, divided by the commands sent — everything the server spends to acknowledge one
  command (HTTP parsing, our checks, Bolt, the journal's claim, writing the answer), and nothing
  of the work the ack hands to the listener pool;
- **sections**: the request thread's CPU inside each step (exclusive of the steps nested in it):
  the signature check (``_unsigned``), the payload shape check (``malformed``), Bolt's building
  of the request (``SlackRequestHandler``), each Bolt middleware (``SslCheck``,
  ``RequestVerification``, ``SingleTeamAuthorization`` …, the intake, the journal), inside the
  journal the claim (``Store.journal_claim``), the listener (``paper_command``: ``ack()`` and the
  hand-off to the work queue), and what is left of Bolt's dispatch and the WSGI call;
- with ``--profile``, the functions that took the most CPU on the request threads (cProfile, one
  profiler per thread, merged; its own overhead inflates the absolute figures).

The wrappers that time the sections are the benchmark's, put on the built objects from outside;
nothing in ``bot/`` is changed to be measured.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import http.client
import io
import os
import platform
import pstats
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from http_bench import QUERIES, SECRET, command_body, percentile  # noqa: E402
from report import publish  # noqa: E402

from tests.fakeslack import FakeSlack  # noqa: E402
from tests.signing import signed_headers  # noqa: E402

_local = threading.local()
_lock = threading.Lock()
SECTIONS: dict[str, float] = defaultdict(float)  # name -> exclusive thread CPU seconds
WALL: dict[str, float] = defaultdict(float)  # name -> inclusive wall-clock seconds
PROFILES: list[cProfile.Profile] = []
PROFILING = False


def timed(name: str, fn):
    """``fn`` whose calls add their thread CPU, minus that of timed calls nested in them, to ``SECTIONS[name]``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(0.0)  # CPU of the timed calls nested in this one
        t0, w0 = time.thread_time(), time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = time.thread_time() - t0
            wall = time.perf_counter() - w0
            nested = stack.pop()
            if stack:
                stack[-1] += spent
            with _lock:
                SECTIONS[name] += spent - nested
                WALL[name] += wall

    return wrapper


def profiled(fn):
    """``fn`` run under this thread's cProfile profiler while ``PROFILING``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not PROFILING:
            return fn(*args, **kwargs)
        prof = getattr(_local, "prof", None)
        if prof is None:
            prof = _local.prof = cProfile.Profile()
            with _lock:
                PROFILES.append(prof)
        prof.enable()
        try:
            return fn(*args, **kwargs)
        finally:
            prof.disable()

    return wrapper


def instrument(app, store) -> None:
    """Wrap the steps of a request in ``timed`` (module docstring)."""
    from slack_bolt.adapter.wsgi import SlackRequestHandler

    import bot.slack.transport.http_server as http_server

    http_server._unsigned = timed("signature check (_unsigned)", http_server._unsigned)
    http_server.malformed = timed("payload shape check (malformed)", http_server.malformed)
    SlackRequestHandler.__call__ = timed("Bolt WSGI adapter (request/response building)", SlackRequestHandler.__call__)
    app.dispatch = timed("Bolt dispatch (matching, listener runner)", app.dispatch)
    for mw in app._middleware_list:
        name = getattr(getattr(mw, "func", None), "__qualname__", None) or type(mw).__name__
        mw.process = timed(f"middleware {name}", mw.process)
    store.journal_claim = timed("  journal claim (Store.journal_claim)", store.journal_claim)
    for listener in app._listeners:
        listener.ack_function = timed(
            f"listener {getattr(listener.ack_function, '__name__', 'ack')}", listener.ack_function
        )


def thread_cpu(names: tuple[str, ...]) -> float:
    """Summed CPU seconds of the live threads whose name starts with one of ``names``."""
    total = 0.0
    for t in threading.enumerate():
        if t.name.startswith(names) and t.ident is not None:
            try:
                total += time.clock_gettime(time.pthread_getcpuclockid(t.ident))
            except (OSError, ProcessLookupError):
                pass
    return total


def post(addr: tuple[str, int], body: str, timeout: float = 10.0) -> tuple[int, float]:
    """POST one signed command; ``(status, ack ms)``."""
    headers = signed_headers(SECRET, body)
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(*addr, timeout=timeout)
    try:
        conn.request("POST", "/slack/events", body=body.encode(), headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status, (time.perf_counter() - t0) * 1000
    finally:
        conn.close()


def wait_replies(fake: FakeSlack, urls: list[str], timeout: float = 60.0) -> int:
    """Wait until every ``response_url`` in ``urls`` got its reply; how many did."""
    wanted = {urlsplit(u).path for u in urls}
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        seen = {c.path for c in fake.calls("response_url")}
        if wanted <= seen:
            return len(wanted)
        time.sleep(0.01)
    return len(wanted & {c.path for c in fake.calls("response_url")})


SERVER_THREADS = ("waitress", "paperbot-http")


def claim_transactions(store) -> tuple[int, int]:
    """``(write transactions, claims they carried)`` of the store's group commit so far
    (``bot.store.claim_batches``; (0, 0) where the store has none)."""
    batches = getattr(store, "_claim_batches", None)
    return (batches.batches, batches.claims) if batches is not None else (0, 0)


def phase(label, fake, addr, sends: list[list[str]], store=None) -> dict:
    """Send each batch of command texts at once (one thread each), await their replies;
    the waitress threads' CPU and the sections over the phase."""
    SECTIONS.clear()
    WALL.clear()
    tx0 = claim_transactions(store)
    cpu0, sent, acks, statuses, replied = thread_cpu(SERVER_THREADS), 0, [], [], 0
    for batch in sends:
        urls = [fake.new_response_url() for _ in batch]
        bodies = [command_body(text, f"U{sent + i:05d}", url) for i, (text, url) in enumerate(zip(batch, urls))]
        barrier = threading.Barrier(len(bodies))

        def fire(body: str, barrier: threading.Barrier = barrier) -> tuple[int, float]:
            barrier.wait()
            return post(addr, body)

        if len(bodies) == 1:
            got = [post(addr, bodies[0])]
        else:
            with ThreadPoolExecutor(len(bodies)) as pool:
                got = list(pool.map(fire, bodies))
        statuses += [s for s, _ in got]
        acks += [ms for _, ms in got]
        replied += wait_replies(fake, urls)
        sent += len(bodies)
    cpu = thread_cpu(SERVER_THREADS) - cpu0
    tx1 = claim_transactions(store)
    return {
        "claim_transactions": tx1[0] - tx0[0],
        "claims_grouped": tx1[1] - tx0[1],
        "label": label,
        "n": sent,
        "ok": sum(1 for s in statuses if s == 200),
        "replied": replied,
        "server_cpu_ms_per_ack": cpu * 1000 / sent,
        "sections_ms_per_ack": {k: v * 1000 / sent for k, v in sorted(SECTIONS.items(), key=lambda kv: -kv[1])},
        "sections_wall_ms_per_ack": {k: WALL[k] * 1000 / sent for k in sorted(SECTIONS, key=lambda k: -SECTIONS[k])},
        "ack_ms": {"p50": percentile(acks, 50), "p95": percentile(acks, 95), "max": max(acks)},
    }


def main() -> None:
    global PROFILING
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sequential", type=int, default=150, help="commands sent one at a time")
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="also cProfile the request threads (top functions)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    from bot.core.config import from_env
    from bot.runtime.processes import build
    from bot.slack.transport.http_server import make_server

    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with tempfile.TemporaryDirectory(prefix="paperbot-ackcpu-") as tmp, FakeSlack() as fake:
        env = dict(
            SLACK_BOT_TOKEN="xoxb-bench-token",
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=fake.api_url.rstrip("/"),
            PAPERBOT_INDEX_DIR=str(Path(tmp) / "index"),
            PAPERBOT_SEEDS=str(ROOT / "seeds"),
            DATABASE_URL=f"sqlite:///{Path(tmp) / 'paperbot.db'}",
        )
        app, service, _ = build(from_env(env, cwd=Path(tmp)))
        instrument(app, service.store)
        server = make_server(app, host="127.0.0.1", port=0)
        server._server.application = profiled(server._server.application)
        loop = threading.Thread(target=server.run, name="paperbot-http-loop", daemon=True)
        loop.start()
        addr = (server.host, server.port)
        try:
            phase("warm-up", fake, addr, [[q] for q in QUERIES], service.store)
            PROFILING = args.profile
            seq = phase(
                "one at a time",
                fake,
                addr,
                [[QUERIES[i % len(QUERIES)]] for i in range(args.sequential)],
                service.store,
            )
            rounds = [
                phase(
                    f"{args.concurrency} at once, round {r + 1}",
                    fake,
                    addr,
                    [[QUERIES[(i + r) % len(QUERIES)] for i in range(args.concurrency)]],
                    service.store,
                )
                for r in range(args.rounds)
            ]
            PROFILING = False
        finally:
            server.close()
    load_end = os.getloadavg()
    phases = [seq, *rounds]
    width = max(len(k) for p in phases for k in p["sections_ms_per_ack"])
    lines = [
        "paperbot ack CPU — thread CPU per acknowledged /paper command in `serve`'s stack",
        "=" * 80,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
        "stack: bot.runtime.processes.build + http_server.make_server in-process (waitress + Bolt + Service, "
        "SQLite store with the journal), index from seeds/; fake Slack on loopback",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        "CPU figures are thread CPU clocks (load-independent); ack times are wall clock (load-dependent).",
        f"cProfile on: {args.profile} (inflates the CPU figures)",
        "",
    ]
    for p in phases:
        lines += [
            f"{p['label']}: {p['n']} commands, {p['ok']} acked 200, {p['replied']} replied; "
            f"ack p50/p95/max {p['ack_ms']['p50']:.1f} / {p['ack_ms']['p95']:.1f} / {p['ack_ms']['max']:.1f} ms",
            f"  group commit: {p['claims_grouped']} claims in {p['claim_transactions']} write transactions "
            "(0 in 0: the store has no group commit)",
            f"  waitress threads' CPU per ack: {p['server_cpu_ms_per_ack']:.2f} ms; request-thread sections, "
            "ms per ack: CPU (exclusive), wall clock (inclusive)",
            *[
                f"    {k:<{width}} {v:7.3f} {p['sections_wall_ms_per_ack'][k]:9.2f}"
                for k, v in p["sections_ms_per_ack"].items()
            ],
            "",
        ]
    top = []
    if args.profile and PROFILES:
        stats = pstats.Stats(PROFILES[0])
        for prof in PROFILES[1:]:
            stats.add(prof)
        buf = io.StringIO()
        stats.stream = buf
        stats.sort_stats("tottime").print_stats(25)
        top = buf.getvalue().splitlines()
        lines += ["cProfile, request threads, top 25 by own time (all profiled phases):", *top[-32:]]
    publish(
        lines,
        args.out,
        {
            "started": started,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "profile": args.profile,
            "phases": [
                {
                    **p,
                    "server_cpu_ms_per_ack": round(p["server_cpu_ms_per_ack"], 3),
                    "sections_ms_per_ack": {k: round(v, 3) for k, v in p["sections_ms_per_ack"].items()},
                    "sections_wall_ms_per_ack": {k: round(v, 2) for k, v in p["sections_wall_ms_per_ack"].items()},
                    "ack_ms": {k: round(v, 1) for k, v in p["ack_ms"].items()},
                }
                for p in phases
            ],
        },
    )


if __name__ == "__main__":
    main()
