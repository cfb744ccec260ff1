#!/usr/bin/env python3
"""Do recommendations find a reader's other papers? (issue 22, point 5) — no judgments needed.

Usage::

    pip install '.[bench]'   # bm25s, PyStemmer
    .venv/bin/python benchmarks/recommend_bench.py ../shared/data/arxiv-abstracts \
        [--docs 20000] [--seed 22] [--workdir DIR] [--out benchmarks/results/recommend_bench.txt]

Index: ``--docs`` arXiv records of one seeded draw (``arxiv_sample.drawn_records``), title +
abstract, through the product's loader and ``build_index`` (kept in ``--workdir`` and reused).

Simulated readers: every author (the sample's ``authors`` names, exactly) with at least
``MIN_PAPERS`` (6) papers in the index. For each, 3 of their papers (a draw seeded with
``--seed`` and the name) are "saved"; the others are held out. Each engine ranks the
papers that are not saved, and we report the mean over readers of

* **recall@20** — the share of the held-out papers in the engine's first 20;
* **nDCG@20** — binary gain, ``sum 1/log2(rank + 1)`` over the held-out papers in the
  first 20, divided by the same sum for a perfect ranking.

Engines, in one run: the product's ``Recommender.recommend(saved, limit=20)``; (a) ``bm25s``
(k1 1.5, b 0.75, its English stop words, PyStemmer) queried with the saved papers' titles
and abstracts joined (more-like-this); (b) the most recent papers (the sample's ``date``,
ties by id); (c) a seeded random order. Target: the recommender beats (a) on both.

Second run, "Not for me": for each reader, (a)'s best-ranked paper that is not theirs
and shares no arXiv category with any of their papers is their one negative (readers
without one are left out). We report how often that paper is in the recommender's top 20
without the negative, and how often the model trained with it would rank it in the top 20
were it not excluded (``recommend`` never returns a negative); also how many papers
of the negative's primary category sit in the top 20 with and without it, and recall and
nDCG with the negative (they should not drop).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import arxiv_sample as sample  # noqa: E402

from bot import search  # noqa: E402
from bot.recommend import Recommender  # noqa: E402
from bot.recommend.model import rows_of, scores, train  # noqa: E402

MIN_PAPERS = 6
SAVED = 3
K = 20


def ndcg(ranked: list[str], held: set[str]) -> float:
    """Binary nDCG@K of ``ranked`` against ``held``."""
    dcg = sum(1 / math.log2(i + 2) for i, pid in enumerate(ranked[:K]) if pid in held)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(K, len(held))))
    return dcg / ideal if ideal else 0.0


def recall(ranked: list[str], held: set[str]) -> float:
    """Share of ``held`` in the first K of ``ranked``."""
    return len(held & set(ranked[:K])) / len(held) if held else 0.0


def readers(records: list[dict], ids: dict[str, str], seed: int) -> list[tuple[str, list[str], set[str]]]:
    """``(author, saved ids, held-out ids)`` of every author with ``MIN_PAPERS`` papers."""
    by_author = defaultdict(list)
    for rec in records:
        for name in dict.fromkeys(rec.get("authors") or ()):
            by_author[name].append(ids[rec["id"]])
    out = []
    for name in sorted(by_author):
        papers = sorted(by_author[name])
        if len(papers) >= MIN_PAPERS:
            saved = random.Random(f"{seed}:{name}").sample(papers, SAVED)
            out.append((name, saved, set(papers) - set(saved)))
    return out


class Engines:
    """The four rankings of one index, each ``rank(saved, negatives) -> ids`` (saved ones dropped)."""

    def __init__(self, index, papers: list, records: list[dict], seed: int) -> None:
        self.index = index
        self.rec = Recommender(index)
        self.papers = papers
        self.order = [p.id for p in papers]
        self.retrieve, _ = sample.bm25s_index([f"{p.title} {p.abstract}" for p in papers])
        date = {p.id: (str(r.get("date") or ""), r["id"]) for p, r in zip(papers, records)}
        self.recent = sorted(self.order, key=lambda pid: date[pid], reverse=True)
        self.random = list(self.order)
        random.Random(seed).shuffle(self.random)
        self.text = {p.id: f"{p.title} {p.abstract}" for p in papers}

    def recommender(self, saved, negatives=()) -> list[str]:
        return [p.paper_id for p in self.rec.recommend(saved, negatives, limit=K)]

    def bm25s(self, saved, negatives=()) -> list[str]:
        hits = self.retrieve([" ".join(self.text[s] for s in saved)], K + len(saved))[0]
        return [self.order[d] for d in hits if self.order[d] not in saved][:K]

    def newest(self, saved, negatives=()) -> list[str]:
        return [p for p in self.recent[: K + len(saved)] if p not in saved][:K]

    def shuffled(self, saved, negatives=()) -> list[str]:
        return [p for p in self.random[: K + len(saved)] if p not in saved][:K]


def first_run(engines: Engines, people) -> dict:
    """Mean recall@K and nDCG@K per engine."""
    out = {}
    for name in ("recommender", "bm25s", "newest", "shuffled"):
        rank = getattr(engines, name)
        started = time.perf_counter()
        got = []
        for _, saved, held in people:
            ranked = rank(saved)
            got.append((recall(ranked, held), ndcg(ranked, held)))
        out[name] = {
            "recall": float(np.mean([g[0] for g in got])),
            "ndcg": float(np.mean([g[1] for g in got])),
            "ms_per_reader": (time.perf_counter() - started) * 1000 / max(1, len(people)),
        }
    return out


def second_run(engines: Engines, people, cats: dict[str, tuple[str, ...]], primary: dict[str, str]) -> dict:
    """The "Not for me" run (module docstring)."""
    matrix = engines.rec.matrix()
    n_in_before = n_in_after = same_before = same_after = 0
    rec_with, ndcg_with, rec_without, ndcg_without, used = [], [], [], [], 0
    for _, saved, held in people:
        mine = {c for pid in saved + sorted(held) for c in cats[pid]}
        ranked = engines.bm25s(saved)
        negative = next((p for p in ranked if p not in held and not (set(cats[p]) & mine)), None)
        if negative is None:
            continue
        used += 1
        before = engines.recommender(saved)
        after = engines.recommender(saved, [negative])
        n_in_before += negative in before
        pos, neg = rows_of(matrix, saved), rows_of(matrix, [negative])
        model_scores = scores(matrix, train(matrix, pos, neg))
        model_scores[pos] = -np.inf
        n_in_after += int((model_scores > model_scores[neg[0]]).sum()) < K
        same_before += sum(primary[p] == primary[negative] for p in before)
        same_after += sum(primary[p] == primary[negative] for p in after)
        rec_without.append(recall(before, held))
        ndcg_without.append(ndcg(before, held))
        rec_with.append(recall(after, held))
        ndcg_with.append(ndcg(after, held))
    return {
        "readers": used,
        "negative_in_top_without": n_in_before,
        "negative_in_top_with_model_rank": n_in_after,
        "same_category_in_top_without": same_before,
        "same_category_in_top_with": same_after,
        "recall_without": float(np.mean(rec_without)) if used else 0.0,
        "recall_with": float(np.mean(rec_with)) if used else 0.0,
        "ndcg_without": float(np.mean(ndcg_without)) if used else 0.0,
        "ndcg_with": float(np.mean(ndcg_with)) if used else 0.0,
    }


def report(args, first: dict, second: dict, people: int, build_s: float) -> list[str]:
    lines = sample.header(
        "Recommendations: simulated readers (issue 22, point 5)",
        args.data_dir,
        f"{args.docs} records drawn with seed {args.seed}; "
        + (f"index built in {build_s:.0f} s" if build_s else "index reused from --workdir"),
    )
    lines.append(f"readers: {people} authors with >= {MIN_PAPERS} papers; {SAVED} saved each, the rest held out")
    lines.append("")
    lines.append(f"{'engine':<34}{'recall@20':>10}{'nDCG@20':>10}{'ms/reader':>11}")
    names = {
        "recommender": "recommender (LinearSVC)",
        "bm25s": "(a) bm25s more-like-this",
        "newest": "(b) most recent",
        "shuffled": "(c) random",
    }
    for key, label in names.items():
        m = first[key]
        lines.append(f"{label:<34}{m['recall']:>10.4f}{m['ndcg']:>10.4f}{m['ms_per_reader']:>11.1f}")
    beats = all(first["recommender"][k] > first["bm25s"][k] for k in ("recall", "ndcg"))
    lines += ["", f"target (recommender beats (a) on both): {'MET' if beats else 'NOT MET'}", ""]
    s = second
    lines += [
        f'second run, one "Not for me" per reader ({s["readers"]} readers with an off-category paper in (a)\'s ranking):',
        f"  the negative in the recommender's top 20 without it: {s['negative_in_top_without']} readers",
        f"  ... ranked in the top 20 by the model trained with it (were it not excluded): "
        f"{s['negative_in_top_with_model_rank']} readers",
        f"  papers of the negative's primary category in the top 20: {s['same_category_in_top_without']} without, "
        f"{s['same_category_in_top_with']} with",
        f"  recall@20 {s['recall_without']:.4f} -> {s['recall_with']:.4f}; "
        f"nDCG@20 {s['ndcg_without']:.4f} -> {s['ndcg_with']:.4f}",
    ]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="folder of arXiv *.jsonl.gz files")
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/paperbot-recommend-bench"))
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    records = sample.drawn_records(args.data_dir, args.docs, args.seed)
    papers = sample.load(records)
    assert [p.source_id for p in papers] == [r["id"] for r in records], "the loader kept the records' order"
    folder = args.workdir / f"index-{args.docs}-{args.seed}"
    build_s = 0.0
    if not search.has_index(folder / "index"):
        _, build_s = sample.build(papers, folder)
    index = search.SearchIndex(folder / "index")
    ids = {r["id"]: p.id for p, r in zip(papers, records)}
    cats = {p.id: tuple(r.get("categories") or ()) for p, r in zip(papers, records)}
    primary = {p.id: str(r.get("primary_category") or "") for p, r in zip(papers, records)}
    people = readers(records, ids, args.seed)
    engines = Engines(index, papers, records, args.seed)
    first = first_run(engines, people)
    second = second_run(engines, people, cats, primary)
    lines = report(args, first, second, len(people), build_s)
    print("\n".join(lines))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args.out.with_suffix(".json").write_text(json.dumps({"first": first, "second": second}, indent=1))


if __name__ == "__main__":
    main()
