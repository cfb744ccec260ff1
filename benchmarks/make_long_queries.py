#!/usr/bin/env python3
"""Regenerate benchmarks/queries_arxiv_long.txt: 100 arXiv abstracts cut to their first 150 words.

Usage: .venv/bin/python benchmarks/make_long_queries.py /path/to/arxiv-abstracts [--out FILE]

The records of every ``*.jsonl.gz`` file are sorted by arXiv id and shuffled with a fixed seed
(random.Random(20261201)); the first 100 with an abstract of at least 150 words give one query
each: the abstract's first 150 whitespace-separated words on one line (issue 11, point 6). The
committed file is the query set; this script documents (and can reproduce) how it was made.
"""

import argparse
import gzip
import json
import random
from pathlib import Path

SEED = 20261201
COUNT = 100
WORDS = 150


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("queries_arxiv_long.txt"))
    args = ap.parse_args()
    records = []
    for f in sorted(args.data_dir.glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            records.extend((r["id"], r.get("abstract") or "") for r in map(json.loads, filter(str.strip, fh)))
    records.sort()
    random.Random(SEED).shuffle(records)
    queries = [" ".join(text.split()[:WORDS]) for _, text in records if len(text.split()) >= WORDS][:COUNT]
    args.out.write_text("\n".join(queries) + "\n", encoding="utf-8")
    print(f"wrote {len(queries)} queries to {args.out}")


if __name__ == "__main__":
    main()
