"""Shared by the issue 18 benchmarks: the arXiv sample as papers, and an index of them.

Every figure goes through the product's public API only — ``bot.corpus.load_papers``
(the loader ``paperbot index build`` runs) and ``bot.search.build_index`` /
``SearchIndex`` — so what is measured is what ``/paper search`` and ``/paper similar``
answer. The records are handed to the loader as a temporary JSON Lines file, exactly as
the sample stores them (``id``, ``title``, ``abstract``, ``authors``, ``categories``, …).

* ``first_records(data_dir, n)``: the first ``n`` records in file order (arxiv-000 first);
* ``drawn_records(data_dir, n, seed)``: ``n`` records of one seeded shuffle of all of them,
  sorted by arXiv id first (the draw of ``known_item.py``), so every machine draws the same;
* ``load(records, seeds=False)``: the ``Paper`` objects the product makes of them (the 38
  seed abstracts of ``seeds/`` first when ``seeds``);
* ``build(papers, folder)``: an index of them, and the seconds the build took.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The shared arXiv sample beside the checkout (``../shared/data/arxiv-abstracts``).
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "arxiv-abstracts"
SEEDS = ROOT / "seeds"


def iter_records(data_dir: Path) -> Iterator[dict]:
    """Every record of ``data_dir/*.jsonl.gz`` with a title and an abstract, in file order."""
    for path in sorted(Path(data_dir).glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    if str(rec.get("title", "")).strip() and str(rec.get("abstract", "")).strip():
                        yield rec


def first_records(data_dir: Path, n: int) -> list[dict]:
    """The first ``n`` records in file order."""
    return list(itertools.islice(iter_records(data_dir), n))


def drawn_records(data_dir: Path, n: int, seed: int) -> list[dict]:
    """``n`` records of one seeded shuffle of all records sorted by arXiv id."""
    records = sorted(iter_records(data_dir), key=lambda r: r["id"])
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    return [records[i] for i in order[:n]]


def load(records: list[dict], *, seeds: bool = False) -> list:
    """The product's ``Paper`` objects for ``records`` (``bot.corpus.load_papers`` on
    a temporary JSON Lines file), the seed abstracts first when ``seeds``."""
    from bot import corpus

    with tempfile.TemporaryDirectory(prefix="paperbot-sample-") as tmp:
        path = Path(tmp) / "sample.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return corpus.load_papers(([SEEDS] if seeds else []) + [path], workers=0)


def build(papers: list, folder: Path):
    """``(SearchIndex, build seconds)`` for ``papers`` in ``folder/index`` (warmed)."""
    from bot import search

    started = time.perf_counter()
    search.build_index(Path(folder) / "index", papers)
    seconds = time.perf_counter() - started
    index = search.SearchIndex(Path(folder) / "index")
    index.warm()
    return index, seconds


def bm25s_index(texts: list[str]):
    """``(retrieve, seconds)``: ``bm25s`` over ``texts`` as ``known_item.py`` runs it
    (k1 1.5, b 0.75, its English stop words, PyStemmer's Snowball English);
    ``retrieve(queries, k)`` gives each query's best ``k`` text indices, best first."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    seconds = time.perf_counter() - started

    def retrieve(queries: list[str], k: int) -> list[list[int]]:
        tokens = bm25s.tokenize(queries, stopwords="en", stemmer=stemmer, show_progress=False)
        docs, _ = retriever.retrieve(tokens, k=min(k, len(texts)), show_progress=False)
        return [[int(d) for d in row] for row in docs]

    return retrieve, seconds


def header(title: str, data_dir: Path, extra: str) -> list[str]:
    """The first lines of a report: title, date, python, data folder (relative to the
    checkout, as ``../shared/data/arxiv-abstracts``) and what was drawn."""
    import os
    import platform

    return [
        title,
        "=" * len(title),
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}   python {platform.python_version()}",
        f"data: {os.path.relpath(Path(data_dir).resolve(), ROOT)}; {extra}",
        "",
    ]
