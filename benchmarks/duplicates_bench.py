"""Duplicate deliveries of one Slack event, released together — 100 rounds a case.

For 2, 4 and 8 copies, sent to one server or to two servers sharing the
database, on SQLite and on PostgreSQL, each round posts copies of one signed
``app_mention`` at the same instant (a barrier) and counts the replies posted
in its thread: 1 is right, 0 is "lost", 2+ is "doubled". The servers are the
real ones (waitress + Bolt with the journal middleware + the real service over
the seeds) in this process, each with its own store on the shared
database, as two ``paperbot serve`` processes have (issue 10 point 1;
docs/architecture.md "Idempotency and the journal").

    .venv/bin/python benchmarks/duplicates_bench.py --out benchmarks/results/duplicates.txt
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from report import publish  # noqa: E402  (benchmarks/report.py; scripts run from benchmarks/)

from bot import corpus, search  # noqa: E402
from tests.fakeslack import FakeSlack  # noqa: E402
from tests.slack.burst import Servers, deliver_together, mention_envelope, replies_in_thread  # noqa: E402

PG_DSN = os.environ.get("PAPERBOT_TEST_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
PG_URL = os.environ.get("PAPERBOT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def run_case(index, db_url: str, tmp: Path, copies: int, servers: int, rounds: int) -> dict:
    with FakeSlack() as fake:
        running = Servers(fake, index, db_url, tmp, servers)
        stamps, bad_status = [], 0
        t0 = time.perf_counter()
        try:
            for n in range(rounds):
                ts = f"{1766000000 + n}.{copies}{servers}0100"
                # each round's event from its own person: copies of one event, not one person's flood
                body = mention_envelope(f"Ev{uuid.uuid4().hex[:12]}", ts, user=f"U0R{n:04d}")
                statuses = deliver_together(running.urls, body, copies)
                bad_status += sum(1 for s in statuses if s != 200)
                stamps.append(ts)
            running.drain()
        finally:
            running.close()
        counts = [replies_in_thread(fake, ts) for ts in stamps]
    return {
        "copies": copies,
        "servers": servers,
        "rounds": rounds,
        "lost": counts.count(0),
        "doubled": sum(1 for c in counts if c > 1),
        "non_200": bad_status,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    started, load_start = time.strftime("%Y-%m-%d %H:%M:%S %Z"), os.getloadavg()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        seeds = ROOT / "seeds"
        search.build_index(tmp / "index", corpus.load_papers([seeds]), fingerprint=corpus.seeds_fingerprint([seeds]))
        index = search.SearchIndex(tmp / "index")
        results = []
        for backend in ("sqlite", "postgresql"):
            for copies in (2, 4, 8):
                for servers in (1, 2):
                    case_dir = tmp / f"{backend}-{copies}-{servers}"
                    case_dir.mkdir()
                    schema = None
                    if backend == "sqlite":
                        url = f"sqlite:///{case_dir / 'shared.db'}"
                    else:
                        schema = f"pbbench_{uuid.uuid4().hex[:12]}"
                        with psycopg.connect(PG_DSN, autocommit=True) as conn:
                            conn.execute(f'CREATE SCHEMA "{schema}"')
                        url = f"{PG_URL}?options=-csearch_path%3D{schema}"
                    try:
                        row = run_case(index, url, case_dir, copies, servers, args.rounds)
                    finally:
                        if schema:
                            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
                    row["database"] = backend
                    results.append(row)
                    print(row, flush=True)
    lines = [
        "paperbot duplicate deliveries — copies of one app_mention released together",
        "=" * 76,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"{args.rounds} rounds a case; a round is right when exactly one reply is posted in the thread.",
        "NOTE: this machine is shared with other sessions.",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "",
        f"{'database':<12}{'copies':>7}{'servers':>9}{'rounds':>8}{'lost':>6}{'doubled':>9}{'non-200':>9}{'s':>7}",
    ]
    for r in results:
        lines.append(
            f"{r['database']:<12}{r['copies']:>7}{r['servers']:>9}{r['rounds']:>8}{r['lost']:>6}"
            f"{r['doubled']:>9}{r['non_200']:>9}{r['seconds']:>7}"
        )
    total_lost = sum(r["lost"] for r in results)
    total_doubled = sum(r["doubled"] for r in results)
    lines += [
        "",
        f"{'PASS' if total_lost == total_doubled == 0 else 'FAIL'}  0 lost, 0 doubled "
        f"(measured: {total_lost} lost, {total_doubled} doubled over {sum(r['rounds'] for r in results)} rounds)",
    ]
    publish(
        lines,
        args.out,
        {"started": started, "loadavg_start": load_start, "loadavg_end": os.getloadavg(), "results": results},
    )


if __name__ == "__main__":
    main()
