"""Index directory layout: generations, CURRENT, the lock, failures, cleanup."""

import os
import threading

import pytest

from bot.search import IndexBusy, IndexMissing, SearchIndex, add_to_index, build_index, stored_fingerprint
from bot.search.index import layout
from tests.search.searchkit import SMALL, paper


def generations(d):
    return sorted(p.name for p in d.iterdir() if p.name.startswith("gen-"))


def test_build_writes_a_generation_and_current(tmp_path):
    d = tmp_path / "ix"
    name = build_index(d, SMALL, fingerprint="abc")
    assert (d / "CURRENT").read_text().strip() == name
    assert generations(d) == [name]
    for f in ("meta.json", "lexicon.json"):
        assert (d / name / f).is_file()
    meta = layout.read_json(d / name / "meta.json")
    assert meta["doc_count"] == len(SMALL) and meta["fingerprint"] == "abc"
    assert stored_fingerprint(d) == "abc"
    assert SearchIndex(d).count() == len(SMALL)


def test_missing_index(tmp_path):
    assert stored_fingerprint(tmp_path / "nothing") is None
    with pytest.raises(IndexMissing) as err:
        SearchIndex(tmp_path / "nothing").search("attention")
    assert "paperbot index build" in str(err.value)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "CURRENT").write_text("gen-gone\n")
    with pytest.raises(IndexMissing):
        SearchIndex(tmp_path / "x").count()


def test_failed_build_keeps_current_and_removes_its_generation(small_dir):
    before = (small_dir / "CURRENT").read_text()
    gens = generations(small_dir)

    def exploding():
        yield paper("n1", "a new paper about graphs")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        build_index(small_dir, exploding())
    assert (small_dir / "CURRENT").read_text() == before
    assert generations(small_dir) == gens
    assert SearchIndex(small_dir).count() == len(SMALL)


def test_duplicate_ids_fail_the_build(tmp_path, small_dir):
    before = (small_dir / "CURRENT").read_text()
    with pytest.raises(ValueError, match="p1"):
        build_index(small_dir, [SMALL[0], SMALL[0]])
    assert (small_dir / "CURRENT").read_text() == before


def test_concurrent_build_is_refused_with_index_busy(small_dir):
    started, release = threading.Event(), threading.Event()
    errors = []

    def slow_papers():
        yield paper("s1", "slow paper one")
        started.set()
        release.wait(30)
        yield paper("s2", "slow paper two")

    def run():
        try:
            build_index(small_dir, slow_papers())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    try:
        assert started.wait(30)
        with pytest.raises(IndexBusy) as err:
            build_index(small_dir, SMALL)
        assert "wait for it to finish" in str(err.value)
        with pytest.raises(IndexBusy):
            add_to_index(small_dir, SMALL[:1])
    finally:
        release.set()
        t.join(30)
    assert not errors
    assert sorted(SearchIndex(small_dir).ids()) == ["s1", "s2"]


def test_next_search_sees_a_new_build_and_old_generations_go(small_dir):
    index = SearchIndex(small_dir)
    assert index.search("steganography").hits[0].paper.id == "p5"
    first = generations(small_dir)[0]
    second = build_index(small_dir, [paper("q1", "Steganography in audio files.")])
    assert [h.paper.id for h in index.search("steganography").hits] == ["q1"]
    assert set(generations(small_dir)) == {first, second}  # previous kept
    third = build_index(small_dir, [paper("r1", "Steganography in video.")])
    assert set(generations(small_dir)) == {second, third}  # older removed
    assert index.ids() == ["r1"]


def test_a_searcher_open_across_rebuilds_keeps_working(small_dir):
    index = SearchIndex(small_dir)
    with index._searcher() as (gen, searcher):
        build_index(small_dir, [paper("q1", "Steganography in audio files.")])
        build_index(small_dir, [paper("r1", "Steganography in video.")])
        # the generation this searcher reads has been deleted meanwhile
        docnums = list(searcher.document_numbers())
        assert len(docnums) == len(SMALL)
        assert all(searcher.stored_fields(d)["doc"] for d in docnums)
    assert index.ids() == ["r1"]


def test_searches_in_threads_during_rebuilds_never_fail(small_dir):
    index = SearchIndex(small_dir)
    stop, failures, seen = threading.Event(), [], set()

    def searching():
        while not stop.is_set():
            try:
                page = index.search("steganography")
                seen.update(h.paper.id for h in page.hits)
            except Exception as exc:
                failures.append(exc)

    threads = [threading.Thread(target=searching) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for i in range(4):
            build_index(small_dir, SMALL + [paper(f"z{i}", "Steganography again.")])
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not failures
    assert index.search("steganography", limit=20).total == len([p for p in SMALL if "teganograph" in p.abstract]) + 1


def test_add_updates_and_adds_without_rebuild(small_dir):
    before = layout.current_name(small_dir)
    changed = paper("p3", "Speculative decoding, revised: now with tree drafts.", name="DraftKing")
    assert add_to_index(small_dir, [changed, paper("p9", "Brand new steganography paper.")]) == 2
    assert layout.current_name(small_dir) != before
    index = SearchIndex(small_dir)
    assert index.count() == len(SMALL) + 1
    assert "tree drafts" in index.get("p3").abstract
    assert stored_fingerprint(small_dir) == "fp-small"
    assert {"p5", "p9"} <= {h.paper.id for h in index.search("steganography").hits}


def test_add_to_an_empty_directory_creates_the_index(tmp_path):
    assert add_to_index(tmp_path / "new", SMALL[:2]) == 2
    assert SearchIndex(tmp_path / "new").count() == 2


def test_progress_is_reported(tmp_path):
    seen = []
    many = [paper(f"m{i}", f"paper number {i} about attention") for i in range(250)]
    build_index(tmp_path / "ix", many, progress=seen.append)
    assert seen == [100, 200, 250]


def test_parallel_build_for_big_corpora(tmp_path, monkeypatch):
    from bot.search.index import build as build_module

    monkeypatch.setattr(build_module, "PARALLEL_MIN", 300)
    monkeypatch.setattr(build_module, "MAX_PROCS", 2)
    # as `paperbot index build` runs: one thread (fork is refused otherwise)
    monkeypatch.setattr("bot.core.procs.threading.active_count", lambda: 1)
    many = [paper(f"b{i:04d}", f"paper {i} about topic{i % 7} and attention") for i in range(900)]
    seen = []
    build_index(tmp_path / "ix", many, progress=seen.append)
    index = SearchIndex(tmp_path / "ix")
    assert index.count() == 900 and index.ids() == sorted(p.id for p in many)
    assert index.search("topic3", limit=100).total == len([i for i in range(900) if i % 7 == 3])
    assert seen[-1] == 900
    segments = list(layout.current_path(tmp_path / "ix").glob("*.trm"))
    assert len(segments) == (2 if (os.cpu_count() or 1) >= 2 else 1)  # one per process


def test_time_limit_gives_partial_results_with_a_note(small_dir):
    from bot.search import Ranking

    page = SearchIndex(small_dir, ranking=Ranking(time_limit_s=0.0)).search("attention models")
    assert any("took too long" in note for note in page.notes)


def test_builds_in_a_threaded_process_stay_in_process(tmp_path, monkeypatch):
    """A running bot (threads) never forks: one segment, same results."""
    from bot.search.index import build as build_module

    monkeypatch.setattr(build_module, "PARALLEL_MIN", 300)
    monkeypatch.setattr("bot.core.procs.threading.active_count", lambda: 5)
    many = [paper(f"b{i:04d}", f"paper {i} about topic{i % 7}") for i in range(400)]
    build_index(tmp_path / "ix", many)
    assert len(list(layout.current_path(tmp_path / "ix").glob("*.trm"))) == 1
    assert SearchIndex(tmp_path / "ix").count() == 400


def test_only_generations_this_code_names_are_ever_deleted(tmp_path):
    keep = tmp_path / "gen-figures"
    keep.mkdir()
    (keep / "plot.png").write_text("important")
    build_index(tmp_path, [paper("k1", "one paper")])
    build_index(tmp_path, [paper("k1", "one paper")])
    build_index(tmp_path, [paper("k1", "one paper")])
    assert (keep / "plot.png").read_text() == "important"
    assert len([p for p in tmp_path.glob("gen-2*")]) == 2  # the live one and the previous


def test_an_interrupt_right_after_publishing_keeps_the_live_generation(tmp_path, monkeypatch):
    real = layout.os.replace

    def replace_then_interrupt(src, dst):
        real(src, dst)
        if str(dst).endswith("CURRENT"):
            raise KeyboardInterrupt

    monkeypatch.setattr(layout.os, "replace", replace_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_index(tmp_path, [paper("k1", "one paper about kernels")])
    monkeypatch.undo()
    assert SearchIndex(tmp_path).search("kernels").total == 1


def test_a_failed_publish_leaves_no_temp_file(tmp_path, monkeypatch):
    def no_space(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(layout.os, "replace", no_space)
    with pytest.raises(OSError):
        build_index(tmp_path, [paper("k1", "one paper")])
    assert [p.name for p in tmp_path.iterdir()] == ["LOCK"]
