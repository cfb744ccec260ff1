#!/usr/bin/env python3
"""Is a recommendation fast enough for Slack? (issue 22, point 6)

Usage::

    .venv/bin/python benchmarks/recommend_speed.py ../shared/data/arxiv-abstracts \
        --index INDEX_DIR [--requests 200] [--out benchmarks/results/recommend_speed.txt]

The index is one already built of every record of DATA_DIR (``paperbot index build --source
DATA_DIR --index DIR``: ~8 min of CPU at 102,289 papers, so it is built once, outside the
checkout, and reused). Requests: readers drawn as ``recommend_bench.py`` draws them (authors
with at least 6 papers, 3 saved, a draw seeded with ``--seed``), every fourth also with one
"Not for me" (a paper of another author). For each request, in one process, one after the
other:

* **recommend** — ``Recommender.recommend(saved, negatives, limit=5)``: the SVM trained,
  every paper scored, the 5 best explained (what ``/paper foryou`` asks for);
* **BM25 more-like-this** — ``SearchIndex.related`` of the saved papers' titles and
  abstracts joined (the product's BM25 over the same index), ``limit=5``.

First the per-generation work is timed once (``SearchIndex.vectors``: the term counts read
from the index; ``Recommender.matrix``: the TF-IDF rows, which reads them again) with its memory; then ``--warmup``
requests are run untimed; then ``--requests`` timed, wall time and the thread's CPU time (what
the request costs, without the waits for a core that the machine's load adds). Target:
recommend p95 <= 300 ms (wall).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import arxiv_sample as sample  # noqa: E402

from bot import search  # noqa: E402
from bot.recommend import Recommender  # noqa: E402


def rss_mb() -> float:
    """The process's resident set now, in MB (``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def requests(data_dir: Path, index, n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """``n`` (saved, negatives) requests of readers drawn from the records."""
    by_author = defaultdict(list)
    for rec in sample.iter_records(data_dir):
        for name in dict.fromkeys(rec.get("authors") or ()):
            by_author[name].append(rec["id"])
    names = sorted(a for a, ids in by_author.items() if len(ids) >= 6)
    rng = random.Random(seed)
    out = []
    for k in range(n):
        name = rng.choice(names)
        saved = rng.sample(sorted(by_author[name]), 3)
        other = rng.choice(names)
        negatives = [by_author[other][0]] if k % 4 == 3 and other != name else []
        ids = [p.id for a in saved + negatives for p in index.by_source(a)[:1]]
        out.append((ids[: len(saved)], ids[len(saved) :]))
    return out


def percentiles(values: list[float]) -> dict:
    a = np.asarray(values)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="folder of arXiv *.jsonl.gz files (the readers)")
    ap.add_argument("--index", type=Path, required=True, help="an index built of every record of DATA_DIR")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    load_start = os.getloadavg()[0]
    index = search.SearchIndex(args.index)
    index.warm()
    rss0 = rss_mb()
    started = time.perf_counter()
    vectors = index.vectors()
    vectors_s = time.perf_counter() - started
    rss1 = rss_mb()
    shape = {"papers": len(vectors.ids), "terms": len(vectors.terms), "vectors_mb": vectors.nbytes() / 2**20}
    del vectors  # the product keeps only the rows (SearchIndex.from_vectors)
    gc.collect()
    rss_freed = rss_mb()
    rec = Recommender(index)
    started = time.perf_counter()
    matrix = rec.matrix()
    matrix_s = time.perf_counter() - started
    rss2 = rss_mb()
    asks = requests(args.data_dir, index, args.warmup + args.requests, args.seed)
    texts = {pid: f"{p.title} {p.abstract}" for pos, _ in asks for pid in pos for p in [index.get(pid)]}
    for pos, neg in asks[: args.warmup]:
        rec.recommend(pos, neg, limit=5)
        index.related(" ".join(texts[p] for p in pos), limit=5)
    rec_ms, mlt_ms, rec_cpu, mlt_cpu = [], [], [], []
    for pos, neg in asks[args.warmup :]:
        t0, c0 = time.perf_counter(), time.thread_time()
        rec.recommend(pos, neg, limit=5)
        t1, c1 = time.perf_counter(), time.thread_time()
        index.related(" ".join(texts[p] for p in pos), limit=5)
        t2, c2 = time.perf_counter(), time.thread_time()
        rec_ms.append((t1 - t0) * 1000)
        mlt_ms.append((t2 - t1) * 1000)
        rec_cpu.append((c1 - c0) * 1000)
        mlt_cpu.append((c2 - c1) * 1000)
    result = {
        **shape,
        "nonzeros": int(matrix.x.nnz),
        "vectors_s": vectors_s,
        "matrix_s": matrix_s,
        "matrix_mb": matrix.nbytes() / 2**20,
        "rss_mb": {"index_warm": rss0, "with_vectors": rss1, "freed": rss_freed, "with_matrix": rss2, "end": rss_mb()},
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "recommend_ms": percentiles(rec_ms),
        "bm25_more_like_this_ms": percentiles(mlt_ms),
        "recommend_cpu_ms": percentiles(rec_cpu),
        "bm25_more_like_this_cpu_ms": percentiles(mlt_cpu),
        "load_average": [load_start, os.getloadavg()[0]],
    }
    r = result
    lines = sample.header(
        "Recommendation speed (issue 22, point 6)",
        args.data_dir,
        f"index {args.index.parent.name}/{args.index.name} of {r['papers']:,} papers; {args.requests} requests after {args.warmup} untimed",
    )
    lines += [
        f"load average: {r['load_average'][0]:.1f} at the start, {r['load_average'][1]:.1f} at the end (2 cores)",
        "",
        "once per index generation:",
        f"  term counts read from the index (SearchIndex.vectors): {r['vectors_s']:.1f} s, "
        f"{r['terms']:,} terms, {r['vectors_mb']:.0f} MB of arrays",
        f"  TF-IDF rows (Recommender.matrix): {r['matrix_s']:.1f} s, {r['nonzeros']:,} non-zeros, "
        f"{r['matrix_mb']:.0f} MB",
        f"  RSS: {r['rss_mb']['index_warm']:.0f} MB with the index warm, {r['rss_mb']['with_vectors']:.0f} MB "
        f"with the term counts, {r['rss_mb']['freed']:.0f} MB when they are freed, "
        f"{r['rss_mb']['with_matrix']:.0f} MB with the rows, {r['rss_mb']['end']:.0f} MB "
        f"at the end (peak {r['max_rss_mb']:.0f} MB)",
        "",
        f"{'per request (ms)':<44}{'p50':>8}{'p95':>8}{'max':>8}",
    ]
    for label, key in (
        ("recommend (train + score all + explain 5)", "recommend_ms"),
        ("BM25 more-like-this (SearchIndex.related)", "bm25_more_like_this_ms"),
        ("recommend, thread CPU", "recommend_cpu_ms"),
        ("BM25 more-like-this, thread CPU", "bm25_more_like_this_cpu_ms"),
    ):
        m = r[key]
        lines.append(f"{label:<44}{m['p50']:>8.1f}{m['p95']:>8.1f}{m['max']:>8.1f}")
    ok = r["recommend_ms"]["p95"] <= 300
    lines += ["", f"target (recommend p95 <= 300 ms): {'MET' if ok else 'NOT MET'}"]
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args.out.with_suffix(".json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
