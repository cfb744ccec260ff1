"""``SearchIndex.warm`` reads the files searches read into the page cache
(``bot.search.index.page_cache``): every one of them once, in the background,
within its bound, and an unreadable file is a warning, not a failure. Whether
the pages stay resident is the kernel's business (and a test's tmp_path may be
memory already): the bytes read are what is checked here; the effect on a cold
start is measured by ``benchmarks/latency_rounds.py --cold``."""

from __future__ import annotations

import logging
import os

import pytest

from bot.search import SearchIndex
from bot.search.index import layout, page_cache

#: What a search reads of a generation, by pattern (``page_cache.ORDER``):
#: a rename by Whoosh or by a build would leave one of them unread.
KINDS = ("len-*.bin", "*.trm", "imp-*.npy", "*.id.col", "*_stored.col", "*.pst")


def generation(index_dir):
    return layout.current_path(index_dir)


def test_warm_reads_every_file_searches_read_once(small_dir):
    index = SearchIndex(small_dir)
    ahead = index.warm()
    assert ahead is not None and ahead.wait(30)
    gen = generation(small_dir)
    files = page_cache.query_files(gen)
    names = {p.name for p in files}
    for pattern in KINDS:  # the patterns name files this build writes
        assert any(p.match(pattern) for p in files), pattern
    left_out = {p.name for p in gen.iterdir()} - names
    assert {"lexicon.json", "meta.json"} <= left_out
    assert not any(n.endswith(".trm") or n.endswith(".pst") for n in left_out)
    assert sorted(ahead.read) == sorted(names) and not ahead.skipped
    assert ahead.bytes == sum(p.stat().st_size for p in files)  # each file once, whole
    assert index.warm() is ahead  # once per generation
    assert index.search("attention").hits


def test_read_ahead_survives_an_unreadable_file(small_dir, tmp_path, caplog):
    gen = generation(small_dir)
    os.symlink(tmp_path / "gone", gen / "zz-broken.pst")  # a postings file that cannot be opened
    index = SearchIndex(small_dir)
    with caplog.at_level(logging.WARNING, logger=page_cache.__name__):
        ahead = index.warm()
        assert ahead.wait(30)
    assert set(ahead.skipped) == {"zz-broken.pst"} and "FileNotFoundError" in ahead.skipped["zz-broken.pst"]
    assert any("zz-broken.pst" in r.getMessage() for r in caplog.records)
    readable = [p for p in page_cache.query_files(gen) if p.name != "zz-broken.pst"]
    assert ahead.bytes == sum(p.stat().st_size for p in readable)
    assert index.search("attention").hits


def test_read_ahead_stops_at_its_bound(small_dir):
    gen = generation(small_dir)
    first, second, *rest = page_cache.query_files(gen)
    limit = first.stat().st_size + 10
    ahead = page_cache.read_ahead(gen, limit=limit, background=False)
    assert ahead.done.is_set() and ahead.bytes == limit
    assert ahead.read == [first.name, second.name]  # the second in part
    assert set(ahead.skipped) == {p.name for p in rest}
    assert all("bound" in why for why in ahead.skipped.values())


def test_read_ahead_reads_without_sendfile(small_dir, monkeypatch):
    def refuse(*_):
        raise OSError(22, "Invalid argument")  # what a file system without splice answers

    monkeypatch.setattr(os, "sendfile", refuse)
    gen = generation(small_dir)
    ahead = page_cache.read_ahead(gen, background=False)
    assert ahead.bytes == sum(p.stat().st_size for p in page_cache.query_files(gen)) > 0
    assert not ahead.skipped


def test_no_read_ahead_without_an_index_or_when_not_asked(small_dir, tmp_path):
    assert SearchIndex(tmp_path / "none").warm() is None
    assert SearchIndex(small_dir).warm(read_ahead=False) is None


def test_a_generation_gone_before_the_read_is_a_warning(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger=page_cache.__name__):
        ahead = page_cache.read_ahead(tmp_path / "gen-gone", background=False)
    assert ahead.bytes == 0 and not ahead.read
    assert any("gen-gone" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("limit", [0, 1])
def test_a_tiny_bound_reads_at_most_it(small_dir, limit):
    ahead = page_cache.read_ahead(generation(small_dir), limit=limit, background=False)
    assert ahead.bytes == limit
