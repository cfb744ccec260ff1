#!/usr/bin/env python3
"""Scale benchmark: paperbot's index vs SQLite FTS5 on the arXiv abstracts, in one run.

Usage::

    .venv/bin/python benchmarks/search_bench.py /path/to/arxiv-abstracts [--docs N] [--out FILE]

Without ``--docs`` every ``*.jsonl.gz`` file is indexed (102,289 papers); ``--docs N`` takes the
first N records (files in name order). Measured, each step in its own fresh process:

1. paperbot build: ``bot.corpus.load_papers`` (via ``bot.wiring.LazyPapers``, as
   ``paperbot index build`` does) + ``bot.search.build_index`` — wall time including reading and
   parsing the source files, CPU time (workers included), index size on disk.
2. paperbot search: a process that only opens ``bot.search.SearchIndex`` and runs
   ``search(q, limit=10)`` (ranking + snippets + stored fields, exactly what ``/paper search``
   calls) for each query of ``benchmarks/queries_arxiv.txt`` (200 fixed 1–4-word queries, see
   ``make_queries.py``): latency p50/p95/max, and the process' peak RSS (``ru_maxrss``).
   ``SearchIndex.warm()`` (what the bot runs at start-up) and one query not in the set ("neural
   network") open the index first and are reported apart.
3. FTS5 reference: ``fts5(id UNINDEXED, title, abstract, authors, tokenize='porter unicode61')`` on
   the same records (read from the same files); search = the query's words OR-ed, ``ORDER BY
   bm25(p) LIMIT 10`` with ``snippet()``, in its own process; same statistics.

p95 is the nearest-rank percentile (the 190th of 200 sorted latencies). The machine may be shared
with other work: the load average is printed at the start and the end, and per-query CPU time is
reported beside wall time (CPU ≈ wall means the latencies were not inflated by waiting for a core).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import platform
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from report import publish  # benchmarks/report.py (scripts run from benchmarks/)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
QUERIES = Path(__file__).with_name("queries_arxiv.txt")
WARMUP = "neural network"


# --- helpers -------------------------------------------------------------------------------------

def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def stats(lat: list[float], cpu: list[float]) -> dict:
    return {"n": len(lat), "p50_ms": round(percentile(lat, 50), 2), "p95_ms": round(percentile(lat, 95), 2),
            "max_ms": round(max(lat), 2), "mean_ms": round(sum(lat) / len(lat), 2),
            "cpu_p50_ms": round(percentile(cpu, 50), 2), "cpu_p95_ms": round(percentile(cpu, 95), 2)}


def cpu_s(who=resource.RUSAGE_SELF) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def peak_rss_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024   # Linux: KiB


def source_files(data_dir: Path) -> list[Path]:
    files = sorted(data_dir.glob("*.jsonl.gz")) + sorted(data_dir.glob("*.jsonl"))
    if not files:
        sys.exit(f"no *.jsonl.gz / *.jsonl files in {data_dir}")
    return files


def iter_records(paths: list[Path]):
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


# --- child processes -------------------------------------------------------------------------------

def child_build(index_dir: Path, paths: list[Path]) -> dict:
    from bot import wiring
    from bot.search import build_index
    t0, c0 = time.perf_counter(), cpu_s()
    source = wiring.LazyPapers(paths)
    gen = build_index(index_dir, source)
    wall = time.perf_counter() - t0
    return {"build_s": round(wall, 2), "build_cpu_s": round(cpu_s() - c0 + cpu_s(resource.RUSAGE_CHILDREN), 2),
            "papers": source.total, "size_bytes": dir_size(index_dir / gen if (index_dir / gen).is_dir() else index_dir),
            "build_rss_mb": round(max(peak_rss_mb(), peak_rss_mb(resource.RUSAGE_CHILDREN)), 1)}


def child_search(index_dir: Path, queries: list[str]) -> dict:
    from bot.models import QueryError
    from bot.search import SearchIndex
    idx = SearchIndex(index_dir)
    t0 = time.perf_counter()
    idx.warm()                      # as the bot does at start-up (bot.wiring.build_service)
    idx.search(WARMUP, limit=10)
    first_ms = (time.perf_counter() - t0) * 1000
    lat, cpu, errors, empty, per_query = [], [], 0, 0, []
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        try:
            page = idx.search(q, limit=10)
            hits = len(page.hits)
        except QueryError:
            errors, hits = errors + 1, -1
        ms = (time.perf_counter() - t) * 1000
        lat.append(ms)
        cpu.append((time.process_time() - c) * 1000)
        empty += hits == 0
        per_query.append((round(ms, 2), q, hits))
    return {**stats(lat, cpu), "first_search_ms": round(first_ms, 1), "errors": errors, "empty": empty,
            "rss_mb": round(peak_rss_mb(), 1), "slowest": sorted(per_query, reverse=True)[:5]}


FTS_SQL = ("SELECT id, title, snippet(p, 2, '*', '*', '…', 24) FROM p WHERE p MATCH ? "
           "ORDER BY bm25(p) LIMIT 10")


def fts_match(q: str) -> str:
    return " OR ".join('"%s"' % w for w in re.findall(r"\w+", q))


def child_fts_build(db: Path, paths: list[Path], docs: int) -> dict:
    t0, c0 = time.perf_counter(), cpu_s()
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, title, abstract, authors, "
                "tokenize='porter unicode61')")
    rows = ((str(r.get("id")), r.get("title") or "", r.get("abstract") or "",
             ", ".join(r.get("authors") or [])) for r in iter_records(paths))
    if docs:
        import itertools
        rows = itertools.islice(rows, docs)
    con.executemany("INSERT INTO p VALUES (?,?,?,?)", rows)
    con.commit()
    n = con.execute("SELECT count(*) FROM p").fetchone()[0]
    con.close()
    return {"build_s": round(time.perf_counter() - t0, 2), "build_cpu_s": round(cpu_s() - c0, 2),
            "papers": n, "size_bytes": os.path.getsize(db)}


def child_fts_search(db: Path, queries: list[str]) -> dict:
    con = sqlite3.connect(db)
    t0 = time.perf_counter()
    con.execute(FTS_SQL, (fts_match(WARMUP),)).fetchall()
    first_ms = (time.perf_counter() - t0) * 1000
    lat, cpu, empty = [], [], 0
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        rows = con.execute(FTS_SQL, (fts_match(q),)).fetchall()
        lat.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        empty += not rows
    return {**stats(lat, cpu), "first_search_ms": round(first_ms, 1), "errors": 0, "empty": empty,
            "rss_mb": round(peak_rss_mb(), 1)}


def run_child(*args: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args],
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"child {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- report ----------------------------------------------------------------------------------------

def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, a, b = sys.argv[2], Path(sys.argv[3]), sys.argv[4]
        if kind == "build":
            out = child_build(a, [Path(p) for p in json.loads(b)])
        elif kind == "search":
            out = child_search(a, json.loads(b))
        elif kind == "fts-build":
            out = child_fts_build(a, [Path(p) for p in json.loads(b)], int(sys.argv[5]))
        else:
            out = child_fts_search(a, json.loads(b))
        print(json.dumps(out))
        return

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="folder of arXiv *.jsonl.gz files")
    ap.add_argument("--docs", type=int, default=0, help="index only the first N records (default: all)")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    ap.add_argument("--queries", type=Path, default=QUERIES, help="query file (default: %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where indexes go (default: a temporary folder, removed)")
    ap.add_argument("--keep-index", type=Path, metavar="DIR",
                    help="build the paperbot index in DIR and keep it (e.g. for http_bench.py --index DIR); "
                         "its build figures go to DIR.build.json")
    ap.add_argument("--note", action="append", default=[], help="a line to add to the report (repeatable)")
    ap.add_argument("--reuse-index", type=Path, metavar="DIR",
                    help="do not build: search an index kept by --keep-index (build figures are then those "
                         "of that earlier build, read from DIR.build.json, and the report says so)")
    args = ap.parse_args()

    queries = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="paperbot-bench-", dir=args.workdir) as tmp:
        tmp = Path(tmp)
        files = source_files(args.data_dir)
        paths = files
        if args.docs:      # a subset file (not timed) so both engines read exactly these records
            paths = [tmp / f"arxiv-first-{args.docs}.jsonl"]
            with open(paths[0], "w", encoding="utf-8") as out:
                for n, rec in enumerate(iter_records(files)):
                    if n >= args.docs:
                        break
                    out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        plist = json.dumps([str(p) for p in paths])
        qlist = json.dumps(queries)
        index_dir = args.keep_index.resolve() if args.keep_index else tmp / "index"
        if args.reuse_index:
            index_dir = args.reuse_index.resolve()
            wb = json.loads(Path(str(index_dir) + ".build.json").read_text())
            print(f"reusing {index_dir} (built {wb['built_at']})", file=sys.stderr)
        else:
            print(f"[{time.strftime('%H:%M:%S')}] paperbot build …", file=sys.stderr)
            wb = run_child("build", str(index_dir), plist)
            wb["built_at"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
            if args.keep_index:
                Path(str(index_dir) + ".build.json").write_text(json.dumps(wb))
        print(f"[{time.strftime('%H:%M:%S')}] paperbot build {wb['build_s']} s; search …", file=sys.stderr)
        ws = run_child("search", str(index_dir), qlist)
        print(f"[{time.strftime('%H:%M:%S')}] paperbot p95 {ws['p95_ms']} ms; FTS5 build …", file=sys.stderr)
        fb = run_child("fts-build", str(tmp / "fts.db"), plist, str(args.docs))
        fs = run_child("fts-search", str(tmp / "fts.db"), qlist)
        print(f"[{time.strftime('%H:%M:%S')}] FTS5 p95 {fs['p95_ms']} ms", file=sys.stderr)
    load_end = os.getloadavg()
    n = wb["papers"]

    ratio = ws["p95_ms"] / fs["p95_ms"] if fs["p95_ms"] else float("inf")
    targets = []
    if n >= 100_000:
        scale = "100k (docs/interfaces.md quality bar at 100,000 abstracts)"
        targets = [
            ("search p95 <= 150 ms", ws["p95_ms"] <= 150, f"{ws['p95_ms']:.1f} ms"),
            (f"search p95 <= 2 x FTS5 p95 ({2 * fs['p95_ms']:.1f} ms)", ws["p95_ms"] <= 2 * fs["p95_ms"],
             f"{ws['p95_ms']:.1f} ms = {ratio:.2f} x"),
            ("no query over 1 s (max <= 1000 ms)", ws["max_ms"] <= 1000, f"{ws['max_ms']:.1f} ms"),
            ("build <= 120 s", wb["build_s"] <= 120,
             f"{wb['build_s']:.1f} s" + (" (earlier build, reused)" if args.reuse_index else "")),
            ("searching process peak RSS <= 400 MB", ws["rss_mb"] <= 400, f"{ws['rss_mb']:.1f} MB"),
        ]
    elif n <= 5_000:
        scale = "conference scale (<= 5,000 papers)"
        targets = [("search p95 <= 20 ms", ws["p95_ms"] <= 20, f"{ws['p95_ms']:.1f} ms"),
                   ("no query over 1 s (max <= 1000 ms)", ws["max_ms"] <= 1000, f"{ws['max_ms']:.1f} ms")]
    else:
        scale = "between the two target sizes: no target applies (informational run)"

    def mb(b: float) -> float:
        return b / 2**20

    lines = [
        "paperbot scale benchmark — arXiv abstracts, paperbot (Whoosh) vs SQLite FTS5",
        "=" * 76,
        f"started {started}; took {time.perf_counter() - t_all:.0f} s; python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"data: {args.data_dir} — {n} papers{f' (first {args.docs} records)' if args.docs else ' (all files)'}",
        f"queries: {args.queries.name}, {len(queries)} fixed 1–4-word queries; search(q, limit=10) incl. snippets",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        *([f"NOTE: paperbot index REUSED from {args.reuse_index} — its build figures are from that earlier "
           f"build ({wb['built_at']}), not from this run; search figures are from this run."]
          if args.reuse_index else []),
        *[f"NOTE: {note}" for note in args.note],
        "NOTE: this machine is shared with other sessions; wall times include any waiting for a core.",
        "      Per-query CPU time is given beside wall time; build CPU time beside build wall time.",
        "",
        f"{'':<22}{'paperbot (Whoosh)':>20}{'SQLite FTS5':>16}{'ratio':>9}",
        f"{'build wall s':<22}{wb['build_s']:>20.1f}{fb['build_s']:>16.1f}{wb['build_s'] / max(fb['build_s'], 1e-9):>9.2f}",
        f"{'build CPU s':<22}{wb['build_cpu_s']:>20.1f}{fb['build_cpu_s']:>16.1f}",
        f"{'index size MB':<22}{mb(wb['size_bytes']):>20.1f}{mb(fb['size_bytes']):>16.1f}"
        f"{wb['size_bytes'] / max(fb['size_bytes'], 1):>9.2f}",
        f"{'search p50 ms':<22}{ws['p50_ms']:>20.1f}{fs['p50_ms']:>16.1f}{ws['p50_ms'] / max(fs['p50_ms'], 1e-9):>9.2f}",
        f"{'search p95 ms':<22}{ws['p95_ms']:>20.1f}{fs['p95_ms']:>16.1f}{ratio:>9.2f}",
        f"{'search max ms':<22}{ws['max_ms']:>20.1f}{fs['max_ms']:>16.1f}{ws['max_ms'] / max(fs['max_ms'], 1e-9):>9.2f}",
        f"{'search mean ms':<22}{ws['mean_ms']:>20.1f}{fs['mean_ms']:>16.1f}",
        f"{'CPU p50 / p95 ms':<22}{ws['cpu_p50_ms']:>11.1f} /{ws['cpu_p95_ms']:>6.1f}"
        f"{fs['cpu_p50_ms']:>9.1f} /{fs['cpu_p95_ms']:>5.1f}",
        f"{'open + first search ms':<22}{ws['first_search_ms']:>20.1f}{fs['first_search_ms']:>16.1f}   (opens the index; not in the stats)",
        f"{'searcher peak RSS MB':<22}{ws['rss_mb']:>20.1f}{fs['rss_mb']:>16.1f}",
        f"{'queries with 0 hits':<22}{ws['empty']:>20}{fs['empty']:>16}",
        f"{'queries rejected':<22}{ws['errors']:>20}{fs['errors']:>16}",
        f"paperbot build process peak RSS: {wb['build_rss_mb']:.0f} MB (largest of the builder and its workers)",
        "slowest paperbot queries: " + "; ".join(f"{q!r} {ms:.0f} ms" for ms, q, _ in ws["slowest"]),
        "",
        f"targets — {scale}:",
        *[f"  {verdict(ok)}  {name:<48} measured {got}" for name, ok, got in targets],
    ]
    if not targets:
        lines.append("  (none)")
    publish(lines, args.out, {
            "started": started, "data": str(args.data_dir), "docs": n, "queries": len(queries),
            "loadavg_start": load_start, "loadavg_end": load_end, "cpus": os.cpu_count(),
            "paperbot": {**wb, **ws}, "fts5": {**fb, **fs}, "p95_ratio": round(ratio, 3),
            "targets": [{"target": t, "pass": ok, "measured": got} for t, ok, got in targets],
        })


if __name__ == "__main__":
    main()
