"""Link unfurl lookups at scale: how long the first ``link_shared`` waits while
``bot.service.paper_links.PaperLinks`` reads every paper's links, and a lookup after that.

Usage: ``python benchmarks/links_bench.py ../shared/data/arxiv-abstracts --docs 5000
[--out benchmarks/results/links_bench_5k.txt]``. Builds an index of the first
``--docs`` records in a temporary folder (removed afterwards).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot import corpus, search  # noqa: E402
from bot.service.paper_links import PaperLinks, link_key  # noqa: E402


def first_records(data_dir: Path, docs: int, out: Path) -> Path:
    """Write the first ``docs`` records of ``data_dir``'s *.jsonl.gz to ``out`` (JSON Lines)."""
    files = sorted(data_dir.glob("*.jsonl.gz"))
    if not files:
        sys.exit(f"no *.jsonl.gz files in {data_dir}")

    def lines():
        for path in files:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                yield from (line for line in f if line.strip())

    out.write_text("".join(itertools.islice(lines(), docs)), encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--docs", type=int, default=5000)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = first_records(args.data_dir, args.docs, Path(tmp) / "slice.jsonl")
        papers = corpus.load_papers([source])
        search.build_index(Path(tmp) / "index", papers, fingerprint="links-bench")
        index = search.SearchIndex(Path(tmp) / "index")
        index.warm()
        links = PaperLinks(index)
        urls = [p.url for p in papers if p.url and link_key(p.url)][:200]
        t0, c0 = time.perf_counter(), time.process_time()
        assert links.find(urls[0]) is not None
        first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0
        lat = []
        for url in urls:
            t = time.perf_counter()
            assert links.find(url) is not None
            lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    report = (
        "\n".join(
            [
                "paperbot link lookup benchmark (bot.service.paper_links.PaperLinks over a real index)",
                f"data: {args.data_dir.name} — first {len(papers)} records; {len(urls)} paper URLs looked up",
                f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}",
                "NOTE: this machine is shared with other sessions; wall times include waiting for a core.",
                "",
                f"first lookup (reads every paper's links) wall s   {first_s:.2f}   CPU s {first_cpu:.2f}",
                f"later lookups ms  p50 {statistics.median(lat):.2f}  p95 {lat[int(len(lat) * 0.95) - 1]:.2f}"
                f"  max {lat[-1]:.2f}",
                f"peak RSS MB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}",
            ]
        )
        + "\n"
    )
    print(report, end="")
    if args.out:
        args.out.write_text(report, encoding="utf-8")
        args.out.with_suffix(".json").write_text(
            json.dumps(
                {
                    "docs": len(papers),
                    "first_s": round(first_s, 3),
                    "first_cpu_s": round(first_cpu, 3),
                    "p50_ms": round(statistics.median(lat), 3),
                    "max_ms": round(lat[-1], 3),
                }
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
