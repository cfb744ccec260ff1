"""Latency as a user meets it (issue 18, "Done means"): paperbot and ``bm25s`` timed in one
process, on the same query, one query at a time, each query asked once per round.

The searching process opens both indexes, runs ``SearchIndex.warm()`` (what ``paperbot serve``
and ``paperbot search`` do at start) and answers ``WARMUP`` — a few short queries outside the
query sets, so the process is warm but no query of the sets has been seen. Then ``rounds``
rounds: in each, every query of both sets (short and long mixed) once, in a fresh seeded order.
For each query the two engines run back to back (which one first alternates), each timed by
wall clock (``perf_counter``) and by the calling thread's CPU time (``thread_time``), so a busy
machine shows in the wall figures but hardly in the CPU ones:

* paperbot: ``SearchIndex.search(q, limit=5)`` — parse, compile, rank, a page of 5 hits with
  snippets (the ``took_ms`` the CLI reports is the wall time of this call);
* ``bm25s``: ``bm25s.tokenize([q])`` (English stop words, PyStemmer) + ``retrieve(k=5)`` with
  one thread (ids only).

Round 1 is every query's first time in this process (what a user with a new question meets);
later rounds repeat them, and the caches that warm with a repeat (the reader's term memo,
the stem cache, the pages of the impact arrays and posting files touched) make them faster —
the report shows round 1 beside the median over rounds.
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import time
from pathlib import Path

from bench_engines import LIMIT, _bm25s, peak_rss_mb, percentile

#: Whose disk reads a round counts: the searching thread (Linux), else the process.
THREAD = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
#: Warm-up queries (none of them in the query sets): the process has answered something.
WARMUP = ("attention", "neural network", "galaxy cluster", "quantum error correction", "graph")
ENGINES = ("paperbot", "bm25s")


def child_user_rounds(
    index_dir: Path, bm25s_dir: Path, sets: dict[str, list[str]], rounds: int, seed: int, read_ahead: bool = True
) -> dict:
    """Both engines in this process; per round, per set, per engine: ``[(wall ms, CPU ms)]`` in
    the sets' query order (whatever order they were asked in), and the order asked; and
    ``warm``: what ``SearchIndex.warm()`` took and its page-cache read-ahead did.

    Args:
        index_dir: paperbot's index container.
        bm25s_dir: the saved ``bm25s`` index.
        sets: set name -> queries.
        rounds: rounds asked (each query once per round).
        seed: seed of the rounds' orders (round k shuffles with ``seed + k``).
        read_ahead: ``warm(read_ahead=...)``; False is ``warm()`` as it was before the
            read-ahead (``bot.search.index.page_cache``).
    """
    os.environ.pop("PAPERBOT_INDEX", None)
    from bot.search.engine import SearchIndex

    idx = SearchIndex(Path(index_dir))
    t0 = time.perf_counter()
    ahead = idx.warm(read_ahead=read_ahead)
    warm = {"warm_s": round(time.perf_counter() - t0, 3), "read_ahead": read_ahead}
    bm25s, stemmer = _bm25s()
    retriever = bm25s.BM25.load(str(bm25s_dir))

    def paperbot(q: str) -> None:
        idx.search(q, limit=LIMIT)

    def bm(q: str) -> None:
        tokens = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        retriever.retrieve(tokens, k=LIMIT, show_progress=False, n_threads=0)

    run = {"paperbot": paperbot, "bm25s": bm}
    for q in WARMUP:
        paperbot(q)
        bm(q)
    asked = [(name, i) for name, qs in sets.items() for i in range(len(qs))]
    warm["round1_at_s"] = round(time.perf_counter() - t0, 3)
    warm["read_ahead_done_at_round1"] = bool(ahead and ahead.done.is_set())
    out: dict = {"rounds": [], "warm": warm}
    for k in range(rounds):
        order = list(asked)
        random.Random(seed + k).shuffle(order)
        use0 = resource.getrusage(THREAD)
        got = {e: {name: [None] * len(qs) for name, qs in sets.items()} for e in ENGINES}
        for n, (name, i) in enumerate(order):
            q = sets[name][i]
            for engine in ENGINES if n % 2 == 0 else ENGINES[::-1]:
                t, c = time.perf_counter(), time.thread_time()
                run[engine](q)
                got[engine][name][i] = (
                    round((time.perf_counter() - t) * 1000, 3),
                    round((time.thread_time() - c) * 1000, 3),
                )
        use1 = resource.getrusage(THREAD)
        disk = {"major_faults": use1.ru_majflt - use0.ru_majflt, "read_mb": (use1.ru_inblock - use0.ru_inblock) / 2048}
        out["rounds"].append({"times": got, "load": os.getloadavg(), "disk": disk})
    out["rss_mb"] = round(peak_rss_mb(), 1)
    if ahead is not None and ahead.wait(120):
        warm.update(read_mb=round(ahead.bytes / 1e6, 1), read_s=round(ahead.seconds, 3), files=len(ahead.read))
        warm["skipped"] = ahead.skipped
    return out


def _pct(vals: list[float]) -> dict:
    return {"p50": percentile(vals, 50), "p95": percentile(vals, 95), "max": max(vals), "mean": statistics.fmean(vals)}


def summarise(raw: dict) -> dict:
    """Per engine, set and measure (``wall``, ``cpu``): ``first`` (round 1's p50/p95/max/mean),
    ``median`` (the median over rounds of each), ``by_round`` (each round's), and the
    ratios paperbot / ``bm25s`` of round 1 and of the medians."""
    out: dict = {"rounds": len(raw["rounds"]), "rss_mb": raw["rss_mb"], "load_by_round": []}
    for engine in ENGINES:
        out[engine] = {}
        for name in raw["rounds"][0]["times"][engine]:
            out[engine][name] = {}
            for m, measure in enumerate(("wall", "cpu")):
                per = [_pct([t[m] for t in r["times"][engine][name]]) for r in raw["rounds"]]
                out[engine][name][measure] = {
                    "first": per[0],
                    "median": {key: statistics.median(p[key] for p in per) for key in per[0]},
                    "by_round": per,
                }
    out["load_by_round"] = [r["load"] for r in raw["rounds"]]
    out["disk_by_round"] = [r.get("disk") for r in raw["rounds"]]
    out["warm"] = raw.get("warm", {})
    return out


def ratio(s: dict, name: str, measure: str, which: str, key: str) -> float:
    """paperbot / ``bm25s`` of one figure of ``summarise``'s result.

    Args:
        s: ``summarise``'s result.
        name: the query set (``short``, ``long``).
        measure: ``wall`` or ``cpu``.
        which: ``first`` (round 1) or ``median`` (over rounds).
        key: ``p50``, ``p95``, ``max`` or ``mean``.
    """
    return s["paperbot"][name][measure][which][key] / s["bm25s"][name][measure][which][key]


def report_lines(s: dict) -> list[str]:
    """The report's section: per set and measure, paperbot and ``bm25s`` p50/p95 in round 1 and
    the median over rounds, with the ratios."""
    lines = [
        f"as a user meets it — one process, both engines, each query once per round in a fresh order, "
        f"{s['rounds']} rounds (round 1: every query new to the process; warm process: index open, "
        f"warm(), {len(WARMUP)} other queries answered first); ms per query",
        f"{'':<22}{'round 1 p50/p95':>22}{'median of rounds p50/p95':>28}{'ratio r1 p50/p95':>20}{'ratio med p50/p95':>20}",
    ]
    for name in s["paperbot"]:
        for measure in ("wall", "cpu"):
            for engine in ENGINES:
                f, m = s[engine][name][measure]["first"], s[engine][name][measure]["median"]
                label = f"{name} {measure} {engine}"
                row = f"{label:<22}{f['p50']:>11.1f} /{f['p95']:>8.1f}{m['p50']:>17.1f} /{m['p95']:>8.1f}"
                if engine == "paperbot":
                    row += "".join(
                        f"{ratio(s, name, measure, w, 'p50'):>11.2f} /{ratio(s, name, measure, w, 'p95'):>6.2f}"
                        for w in ("first", "median")
                    )
                lines.append(row)
        by = s["paperbot"][name]["wall"]["by_round"]
        lines.append(f"  paperbot {name} wall p50 by round: " + ", ".join(f"{p['p50']:.1f}" for p in by))
    lines.append("  load average (1 min) after each round: " + ", ".join(f"{r[0]:.2f}" for r in s["load_by_round"]))
    lines.append(f"  searching process peak RSS (both engines): {s['rss_mb']:.0f} MB")
    if all(s.get("disk_by_round") or [None]):
        lines.append(
            "  searching thread's reads from disk by round (major page faults / MB, getrusage): "
            + ", ".join(f"{d['major_faults']} / {d['read_mb']:.1f}" for d in s["disk_by_round"])
        )
    w = s.get("warm") or {}
    if w:
        ahead = (
            f"read-ahead {w['read_mb']:.0f} MB in {w['read_s']:.2f} s (finished before round 1: "
            f"{'yes' if w['read_ahead_done_at_round1'] else 'no'}; round 1 began {w['round1_at_s']:.2f} s after warm() began)"
            if "read_mb" in w
            else ("read-ahead did not finish" if w["read_ahead"] else "no read-ahead (warm(read_ahead=False))")
        )
        lines.append(f"  warm() {w['warm_s']:.2f} s; {ahead}")
    return lines


def targets(s: dict) -> list[tuple[str, bool, str]]:
    """Issue 18's latency bars, the strict way: round 1 p95 ratios (wall; CPU beside)."""
    out = []
    for name, within in (("short", 6), ("long", 8)):
        p = s["paperbot"][name]["wall"]["first"]["p95"]
        b = s["bm25s"][name]["wall"]["first"]["p95"]
        got = ratio(s, name, "wall", "first", "p95")
        cpu = ratio(s, name, "cpu", "first", "p95")
        out.append(
            (
                f"{name} p95 <= {within} x bm25s, round 1, in-process",
                got <= within,
                f"{p:.1f} vs {b:.1f} ms = {got:.2f} x (thread CPU {cpu:.2f} x)",
            )
        )
    return out
