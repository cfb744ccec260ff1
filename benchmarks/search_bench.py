#!/usr/bin/env python3
"""Scale benchmark: paperbot vs SQLite FTS5 vs ``bm25s`` on the arXiv abstracts, in one run.

Usage::

    .venv/bin/python benchmarks/search_bench.py ../shared/data/arxiv-abstracts [--docs N] [--runs 3] [--out FILE]

Without ``--docs`` every ``*.jsonl.gz`` file is indexed (102,289 papers); ``--docs N`` takes the
first N records. Each engine builds in its own fresh process from the same files (paperbot:
``bot.runtime.wiring.LazyPapers`` + ``build_index``, read + analyse + write; FTS5: ``fts5(id UNINDEXED,
title, abstract, authors, tokenize='porter unicode61')``; ``bm25s``: read + tokenise + index of
title + abstract, k1 1.5, b 0.75, English stop words, PyStemmer). Then ``--runs`` rounds, the
engines interleaved (paperbot, bm25s, FTS5 in each round), each a fresh searching process that
answers both query sets: ``queries_arxiv.txt`` (200 short queries, ``make_queries.py``) and
``queries_arxiv_long.txt`` (100 abstracts cut to 150 words, ``make_long_queries.py``).
paperbot's figure is the ``took_ms`` of ``paperbot search --json --limit 5 -`` (a full page of 5
with snippets), fed one query at a time on stdin; FTS5 is ``MATCH`` of all the words OR-ed,
``ORDER BY bm25 LIMIT 5`` with ``snippet()``; ``bm25s`` is tokenise + ``retrieve(k=5)`` (ids only).
Figures are medians over the rounds; the first query after start (the first short query,
included in the stats) is also reported apart. Load averages and CPU times are printed beside
wall times: the machine may be shared. Targets: issue 11, point 6 (docs/search.md "Speed").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import user_rounds
from bench_engines import iter_records, run_child  # benchmarks/ (scripts run from there)
from report import publish

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "queries_arxiv.txt"
LONG = HERE / "queries_arxiv_long.txt"
ENGINES = ("paperbot", "bm25s", "fts5")


def median_of(runs: list[dict], *path: str) -> float:
    vals = []
    for r in runs:
        for p in path:
            r = r[p]
        vals.append(r)
    return statistics.median(vals)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def targets_100k(res: dict, builds: dict) -> list[tuple[str, bool, str]]:
    """The targets of issue 11 point 6, as ratios in this run."""
    p, b, f = (res[e] for e in ENGINES)
    out = []
    for qs, within, of_fts in (("short", 6, 0.3), ("long", 8, 0.1)):
        for q in ("p50_ms", "p95_ms"):
            out.append(
                (
                    f"{qs} {q[:3]} <= {within} x bm25s (fresh processes)",
                    p[qs][q] <= within * b[qs][q],
                    f"{p[qs][q]:.1f} vs {b[qs][q]:.1f} ms = {p[qs][q] / b[qs][q]:.2f} x",
                )
            )
        out.append(
            (
                f"{qs} p95 <= {of_fts} x FTS5 p95",
                p[qs]["p95_ms"] <= of_fts * f[qs]["p95_ms"],
                f"{p[qs]['p95_ms']:.1f} vs {f[qs]['p95_ms']:.1f} ms = {p[qs]['p95_ms'] / f[qs]['p95_ms']:.3f} x",
            )
        )
    worst = max(p["max_any_ms"], p["first"]["took_ms"])
    out.append(("no query over 1 s after start-up (first included)", worst <= 1000, f"max {worst:.1f} ms"))
    pb, bb = builds["paperbot"]["build_s"], builds["bm25s"]["build_s"]
    out.append(("build <= 2 x bm25s", pb <= 2 * bb, f"{pb:.1f} vs {bb:.1f} s = {pb / bb:.2f} x"))
    out.append(("searching process peak RSS <= 400 MB", p["rss_mb"] <= 400, f"{p['rss_mb']:.1f} MB"))
    return out


def summarise(runs: list[dict]) -> dict:
    """Medians over the rounds of one engine's figures."""
    out = {
        "rounds": len(runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
        "first": {k: median_of(runs, "first", k) for k in ("took_ms", "spawn_to_answer_ms")},
    }
    for qs in ("short", "long"):
        out[qs] = {k: median_of(runs, qs, k) for k in runs[0][qs] if isinstance(runs[0][qs][k], (int, float))}
        out[qs]["max_over_rounds_ms"] = max(r[qs]["max_ms"] for r in runs)
        out[qs]["slowest"] = runs[-1][qs].get("slowest", [])
    out["max_any_ms"] = max(out[qs]["max_over_rounds_ms"] for qs in ("short", "long"))
    return out


def build_report(args, builds: dict, started: str, load_start, t_all: float) -> None:
    """``--build-only``: the three builds and the build target (at 100k)."""
    load_end, n = os.getloadavg(), builds["paperbot"]["papers"]
    pb, bb = builds["paperbot"], builds["bm25s"]
    lines = [
        "paperbot build benchmark — arXiv abstracts: paperbot vs bm25s vs SQLite FTS5 (builds only, one run)",
        "=" * 98,
        f"started {started}; took {time.perf_counter() - t_all:.0f} s; python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"data: {args.data_label or args.data_dir} — {n} papers{f' (first {args.docs} records)' if args.docs else ' (all files)'}",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        *[f"NOTE: {note}" for note in args.note],
        "NOTE: the machine is shared; wall times include waiting for a core — CPU times are given beside them.",
        "",
        f"{'':<30}{'paperbot':>12}{'bm25s':>12}{'FTS5':>12}{'pb/bm25s':>10}{'pb/FTS5':>9}",
    ]
    for label, key, scale in (
        ("build wall s", "build_s", 1),
        ("build CPU s", "build_cpu_s", 1),
        ("index size MB", "size_bytes", 2**20),
    ):
        a, b, c = (builds[e][key] / scale for e in ENGINES)
        lines.append(f"{label:<30}{a:>12.1f}{b:>12.1f}{c:>12.1f}{a / b:>10.2f}{a / c:>9.2f}")
    lines.append(
        f"paperbot build process peak RSS {pb['build_rss_mb']:.0f} MB; bm25s build {bb['build_rss_mb']:.0f} MB"
    )
    if n >= 100_000:
        ok = pb["build_s"] <= 2 * bb["build_s"]
        lines += [
            "",
            "target — issue 11 point 6, at 100k, ratio in this run:",
            f"  {'PASS' if ok else 'FAIL'}  {'build <= 2 x bm25s':<52} {pb['build_s']:.1f} vs "
            f"{bb['build_s']:.1f} s = {pb['build_s'] / bb['build_s']:.2f} x "
            f"(CPU {pb['build_cpu_s']:.1f} vs {bb['build_cpu_s']:.1f} s = "
            f"{pb['build_cpu_s'] / bb['build_cpu_s']:.2f} x)",
        ]
    publish(
        lines,
        args.out,
        {
            "started": started,
            "data": args.data_label or str(args.data_dir),
            "docs": n,
            "build_only": True,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "builds": builds,
        },
    )


def _input_paths(data_dir: Path, docs: int, tmp: Path) -> list[Path]:
    """The data's ``*.jsonl.gz`` files, or with ``docs`` one file of their first
    ``docs`` records written into ``tmp`` (not timed), so every engine reads exactly these."""
    paths = sorted(data_dir.resolve().glob("*.jsonl.gz"))
    if not paths:
        sys.exit(f"no *.jsonl.gz files in {data_dir}")
    if not docs:
        return paths
    sub = tmp / f"arxiv-first-{docs}.jsonl"
    with open(sub, "w", encoding="utf-8") as out:
        for _, rec in zip(range(docs), iter_records(paths)):
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return [sub]


def _builds(args, paths: list[Path], index_dir: Path, tmp: Path) -> dict:
    """The three builds' figures by engine; paperbot's index goes to ``index_dir``
    (or is reused from there with ``--reuse-index``, which adds a note to the report)."""
    builds = {}
    if args.reuse_index:
        builds["paperbot"] = json.loads(Path(f"{index_dir}.build.json").read_text())
        args.note.append(
            f"paperbot index REUSED from {args.reuse_index}: its build figures are from "
            f"{builds['paperbot']['built_at']}, not from this run"
        )
    else:
        log("paperbot build …")
        builds["paperbot"] = run_child("build", index_dir, paths)
        builds["paperbot"]["built_at"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        if args.keep_index:
            Path(f"{index_dir}.build.json").write_text(json.dumps(builds["paperbot"]))
    log(f"paperbot {builds['paperbot']['build_s']} s; bm25s build …")
    (tmp / "bm25s").mkdir()
    builds["bm25s"] = run_child("bm25s-build", tmp / "bm25s", paths, 0)
    log(f"bm25s {builds['bm25s']['build_s']} s; FTS5 build …")
    builds["fts5"] = run_child("fts-build", tmp / "fts.db", paths, 0)
    return builds


def _search_rounds(runs: int, sets: dict, index_dir: Path, tmp: Path) -> dict:
    """Per engine, one result per round: each round a fresh searching process
    per engine, engines interleaved, with that process's CPU time."""
    searches: dict = {e: [] for e in ENGINES}
    for k in range(runs):
        for engine, kind, where in (
            ("paperbot", "search", index_dir),
            ("bm25s", "bm25s-search", tmp / "bm25s"),
            ("fts5", "fts-search", tmp / "fts.db"),
        ):
            c0 = os.times()
            searches[engine].append(run_child(kind, where, sets))
            c1 = os.times()
            searches[engine][-1]["child_cpu_s"] = round(
                c1.children_user + c1.children_system - c0.children_user - c0.children_system, 2
            )
            log(
                f"round {k + 1} {engine}: short p95 {searches[engine][-1]['short']['p95_ms']} ms, "
                f"long p95 {searches[engine][-1]['long']['p95_ms']} ms"
            )
    return searches


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="folder of arXiv *.jsonl.gz files")
    ap.add_argument("--docs", type=int, default=0, help="index only the first N records (default: all)")
    ap.add_argument("--runs", type=int, default=3, help="search rounds, engines interleaved (default 3)")
    ap.add_argument(
        "--user-rounds",
        type=int,
        default=3,
        help="rounds of the in-process run, each query once per round in a fresh order (user_rounds.py; "
        "default 3, 0 skips it)",
    )
    ap.add_argument("--seed", type=int, default=18, help="seed of the in-process rounds' orders (default 18)")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    ap.add_argument("--workdir", type=Path, help="where indexes go (default: a temporary folder, removed)")
    ap.add_argument(
        "--keep-index",
        type=Path,
        metavar="DIR",
        help="build the paperbot index in DIR and keep it (e.g. for http_bench.py --index DIR); "
        "its build figures go to DIR.build.json",
    )
    ap.add_argument(
        "--reuse-index",
        type=Path,
        metavar="DIR",
        help="do not build paperbot's index: search one kept by --keep-index (its build figures "
        "are those of that earlier build, and the report says so)",
    )
    ap.add_argument("--data-label", help="how the report names the data folder (default: DATA_DIR as given)")
    ap.add_argument("--note", action="append", default=[], help="a line to add to the report (repeatable)")
    ap.add_argument(
        "--build-only",
        action="store_true",
        help="only the builds (paperbot, bm25s, FTS5) and the build target: no searches",
    )
    args = ap.parse_args()
    sets = {
        "short": [q.strip() for q in QUERIES.read_text("utf-8").splitlines() if q.strip()],
        "long": [q.strip() for q in LONG.read_text("utf-8").splitlines() if q.strip()],
    }
    load_start, started, t_all = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z"), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="paperbot-bench-", dir=args.workdir) as tmp:
        tmp = Path(tmp)
        paths = _input_paths(args.data_dir, args.docs, tmp)
        index_dir = (args.reuse_index or args.keep_index or tmp / "index").resolve()
        builds = _builds(args, paths, index_dir, tmp)
        if args.build_only:
            return build_report(args, builds, started, load_start, t_all)
        searches = _search_rounds(args.runs, sets, index_dir, tmp)
        user = None
        if args.user_rounds:
            log(f"in-process rounds ({args.user_rounds}) …")
            user = user_rounds.summarise(
                run_child("user-rounds", index_dir, tmp / "bm25s", sets, args.user_rounds, args.seed)
            )
    load_end = os.getloadavg()
    res = {e: summarise(r) for e, r in searches.items()}
    n = builds["paperbot"]["papers"]
    targets = targets_100k(res, builds) if n >= 100_000 else []
    if user and n >= 100_000:
        targets += user_rounds.targets(user)
    lines = [
        "paperbot scale benchmark — arXiv abstracts: paperbot vs bm25s vs SQLite FTS5 (one run)",
        "=" * 86,
        f"started {started}; took {time.perf_counter() - t_all:.0f} s; python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, host {platform.node()}",
        f"data: {args.data_label or args.data_dir} — {n} papers{f' (first {args.docs} records)' if args.docs else ' (all files)'}",
        f"queries: {QUERIES.name} ({len(sets['short'])} short), {LONG.name} ({len(sets['long'])} abstracts, 150 words); "
        f"page of 5; medians of {args.runs} rounds, engines interleaved",
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}",
        *[f"NOTE: {note}" for note in args.note],
        "NOTE: the machine is shared; wall times include waiting for a core — CPU times are given beside them,",
        "      and the ratios within this run are what count.",
        "",
        f"{'':<30}{'paperbot':>12}{'bm25s':>12}{'FTS5':>12}{'pb/bm25s':>10}{'pb/FTS5':>9}",
    ]

    def row(label: str, vals: list[float], fmt: str = ".1f") -> str:
        a, b, c = vals
        return (
            f"{label:<30}{a:>12{fmt}}{b:>12{fmt}}{c:>12{fmt}}{a / b if b else float('inf'):>10.2f}"
            f"{a / c if c else float('inf'):>9.2f}"
        )

    lines.append(row("build wall s", [builds[e]["build_s"] for e in ENGINES]))
    lines.append(row("build CPU s", [builds[e]["build_cpu_s"] for e in ENGINES]))
    lines.append(row("index size MB", [builds[e]["size_bytes"] / 2**20 for e in ENGINES]))
    for qs in ("short", "long"):
        for key in ("p50_ms", "p95_ms", "max_ms", "mean_ms"):
            lines.append(row(f"{qs} {key}", [res[e][qs][key] for e in ENGINES]))
        lines.append(
            f"{qs + ' max over rounds ms':<30}" + "".join(f"{res[e][qs]['max_over_rounds_ms']:>12.1f}" for e in ENGINES)
        )
        lines.append(
            f"{qs + ' errors / empty':<30}"
            + "".join(f"{res[e][qs]['errors']:>7.0f} / {res[e][qs]['empty']:<2.0f}" for e in ENGINES)
        )
    lines.append(
        f"{'short CPU p50 / p95 ms':<30}{'(took_ms)':>12}"
        + "".join(f"{res[e]['short']['cpu_p50_ms']:>6.1f}/{res[e]['short']['cpu_p95_ms']:<5.1f}" for e in ENGINES[1:])
    )
    lines.append(
        f"{'searching process CPU s':<30}"
        + "".join(f"{statistics.median(r['child_cpu_s'] for r in searches[e]):>12.1f}" for e in ENGINES)
    )
    lines.append(row("first query ms", [res[e]["first"]["took_ms"] for e in ENGINES]))
    lines.append(row("spawn to first answer ms", [res[e]["first"]["spawn_to_answer_ms"] for e in ENGINES]))
    lines.append(row("searcher peak RSS MB", [res[e]["rss_mb"] for e in ENGINES]))
    lines.append(
        f"paperbot build process peak RSS {builds['paperbot']['build_rss_mb']:.0f} MB; "
        f"bm25s build {builds['bm25s']['build_rss_mb']:.0f} MB"
    )
    for qs in ("short", "long"):
        lines.append(
            f"slowest paperbot {qs}: " + "; ".join(f"{q!r}… {ms:.0f} ms" for ms, q in res["paperbot"][qs]["slowest"])
        )
    if user:
        lines += ["", *user_rounds.report_lines(user)]
    lines += [
        "",
        "targets — issue 11 point 6 (fresh processes) and issue 18 (in-process, round 1), at 100k, ratios in this run:"
        if targets
        else "targets: apply at 100k only (informational run)",
    ]
    lines += [f"  {'PASS' if ok else 'FAIL'}  {name:<52} {got}" for name, ok, got in targets]
    publish(
        lines,
        args.out,
        {
            "started": started,
            "data": args.data_label or str(args.data_dir),
            "docs": n,
            "runs": args.runs,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "builds": builds,
            "summary": res,
            "rounds": searches,
            "user_rounds": user,
            "targets": [{"target": t, "pass": ok, "measured": g} for t, ok, g in targets],
        },
    )


if __name__ == "__main__":
    main()
