#!/usr/bin/env python3
"""Regenerate benchmarks/queries_arxiv.txt: 200 fixed 1–4-word queries (50 of each length).

Usage: .venv/bin/python benchmarks/make_queries.py /path/to/arxiv-abstracts [--out FILE]

Drawn once from the arXiv titles with a fixed seed (random.Random(20260704)): a random title, its
words of 3+ characters that are not stop words, a random run of 1–4 consecutive ones, lower-cased.
The committed file is the query set; this script only documents (and can reproduce) how it was made.
"""

import argparse
import gzip
import json
import random
import re
from pathlib import Path

from whoosh.analysis import STOP_WORDS

SEED = 20260704


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("queries_arxiv.txt"))
    args = ap.parse_args()
    titles = []
    for f in sorted(args.data_dir.glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            titles.extend(json.loads(line)["title"] for line in fh if line.strip())
    rng = random.Random(SEED)
    out = []
    for i in range(200):
        length = i % 4 + 1
        while True:
            words = [
                w
                for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]+", rng.choice(titles))
                if w.lower() not in STOP_WORDS and len(w) > 2
            ]
            if len(words) >= length:
                s = rng.randrange(len(words) - length + 1)
                out.append(" ".join(words[s : s + length]).lower())
                break
    args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} queries to {args.out}")


if __name__ == "__main__":
    main()
