"""The engines of ``search_bench.py``, each run in a fresh child process: paperbot (build, and
``paperbot search --json --limit 5 -`` fed one query at a time), SQLite FTS5 and ``bm25s``
(in-memory sparse BM25 with PyStemmer; the ``bench`` extra). Every ``child_*`` returns a dict
printed as one JSON line; latencies are milliseconds, CPU in seconds unless named ``_ms``.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 5  # a full page of 5 with snippets (issue 11, point 6)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def stats(lat: list[float], cpu: list[float] | None = None) -> dict:
    """p50/p95/max/mean of ``lat`` (ms), and of ``cpu`` (ms) when given."""
    out = {
        "n": len(lat),
        "p50_ms": round(percentile(lat, 50), 2),
        "p95_ms": round(percentile(lat, 95), 2),
        "max_ms": round(max(lat), 2),
        "mean_ms": round(sum(lat) / len(lat), 2),
    }
    if cpu:
        out.update(cpu_p50_ms=round(percentile(cpu, 50), 2), cpu_p95_ms=round(percentile(cpu, 95), 2))
    return out


def cpu_s(who=resource.RUSAGE_SELF) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def peak_rss_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: KiB


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def iter_records(paths: list[Path]):
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


# --- paperbot --------------------------------------------------------------------------------------


def child_build(index_dir: Path, paths: list[Path]) -> dict:
    """``paperbot index build`` as the CLI does it: read + analyse + write from the files."""
    index_dir, paths = Path(index_dir), [Path(p) for p in paths]
    from bot.runtime import wiring
    from bot.search import build_index

    t0, c0 = time.perf_counter(), cpu_s()
    source = wiring.LazyPapers(paths)
    gen = build_index(index_dir, source)
    wall = time.perf_counter() - t0
    return {
        "build_s": round(wall, 2),
        "build_cpu_s": round(cpu_s() - c0 + cpu_s(resource.RUSAGE_CHILDREN), 2),
        "papers": source.total,
        "size_bytes": dir_size(index_dir / gen),
        "build_rss_mb": round(max(peak_rss_mb(), peak_rss_mb(resource.RUSAGE_CHILDREN)), 1),
    }


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_search(index_dir: Path, sets: dict[str, list[str]]) -> dict:
    """One ``paperbot search --index DIR --json --limit 5 -`` process, fed each query on stdin
    and read back before the next; the product's figure is its ``took_ms``. ``first`` is the
    first query after start: its ``took_ms`` and the wall time from spawn to its answer."""
    exe = Path(sys.executable).with_name("paperbot")
    cmd = [str(exe), "search", "--index", str(index_dir), "--json", "--limit", str(LIMIT), "-"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    with tempfile.TemporaryDirectory() as cwd:  # no .env of the repository is read
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env)
        out: dict = {}
        for name, queries in sets.items():
            took, wall, errors, empty, slow = [], [], 0, 0, []
            for q in queries:
                t = time.perf_counter()
                proc.stdin.write(q.encode("utf-8") + b"\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                if not line:
                    sys.exit(f"paperbot search ended early: {proc.wait()}")
                wall.append((time.perf_counter() - t) * 1000)
                page = json.loads(line)
                if "first" not in out:
                    out["first"] = {
                        "took_ms": page.get("took_ms"),
                        "spawn_to_answer_ms": round((time.perf_counter() - t0) * 1000, 1),
                        "query": q[:60],
                    }
                if "error" in page:
                    errors += 1
                    took.append(wall[-1])
                else:
                    took.append(float(page["took_ms"]))
                    empty += not page.get("results")
                slow.append((round(took[-1], 1), q[:60]))
            out[name] = {
                **stats(took),
                "wall": stats(wall),
                "errors": errors,
                "empty": empty,
                "slowest": sorted(slow, reverse=True)[:3],
            }
        out["rss_mb"] = round(_vm_hwm_mb(proc.pid), 1)
        proc.stdin.close()
        proc.wait()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 2)
    return out


# --- SQLite FTS5 -----------------------------------------------------------------------------------

FTS_SQL = f"SELECT id, title, snippet(p, 2, '*', '*', '…', 24) FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT {LIMIT}"


def fts_match(q: str) -> str:
    """All the query's words OR-ed (each quoted, so no FTS5 syntax)."""
    return " OR ".join('"%s"' % w for w in dict.fromkeys(re.findall(r"\w+", q)))


def child_fts_build(db: Path, paths: list[Path], docs: int) -> dict:
    paths = [Path(p) for p in paths]
    t0, c0 = time.perf_counter(), cpu_s()
    con = sqlite3.connect(db)
    con.execute(
        "CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, title, abstract, authors, tokenize='porter unicode61')"
    )
    rows = (
        (str(r.get("id")), r.get("title") or "", r.get("abstract") or "", ", ".join(r.get("authors") or []))
        for r in iter_records(paths)
    )
    con.executemany("INSERT INTO p VALUES (?,?,?,?)", itertools.islice(rows, docs) if docs else rows)
    con.commit()
    n = con.execute("SELECT count(*) FROM p").fetchone()[0]
    con.close()
    return {
        "build_s": round(time.perf_counter() - t0, 2),
        "build_cpu_s": round(cpu_s() - c0, 2),
        "papers": n,
        "size_bytes": os.path.getsize(db),
    }


def child_fts_search(db: Path, sets: dict[str, list[str]]) -> dict:
    t0 = time.perf_counter()
    con = sqlite3.connect(db)
    out: dict = {}
    for name, queries in sets.items():
        lat, cpu, empty = [], [], 0
        for q in queries:
            t, c = time.perf_counter(), time.process_time()
            rows = con.execute(FTS_SQL, (fts_match(q),)).fetchall()
            lat.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            empty += not rows
            if "first" not in out:
                out["first"] = {
                    "took_ms": round(lat[-1], 2),
                    "spawn_to_answer_ms": round((time.perf_counter() - t0) * 1000, 1),
                }
        out[name] = {**stats(lat, cpu), "errors": 0, "empty": empty}
    out["rss_mb"] = round(peak_rss_mb(), 1)
    return out


# --- bm25s -----------------------------------------------------------------------------------------


def _bm25s():
    import bm25s
    import Stemmer

    return bm25s, Stemmer.Stemmer("english")


def child_bm25s_build(save_dir: Path, paths: list[Path], docs: int) -> dict:
    """Read the same files, tokenise (English stop words, PyStemmer Snowball English) and index
    title + abstract with k1 1.5, b 0.75, in this one process; the index is saved (not timed)
    for ``child_bm25s_search``."""
    paths = [Path(p) for p in paths]
    t0, c0 = time.perf_counter(), cpu_s()
    bm25s, stemmer = _bm25s()
    recs = iter_records(paths)
    texts = [
        f"{r.get('title') or ''} {r.get('abstract') or ''}" for r in (itertools.islice(recs, docs) if docs else recs)
    ]
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    retriever.save(str(save_dir))
    return {
        "build_s": round(wall, 2),
        "build_cpu_s": round(cpu, 2),
        "papers": len(texts),
        "size_bytes": dir_size(save_dir),
        "build_rss_mb": round(peak_rss_mb(), 1),
    }


def child_bm25s_search(save_dir: Path, sets: dict[str, list[str]]) -> dict:
    """Load the saved index, then per query: tokenise + ``retrieve(k=5)`` (ids only)."""
    t0 = time.perf_counter()
    bm25s, stemmer = _bm25s()
    retriever = bm25s.BM25.load(str(save_dir))
    out: dict = {}
    for name, queries in sets.items():
        lat, cpu = [], []
        for q in queries:
            t, c = time.perf_counter(), time.process_time()
            tokens = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
            retriever.retrieve(tokens, k=LIMIT, show_progress=False, n_threads=0)
            lat.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            if "first" not in out:
                out["first"] = {
                    "took_ms": round(lat[-1], 2),
                    "spawn_to_answer_ms": round((time.perf_counter() - t0) * 1000, 1),
                }
        out[name] = {**stats(lat, cpu), "errors": 0, "empty": 0}
    out["rss_mb"] = round(peak_rss_mb(), 1)
    return out


CHILDREN = {
    "build": child_build,
    "search": child_search,
    "fts-build": child_fts_build,
    "fts-search": child_fts_search,
    "bm25s-build": child_bm25s_build,
    "bm25s-search": child_bm25s_search,
}


def run_child(kind: str, *args) -> dict:
    """Run ``CHILDREN[kind](*args)`` in a fresh interpreter; its JSON result."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "benchmarks") + os.pathsep + str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, bench_engines as b; "
            "print(json.dumps(b.CHILDREN[sys.argv[1]](*json.loads(sys.argv[2]))))",
            kind,
            json.dumps(args, default=str),
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"child {kind} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def child_user_rounds(*args) -> dict:
    """``user_rounds.child_user_rounds``: both engines in one process, each query once per round."""
    from user_rounds import child_user_rounds as run

    return run(*args)


CHILDREN["user-rounds"] = child_user_rounds
