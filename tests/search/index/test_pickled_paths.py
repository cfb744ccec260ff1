"""Indexes built before ``bot/search/`` was split into query/, scoring/ and
index/ still open, and new ones pickle only the import paths old code knows.

``fixtures/index_before_split`` is a generation built from ``searchkit.SMALL``
by the code of main at 0200041, before the split (fingerprint
"before-the-split"). Whoosh pickles each generation's schema, analyzers
included, by module and class name (docs/search.md "Whoosh internals: one
module, one version guard").
"""

from __future__ import annotations

import io
import pickle
import re
import shutil
from pathlib import Path

from bot.search import SearchIndex, build_index, opens, stored_fingerprint
from bot.search.index.analysis import PaperAnalyzer
from bot.search.index.schema import make_schema
from bot.search.ranking import PaperAnalyzer as PickledName
from tests.search.searchkit import SMALL

BEFORE = Path(__file__).parent / "fixtures" / "index_before_split"
#: A class named by a protocol-2 pickle (Whoosh's TOC): ``c<module>\n<name>\n``.
_GLOBAL = re.compile(rb"c(bot[\w.]*)\n(\w+)\n")
QUERIES = ["sparse attention", "MoE", '"speculative decoding"', "draft model -sparse", "FlashSparse", "title:experts"]


class _Recording(pickle.Unpickler):
    """Loads a pickle and records every class it names (``find_class``:
    https://docs.python.org/3/library/pickle.html#restricting-globals)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.names: set[str] = set()

    def find_class(self, module: str, name: str):
        self.names.add(f"{module}.{name}")
        return super().find_class(module, name)


def _page(index: SearchIndex, text: str) -> tuple:
    page = index.search(text, limit=10)
    return page.total, page.notes, [(h.paper, h.score, h.snippet) for h in page.hits]


def test_an_index_built_before_the_split_opens_and_ranks_as_a_new_one(tmp_path):
    old_dir = tmp_path / "before"
    shutil.copytree(BEFORE, old_dir)  # the fixture itself is never written to
    build_index(tmp_path / "now", SMALL)
    assert opens(old_dir) and stored_fingerprint(old_dir) == "before-the-split"
    old, now = SearchIndex(old_dir), SearchIndex(tmp_path / "now")
    assert old.count() == now.count() == len(SMALL)
    for text in QUERIES:
        assert _page(old, text) == _page(now, text), text
    assert [h.paper.id for h in old.similar("p1")] == [h.paper.id for h in now.similar("p1")]
    assert old.get("p2") == now.get("p2") and old.get("p2") is not None
    assert _page(old, "sparse attention")[2][0][0].id == "p1"  # it really searched


def test_new_indexes_pickle_only_the_classes_old_indexes_name():
    tocs = sorted(BEFORE.glob("gen-*/_MAIN_*.toc"))
    assert tocs
    old = {f"{m.decode()}.{n.decode()}" for toc in tocs for m, n in _GLOBAL.findall(toc.read_bytes())}
    loading = _Recording(pickle.dumps(make_schema(), 2))  # as Whoosh's TOC pickles it
    loading.load()
    now = {name for name in loading.names if name.startswith("bot.")}
    assert old == now == {"bot.search.ranking.PaperAnalyzer"}
    assert PickledName is PaperAnalyzer
