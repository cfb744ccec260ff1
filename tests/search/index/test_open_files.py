"""After a build or ``index add`` commits, a serving ``SearchIndex`` keeps
open only the files of the generations in use: the live one, and an older
one only while a searcher borrowed from it is still out
(``bot.search.index.generation.live_generation``). Open files are read from
``/proc/self/fd`` (Linux)."""

from __future__ import annotations

import os
import threading
from collections import Counter
from pathlib import Path

import pytest

from bot.search import SearchIndex, add_to_index, build_index
from bot.search.index import layout
from tests.search.searchkit import SMALL, paper

FD_DIR = Path("/proc/self/fd")
pytestmark = pytest.mark.skipif(not FD_DIR.is_dir(), reason="needs /proc/self/fd (Linux)")


def open_files(index_dir: Path) -> Counter:
    """Open descriptors under ``index_dir``, by generation name (a file
    already deleted counts under "<name> (deleted)")."""
    found: Counter = Counter()
    root = str(index_dir.resolve())
    for fd in os.listdir(FD_DIR):
        try:
            target = os.readlink(FD_DIR / fd)
        except OSError:
            continue  # closed meanwhile (e.g. the listdir's own fd)
        if target.startswith(root + os.sep):
            name = Path(target[len(root) + 1 :]).parts[0]
            found[name + (" (deleted)" if target.endswith(" (deleted)") else "")] += 1
    return found


def serve_a_burst(index: SearchIndex, threads: int = 4) -> None:
    """Searches from several threads at once, so the pool holds several searchers."""
    start = threading.Barrier(threads)

    def client():
        start.wait()
        for words in ("steganography", "sparse attention", "decoding", "graph"):
            index.search(words)

    workers = [threading.Thread(target=client) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)


def test_after_each_add_only_the_live_generation_is_open(small_dir):
    index = SearchIndex(small_dir)
    serve_a_burst(index)
    assert set(open_files(small_dir)) == {layout.current_name(small_dir)}
    for i in range(3):
        add_to_index(small_dir, [paper(f"n{i}", f"Steganography, added paper {i}.")])
        serve_a_burst(index)
        live = layout.current_name(small_dir)
        assert set(open_files(small_dir)) == {live}, i  # the previous generation is still on disk
        assert len([p for p in small_dir.iterdir() if p.name.startswith("gen-")]) == 2
    assert index.search("steganography", limit=20).total == 3 + len([p for p in SMALL if "teganograph" in p.abstract])


def test_a_searcher_in_use_keeps_its_generation_open_until_it_is_returned(small_dir):
    index = SearchIndex(small_dir)
    with index._searcher() as (old, searcher):
        build_index(small_dir, SMALL + [paper("z1", "Steganography again.")])
        serve_a_burst(index)  # opens the new generation, retires the old one
        live = layout.current_name(small_dir)
        assert live != old.name and set(open_files(small_dir)) == {live, old.name}
        assert searcher.doc_count() == len(SMALL)  # still reading the old generation
    assert set(open_files(small_dir)) == {live}
