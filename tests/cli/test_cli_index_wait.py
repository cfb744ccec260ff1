"""`paperbot index add` / `index build` wait their turn (``--wait SECONDS``,
default 300) while another build or add holds the index's lock, say so, and
then do all of their work; when the wait runs out they fail with the lock's
own message and change nothing. In-process (``tests.clikit``); the other
writer is a thread of this process holding ``DIR/LOCK`` (flock locks belong
to each open file, so it excludes the CLI as another process would)."""

import json
import re
import threading

import pytest

from bot import search
from bot.search.index import layout
from tests.clikit import run
from tests.search.searchkit import paper


def jsonl(path, *ids):
    path.write_text(
        "".join(json.dumps({"id": i, "title": f"Paper {i}", "abstract": f"Robots fold {i}."}) + "\n" for i in ids)
    )
    return path


@pytest.fixture
def index_dir(tmp_path):
    d = tmp_path / "idx"
    search.build_index(d, [paper("b1", "Graph colouring, quickly.")])
    return d


@pytest.fixture
def busy_seen(monkeypatch):
    """An Event set once the CLI's writer has found the lock taken (so the
    other writer can let go knowing the CLI did wait)."""
    seen = threading.Event()
    for name in ("add_to_index", "build_index"):
        real = getattr(search, name)

        def watched(*args, _real=real, **kwargs):
            try:
                return _real(*args, **kwargs)
            except search.IndexBusy:
                seen.set()
                raise

        monkeypatch.setattr(search, name, watched)
    return seen


def hold_lock(index_dir, until: threading.Event, most: float = 30) -> threading.Thread:
    """Hold ``index_dir``'s lock in a thread until ``until`` is set (``most`` seconds at most)."""
    taken = threading.Event()

    def holder():
        with layout.locked(index_dir):
            taken.set()
            until.wait(most)

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    assert taken.wait(10)
    return thread


def ids(index_dir):
    return search.SearchIndex(index_dir).ids()


def titles(index_dir):
    index = search.SearchIndex(index_dir)
    return {index.get(i).title for i in index.ids()}


def test_add_waits_for_the_other_writer_then_adds_everything(tmp_path, index_dir, busy_seen):
    other = hold_lock(index_dir, busy_seen)
    r = run(
        [
            "index",
            "add",
            "--source",
            str(jsonl(tmp_path / "a.jsonl", "a1", "a2")),
            "--index",
            str(index_dir),
            "--wait",
            "60",
        ],
        tmp_path,
    )
    other.join(30)
    assert r.returncode == 0, r.stderr
    assert f"another index build or add is running on {index_dir}; waiting up to 60 s" in r.stderr
    assert "waited " in r.stderr and r.stdout.startswith("added or updated 2 papers")
    assert titles(index_dir) == {"Graph colouring, quickly.", "Paper a1", "Paper a2"}


def test_add_during_a_real_build_lands_in_the_new_index(tmp_path, index_dir, busy_seen):
    reading = threading.Event()

    class SlowSource:  # a build reads its sources inside the lock
        def __iter__(self):
            reading.set()
            busy_seen.wait(30)
            return iter([paper("n1", "A new build about sorting."), paper("n2", "Another on hashing.")])

    build = threading.Thread(target=search.build_index, args=(index_dir, SlowSource()), daemon=True)
    build.start()
    assert reading.wait(10)
    r = run(["index", "add", "--source", str(jsonl(tmp_path / "a.jsonl", "a1")), "--index", str(index_dir)], tmp_path)
    build.join(30)
    assert r.returncode == 0, r.stderr
    assert "waiting up to 300 s" in r.stderr
    assert titles(index_dir) == {"A new build about sorting.", "Another on hashing.", "Paper a1"}


def test_build_waits_its_turn_too(tmp_path, index_dir, busy_seen):
    other = hold_lock(index_dir, busy_seen)
    r = run(
        [
            "index",
            "build",
            "--source",
            str(jsonl(tmp_path / "b.jsonl", "x1")),
            "--index",
            str(index_dir),
            "--wait",
            "60",
        ],
        tmp_path,
    )
    other.join(30)
    assert r.returncode == 0, r.stderr
    assert "waiting up to 60 s" in r.stderr and r.stdout.startswith("indexed 1 paper")
    assert len(ids(index_dir)) == 1


def test_the_wait_runs_out_with_the_clear_error_and_nothing_added(tmp_path, index_dir):
    release = threading.Event()
    other = hold_lock(index_dir, release)
    try:
        r = run(
            [
                "index",
                "add",
                "--source",
                str(jsonl(tmp_path / "a.jsonl", "a1")),
                "--index",
                str(index_dir),
                "--wait",
                "0.6",
            ],
            tmp_path,
        )
    finally:
        release.set()
        other.join(30)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "waiting up to 0.6 s" in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Error: Another index build or add is running on {index_dir}")
    assert re.search(r"Waited \d+ s \(--wait SECONDS\)\. Nothing was added\.$", last), last
    assert len(ids(index_dir)) == 1


def test_wait_zero_fails_at_once_as_before(tmp_path, index_dir):
    release = threading.Event()
    other = hold_lock(index_dir, release)
    try:
        r = run(["index", "build", "--index", str(index_dir), "--wait", "0"], tmp_path)
    finally:
        release.set()
        other.join(30)
    assert r.returncode == 1 and "waiting" not in r.stderr
    assert r.stderr.strip() == (
        f"Error: Another index build or add is running on {index_dir} "
        "(it holds LOCK there); wait for it to finish and try again."
    )
