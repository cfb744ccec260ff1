#!/usr/bin/env python3
"""Known-item search on arXiv: each paper's title finds its own abstract?

Usage::

    .venv/bin/python benchmarks/known_item.py ../shared/data/arxiv-abstracts \
        [--queries 2000] [--docs 10000] [--seed 20261201] [--out benchmarks/results/known_item.txt]

Evidence that needs no relevance judgments (issue 11 point 5): ``--queries``
papers are drawn with a fixed seed from the arXiv records (sorted by id
first, so the draw is the same on every machine); the index holds the
*abstracts only* of ``--docs`` papers (the drawn ones plus more drawn with the
same seed), so a title's words are never in its own entry; each title is a
query and its own paper the one right answer.

Two engines on exactly the same text:

* paperbot — ``bot.search.build_index`` over papers with an empty title, then
  ``SearchIndex.search(title, limit=100)`` with the default ``Ranking`` (the
  code ``paperbot search`` runs);
* ``bm25s`` (https://github.com/xhluca/bm25s) — k1 1.5, b 0.75, its English
  stop words and PyStemmer's Snowball English stemmer (``pip install
  '.[bench]'``).

Reported: MRR@10 (1/rank of the paper when in the top 10, else 0), success@10
and success@100 (the paper in the top 10 / 100), over all queries.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from report import publish  # benchmarks/report.py (scripts run from benchmarks/)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def read_records(data_dir: Path) -> list[dict]:
    """Every record with a title and an abstract, sorted by arXiv id."""
    records = []
    for path in sorted(data_dir.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if r.get("title", "").strip() and r.get("abstract", "").strip():
                        records.append({"id": r["id"], "title": r["title"], "abstract": r["abstract"]})
    records.sort(key=lambda r: r["id"])
    return records


def draw(records: list[dict], queries: int, docs: int, seed: int) -> tuple[list, list]:
    """``(query records, indexed records)``: the first ``queries`` of one
    seeded shuffle are the queries; the first ``docs`` are indexed."""
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    chosen = [records[i] for i in order[: max(queries, docs)]]
    return chosen[:queries], chosen


def metrics(ranks: list[int | None]) -> dict:
    """MRR@10, success@10, success@100 from each query's 1-based rank (None: not found)."""
    n = max(1, len(ranks))
    return {
        "mrr@10": sum(1 / r for r in ranks if r and r <= 10) / n,
        "success@10": sum(1 for r in ranks if r and r <= 10) / n,
        "success@100": sum(1 for r in ranks if r and r <= 100) / n,
    }


def run_paperbot(indexed: list[dict], queries: list[dict]) -> tuple[list, float, float]:
    from bot.core.models import Paper, QueryError
    from bot.search import SearchIndex, build_index

    papers = [Paper(id=f"k{i}", title="", abstract=r["abstract"], source_id=r["id"]) for i, r in enumerate(indexed)]
    with tempfile.TemporaryDirectory(prefix="paperbot-known-") as tmp:
        started = time.perf_counter()
        build_index(Path(tmp) / "index", papers)
        build_s = time.perf_counter() - started
        index = SearchIndex(Path(tmp) / "index")
        index.warm()
        ranks, started = [], time.perf_counter()
        for q in queries:
            try:
                ids = [h.paper.source_id for h in index.search(q["title"], limit=100).hits]
            except QueryError:
                ids = []
            ranks.append(ids.index(q["id"]) + 1 if q["id"] in ids else None)
        return ranks, build_s, time.perf_counter() - started


def run_bm25s(indexed: list[dict], queries: list[dict]) -> tuple[list, float, float]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    corpus = bm25s.tokenize([r["abstract"] for r in indexed], stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index(corpus, show_progress=False)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    tokens = bm25s.tokenize([q["title"] for q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    docs, _ = retriever.retrieve(tokens, k=min(100, len(indexed)), show_progress=False)
    ranks = []
    for q, row in zip(queries, docs):
        ids = [indexed[int(d)]["id"] for d in row]
        ranks.append(ids.index(q["id"]) + 1 if q["id"] in ids else None)
    return ranks, build_s, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="arXiv abstracts folder (*.jsonl.gz)")
    ap.add_argument("--queries", type=int, default=2000, help="papers whose titles are queries")
    ap.add_argument("--docs", type=int, default=10000, help="abstracts indexed (>= --queries)")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    records = read_records(args.data_dir.resolve())
    queries, indexed = draw(records, args.queries, args.docs, args.seed)
    ours, our_build, our_search = run_paperbot(indexed, queries)
    theirs, their_build, their_search = run_bm25s(indexed, queries)
    m_ours, m_theirs = metrics(ours), metrics(theirs)
    lines = [
        "paperbot known-item benchmark — arXiv titles against abstracts only",
        "=" * 66,
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}   python "
        f"{platform.python_version()}   host {platform.node()}",
        f"data: {args.data_dir} ({len(records)} records); seed {args.seed}; "
        f"{len(queries)} title queries; {len(indexed)} abstracts indexed (titles not indexed)",
        "",
        f"{'engine':<10} {'MRR@10':>8} {'success@10':>11} {'success@100':>12} {'build s':>8} {'search s':>9}",
        f"{'paperbot':<10} {m_ours['mrr@10']:>8.4f} {m_ours['success@10']:>11.4f} "
        f"{m_ours['success@100']:>12.4f} {our_build:>8.1f} {our_search:>9.1f}",
        f"{'bm25s':<10} {m_theirs['mrr@10']:>8.4f} {m_theirs['success@10']:>11.4f} "
        f"{m_theirs['success@100']:>12.4f} {their_build:>8.1f} {their_search:>9.1f}",
        "",
        f"paperbot - bm25s: MRR@10 {m_ours['mrr@10'] - m_theirs['mrr@10']:+.4f}, "
        f"success@100 {m_ours['success@100'] - m_theirs['success@100']:+.4f}  "
        f"(no worse: MRR@10 >= bm25s - 0.01: "
        f"{'yes' if m_ours['mrr@10'] >= m_theirs['mrr@10'] - 0.01 else 'NO'})",
        "bm25s: k1 1.5, b 0.75, English stop words, PyStemmer Snowball English; "
        "paperbot: default Ranking (bot.search.scoring.knobs); search time includes snippets.",
    ]
    publish(
        lines,
        args.out,
        {
            "seed": args.seed,
            "queries": len(queries),
            "docs": len(indexed),
            "paperbot": m_ours,
            "bm25s": m_theirs,
            "build_s": {"paperbot": our_build, "bm25s": their_build},
            "search_s": {"paperbot": our_search, "bm25s": their_search},
            "misses": [
                {"id": q["id"], "title": q["title"], "paperbot": a, "bm25s": b}
                for q, a, b in zip(queries, ours, theirs)
                if a != b and (a is None or (b is not None and a > b))
            ],
        },
    )


if __name__ == "__main__":
    main()
