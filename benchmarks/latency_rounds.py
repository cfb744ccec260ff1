#!/usr/bin/env python3
"""Issue 18's latency bars alone, on an index that already exists: ``user_rounds.py``'s
in-process rounds (the strict measure of ``search_bench.py --user-rounds``) without the
builds and the fresh-process FTS5 rounds, plus one-typo queries timed the same way.

Usage::

    .venv/bin/python benchmarks/latency_rounds.py [DATA_DIR] --index DIR --bm25s DIR \
        [--rounds 3] [--seed 18] [--typos 50] [--typo-docs 10000] [--typo-seed 20261218] \
        [--cold] [--no-read-ahead] [--out FILE]

``--index`` is paperbot's index of the arXiv sample (e.g. one kept by ``search_bench.py
--keep-index``), ``--bm25s`` the ``bm25s`` index of the same papers saved by
``bench_engines.child_bm25s_build`` (``search_bench.py --workdir DIR`` leaves it in
``DIR/…/bm25s`` only while it runs; save one with that function). Two fresh processes run
``user_rounds.child_user_rounds``: the first on ``queries_arxiv.txt`` and
``queries_arxiv_long.txt`` (the targets: round 1 p95, short <= 6x, long <= 8x ``bm25s``), the
second on ``--typos`` two-word title phrases of the first ``--typo-docs`` records of
``DATA_DIR`` (``typo_bench.title_phrases``, the 2-word half) each with one edit
(``typo_bench.with_typo``), drawn with ``--typo-seed``: no target, reported. Then each typed
query's correction (``SearchPage.corrected_query`` or the hint) is listed beside its time.

``--cold``: before each of the two processes starts, the files of the live generation and
of the ``bm25s`` index leave the page cache (``cold_files.evict``: written back, then
``posix_fadvise(DONTNEED)``; Linux), as after a machine start or when other work has
evicted them; the report gives the megabytes still cached after that (``mincore``) and
after each process. ``--no-read-ahead``: the searching processes call
``SearchIndex.warm(read_ahead=False)`` — ``warm()`` as it was before its page-cache
read-ahead (``bot.search.index.page_cache``), for a before/after on one machine.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import arxiv_sample as sample
import cold_files
import user_rounds
from bench_engines import run_child
from report import publish
from typo_bench import product_query, title_phrases, with_typo

HERE = Path(__file__).resolve().parent


def typo_queries(data_dir: Path, docs: int, count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` pairs ``(phrase, typed)``: two-word title phrases with one edit.

    Args:
        data_dir: the arXiv sample folder.
        docs: how many records (file order) the phrases are drawn from.
        count: how many phrases.
        seed: seed of the draw and of the edits.
    """
    papers = sample.load(sample.first_records(data_dir, docs))
    phrases = title_phrases(papers, 2 * count, seed)[:count]  # the first half is the 2-word one
    rng = random.Random(seed)
    return [(p, with_typo(p, rng)[0]) for p in phrases]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, nargs="?", default=sample.DEFAULT_DATA)
    ap.add_argument("--index", type=Path, required=True, help="paperbot's index of the sample")
    ap.add_argument("--bm25s", type=Path, required=True, help="the saved bm25s index of the same papers")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=18, help="seed of the rounds' orders")
    ap.add_argument("--typos", type=int, default=50)
    ap.add_argument("--typo-docs", type=int, default=10_000)
    ap.add_argument("--typo-seed", type=int, default=20261218)
    ap.add_argument("--cold", action="store_true", help="evict both indexes' files before each process")
    ap.add_argument("--no-read-ahead", action="store_true", help="warm() without its page-cache read-ahead")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    load_start, t0 = os.getloadavg(), time.perf_counter()
    sets = {
        name: [q.strip() for q in (HERE / f).read_text("utf-8").splitlines() if q.strip()]
        for name, f in (("short", "queries_arxiv.txt"), ("long", "queries_arxiv_long.txt"))
    }
    files = cold_files.files_under(cold_files.live_generation(args.index.resolve()), args.bm25s.resolve())
    cache: list[str] = []

    def child(query_sets: dict) -> dict:
        if args.cold:
            cold_files.evict(files)
        before = cold_files.resident_total(files)
        raw = run_child(
            "user-rounds",
            args.index.resolve(),
            args.bm25s.resolve(),
            query_sets,
            args.rounds,
            args.seed,
            not args.no_read_ahead,
        )
        cache.append(
            f"{'/'.join(query_sets)} process: {before / 1e6:.0f} MB of the {sum(f.stat().st_size for f in files) / 1e6:.0f} MB "
            f"of both indexes' files cached at its start{' (after eviction)' if args.cold else ''}, "
            f"{cold_files.resident_total(files) / 1e6:.0f} MB at its end"
        )
        return raw

    main_raw = child(sets)
    pairs = typo_queries(args.data_dir, args.typo_docs, args.typos, args.typo_seed)
    typo_sets = {"typo": [t for _, t in pairs]}
    typo_raw = child(typo_sets)
    load_end = os.getloadavg()
    main_s, typo_s = user_rounds.summarise(main_raw), user_rounds.summarise(typo_raw)

    from bot.search.engine import SearchIndex

    idx = SearchIndex(args.index.resolve())
    first = typo_raw["rounds"][0]["times"]["paperbot"]["typo"]
    fixes = [(first[i][0], p, t, *product_query(idx, t)) for i, (p, t) in enumerate(pairs)]
    restored = sum(q == p for _, p, _, q, _ in fixes)
    targets = user_rounds.targets(main_s)
    tf = typo_s["paperbot"]["typo"]
    lines = [
        *sample.header(
            "issue 18 latency, in-process rounds on an existing index (user_rounds.py) + one-typo queries",
            args.data_dir,
            f"index {args.index.name}; {args.rounds} rounds; seed {args.seed}; "
            f"{len(pairs)} typo phrases of the first {args.typo_docs} records, seed {args.typo_seed}",
        ),
        f"load average (1/5/15 min) at start: {' / '.join(f'{x:.2f}' for x in load_start)}; "
        f"at end: {' / '.join(f'{x:.2f}' for x in load_end)}; took {time.perf_counter() - t0:.0f} s",
        f"page cache: {'COLD — both indexes evicted before each process' if args.cold else 'as found'}; "
        f"warm() {'WITHOUT' if args.no_read_ahead else 'with'} its read-ahead",
        *[f"  {c}" for c in cache],
        *[f"NOTE: {n}" for n in args.note],
        "",
        *user_rounds.report_lines(main_s),
        "",
        "one-typo queries (two-word title phrases, one edit) — a second process, same method:",
        *user_rounds.report_lines(typo_s)[1:],
        f"  paperbot typo round 1 wall p50/p95/max {tf['wall']['first']['p50']:.1f} / "
        f"{tf['wall']['first']['p95']:.1f} / {tf['wall']['first']['max']:.1f} ms; "
        f"thread CPU p50/p95 {tf['cpu']['first']['p50']:.1f} / {tf['cpu']['first']['p95']:.1f} ms",
        f"  restored (corrected query equals the phrase): {restored} of {len(pairs)}",
        "  slowest 10 in round 1 (wall ms, phrase -> typed -> corrected / hint):",
        *[
            f"    {ms:7.1f}  {p!r} -> {t!r} -> {q!r}{f' (hint {h!r})' if h else ''}"
            for ms, p, t, q, h in sorted(fixes, reverse=True)[:10]
        ],
        "",
        "targets — issue 18 (in-process, round 1, 100k):",
        *[f"  {'PASS' if ok else 'FAIL'}  {name:<52} {got}" for name, ok, got in targets],
    ]
    publish(
        lines,
        args.out,
        {
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "cold": args.cold,
            "read_ahead": not args.no_read_ahead,
            "page_cache": cache,
            "user_rounds": main_s,
            "typo_rounds": typo_s,
            "typo_queries": [
                {"phrase": p, "typed": t, "round1_wall_ms": ms, "query": q, "hint": h} for ms, p, t, q, h in fixes
            ],
            "targets": [{"target": t, "pass": ok, "measured": g} for t, ok, g in targets],
        },
    )


if __name__ == "__main__":
    main()
