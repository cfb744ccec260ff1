"""The bulk segment writer writes what Whoosh's own SegmentWriter writes.

Both write the real seed papers (plus documents that exercise more than 128
postings per term, absent optional fields and the one-byte length encoding);
then every field's terms, every posting's docnum/weight/value, the block
statistics Whoosh's reader sees (per term and per block), field lengths, stored fields and columns
are compared through Whoosh's reader.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.index import TOC

from bot.search.index import fanout
from bot.search.index.build import WRITER_ARGS, build_index
from bot.search.index.bulk_documents import bulk_document
from bot.search.index.bulk_segment import INDEXNAME, SegmentBuilder, stored_length
from bot.search.index.schema import make_schema, paper_to_document


def _extra_papers(seed_papers):
    """Papers that stress the writer: a word in 300 papers (3 blocks), a long
    abstract (lengths above 255 are stored lossily), no name, and an author."""
    base = seed_papers[0]
    extra = []
    for i in range(300):
        abstract = f"Common word alpha appears here, paper number {i}. " + "beta " * (i % 7)
        if i == 5:
            abstract += " ".join(f"word{j}" for j in range(1500))
        extra.append(
            dataclasses.replace(
                base,
                id=f"px{i:03d}",
                name="" if i % 2 else f"Name{i}",
                abstract=abstract,
                title=f"Title alpha {i}",
                authors=("Ada Lovelace",) if i % 3 == 0 else (),
            )
        )
    return extra


def _whoosh_reference(path: Path, papers, chunks: int) -> None:
    """Whoosh's SegmentWriter, one unmerged segment per chunk."""
    path.mkdir()
    ix = whoosh_index.create_in(str(path), make_schema())
    analyzer = ix.schema["abstract"].analyzer
    for c in range(chunks):
        writer = ix.writer(**WRITER_ARGS)
        for paper in papers[len(papers) * c // chunks : len(papers) * (c + 1) // chunks]:
            writer.add_document(**paper_to_document(paper, analyzer)[0])
        writer.commit(merge=False)


def _bulk(path: Path, papers, chunks: int) -> None:
    path.mkdir()
    ix = whoosh_index.create_in(str(path), make_schema())
    analyzer = ix.schema["abstract"].analyzer
    segments = []
    for c in range(chunks):
        builder = SegmentBuilder(path, ix.schema)
        for paper in papers[len(papers) * c // chunks : len(papers) * (c + 1) // chunks]:
            builder.add(paper_to_document(paper, analyzer)[0])
        segments.append(builder.finish())
    TOC(ix.schema, segments, ix.latest_generation() + 1).write(ix.storage, INDEXNAME)


def _snapshot(path: Path, blocks: bool = True) -> dict:
    """Everything a reader can observe, by global docnum; with ``blocks``,
    postings and term statistics per segment, with their block statistics."""
    ix = whoosh_index.open_dir(str(path))
    out: dict = {}
    with ix.reader() as reader:
        n = reader.doc_count_all()
        out["count"] = n
        out["stored"] = [reader.stored_fields(d) for d in range(n)]
        parts = (
            (reader.leaf_readers() if hasattr(reader, "leaf_readers") else [(reader, 0)]) if blocks else [(reader, 0)]
        )
        for name in ix.schema.names():
            field = ix.schema[name]
            out[name, "field_length"] = reader.field_length(name)
            out[name, "lengths"] = [reader.doc_field_length(d, name) for d in range(n)]
            if field.column_type:
                column = reader.column_reader(name)
                out[name, "column"] = [column[d] for d in range(n)]
            if not field.indexed:
                continue
            for part, offset in parts:
                for term in part.lexicon(name):
                    info = part.term_info(name, term)
                    matcher = part.postings(name, term)
                    postings = []
                    while matcher.is_active():
                        posting = (offset + matcher.id(), matcher.weight(), matcher.value())
                        if blocks:
                            posting += (
                                matcher.block_min_length(),
                                matcher.block_max_length(),
                                matcher.block_max_weight(),
                                matcher.block_max_id(),
                            )
                        postings.append(posting)
                        matcher.next()
                    out[name, term, offset] = (
                        postings,
                        info.weight(),
                        info.doc_frequency(),
                        info.max_weight(),
                        *((info.min_length(), info.max_length()) if blocks else ()),
                    )
    return out


@pytest.mark.parametrize("chunks", [1, 2])
def test_bulk_segments_read_like_whoosh_segments(tmp_path, seed_papers, chunks) -> None:
    papers = list(seed_papers) + _extra_papers(seed_papers)
    _whoosh_reference(tmp_path / "whoosh", papers, chunks)
    _bulk(tmp_path / "bulk", papers, chunks)
    want, got = _snapshot(tmp_path / "whoosh"), _snapshot(tmp_path / "bulk")
    assert len(want[("abstract", b"alpha", 0)][0]) > 128  # 2+ blocks      # the probe has 3 blocks
    assert max(want[("abstract", "lengths")]) > 1000  # and a lossy length
    assert sorted(map(str, want)) == sorted(map(str, got))
    for key in want:
        assert got[key] == want[key], key


def test_stored_length_is_whoosh_round_trip() -> None:
    assert [stored_length(n) for n in (0, 1, 5, 40, 1000)] == [0, 1, 5, 40, 1032]
    assert stored_length(1032) == 1032


def test_parallel_build_equals_in_process_build(tmp_path, seed_papers, monkeypatch) -> None:
    """The forked two-process path writes two segments with the same content."""
    papers = list(seed_papers) + _extra_papers(seed_papers)
    build_index(tmp_path / "one", papers)
    monkeypatch.setattr("bot.search.index.build.PARALLEL_MIN", 10)
    monkeypatch.setattr(fanout, "usable_processes", lambda wanted: 2)
    seen: list[int] = []
    build_index(tmp_path / "two", papers, progress=seen.append)
    assert seen[-1] == len(papers)
    one = _snapshot(next((tmp_path / "one").glob("gen-*")), blocks=False)
    two = _snapshot(next((tmp_path / "two").glob("gen-*")), blocks=False)
    assert one == two
    segments = whoosh_index.open_dir(str(next((tmp_path / "two").glob("gen-*")))).reader()
    assert len(segments.leaf_readers()) == 2


def test_a_failing_worker_fails_the_build_and_keeps_the_old_index(tmp_path, seed_papers, monkeypatch) -> None:
    build_index(tmp_path, seed_papers)
    before = (tmp_path / "CURRENT").read_text()
    monkeypatch.setattr("bot.search.index.build.PARALLEL_MIN", 10)
    monkeypatch.setattr(fanout, "usable_processes", lambda wanted: 2)

    def broken(paper, text, plain, *rules):
        if paper.id == seed_papers[-1].id:  # only the second worker's chunk
            raise MemoryError("simulated")
        return bulk_document(paper, text, plain, *rules)

    monkeypatch.setattr("bot.search.index.bulk_documents.bulk_document", broken)
    with pytest.raises(fanout.WorkerFailed, match="MemoryError: simulated"):
        build_index(tmp_path, seed_papers)
    assert (tmp_path / "CURRENT").read_text() == before
    assert len(list(tmp_path.glob("gen-*"))) == 1


def test_a_worker_os_error_comes_back_as_itself(tmp_path, seed_papers, monkeypatch):
    """A full disk in a worker is an OSError for the CLI to explain in one line."""
    import errno

    monkeypatch.setattr("bot.search.index.build.PARALLEL_MIN", 10)
    monkeypatch.setattr(fanout, "usable_processes", lambda wanted: 2)

    def full(paper, text, plain, *rules):
        if paper.id == seed_papers[-1].id:
            raise OSError(errno.ENOSPC, "No space left on device")
        return bulk_document(paper, text, plain, *rules)

    monkeypatch.setattr("bot.search.index.bulk_documents.bulk_document", full)
    with pytest.raises(OSError) as info:
        build_index(tmp_path, seed_papers)
    assert info.value.errno == errno.ENOSPC and not list(tmp_path.glob("gen-*"))


KILL_SCRIPT = """
import sys, time
from pathlib import Path
import bot.search.index.build as build
import bot.search.index.bulk_documents as bulkdocs
from bot.search.index import fanout
from tests.search.searchkit import paper
build.PARALLEL_MIN = 10
fanout.usable_processes = lambda wanted: 2
real = bulkdocs.bulk_document
def slow(p, text, plain, *rules):
    time.sleep(0.05)
    return real(p, text, plain, *rules)
bulkdocs.bulk_document = slow
print("building", flush=True)
build.build_index(Path(sys.argv[1]), [paper(f"k{i}", f"paper {i} on things") for i in range(600)])
"""


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_die_with_a_killed_parent_and_free_the_lock(tmp_path):
    """kill -9 of `paperbot index build` (an out-of-memory kill) must not leave
    workers holding DIR/LOCK (an adversarial finding: every later build failed)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from bot.search.index import layout

    root = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen(
        [sys.executable, "-c", KILL_SCRIPT, str(tmp_path / "ix")],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert proc.stdout.readline().strip() == "building"
    deadline = time.monotonic() + 20
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, workers))
    with layout.locked(tmp_path / "ix"):  # IndexBusy if a worker still held it
        pass


@pytest.mark.parametrize("flush", [1 << 20, 7])
def test_a_build_reads_like_whoosh_segments(tmp_path, seed_papers, monkeypatch, flush) -> None:
    """``build_index`` (bulk documents from ``bot.search.index.bulk_documents``) writes
    what Whoosh's writer writes from ``paper_to_document`` — also when the
    posting entries are moved into numpy chunks every few entries."""
    monkeypatch.setattr("bot.search.index.bulk_segment._Postings.FLUSH", flush)
    papers = list(seed_papers) + _extra_papers(seed_papers)
    _whoosh_reference(tmp_path / "whoosh", papers, 1)
    build_index(tmp_path / "built", papers)
    want = _snapshot(tmp_path / "whoosh")
    got = _snapshot(next((tmp_path / "built").glob("gen-*")))
    assert sorted(map(str, want)) == sorted(map(str, got))
    for key in want:
        assert got[key] == want[key], key
