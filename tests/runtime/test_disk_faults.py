"""The start-up build of the default index on a folder that cannot be written:
a full disk, a read-only folder, a path below a file. Each is one line naming
the folder and the fix, exit 1, and nothing a failed build wrote is left —
except that a read-only folder (or a full disk) still holding an index this
code opens, built from older seeds, is served as built with one WARNING.
``index add`` on a full disk is one short line too (first failure and count).

A full disk is a real write failure in a real process: ``ulimit -f``
(RLIMIT_FSIZE) makes the kernel refuse every write past the limit with EFBIG
while the Whoosh build writes its postings, as a full disk refuses with
ENOSPC. A read-only folder is ``chmod a-w`` — real for any user but root,
whom mode bits do not stop; as root the lock file's open fails as a
read-only mount makes it fail (EROFS), the first write a build attempts.
"""

from __future__ import annotations

import errno
import logging
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bot import corpus, search
from bot.core.config import Settings
from bot.core.models import CONSOLE_TEAM, Context
from bot.runtime import wiring
from bot.search.index import layout
from tests.clikit import Ran, cli_env, run, run_process
from tests.kit import SEEDS

#: Bytes one file may reach in the "full disk" processes: the SQLite store
#: fits, the seeds' postings file (about 330 KB) does not.
FILE_LIMIT = 200_000


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def _disk_full_run(args, tmp_path, stdin=None):
    """``paperbot *args`` as a process whose files cannot grow past ``FILE_LIMIT``
    (a file reaching it: EFBIG, "File too large")."""
    r = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        cwd=tmp_path,
        env=cli_env(
            tmp_path,
            {"SLACK_BOT_TOKEN": "xoxb-x", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": "http://127.0.0.1:9/api"},
        ),
        timeout=120,
        preexec_fn=_limit_file_size,
    )
    return Ran(r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace"))


def _left_in(index_dir: Path) -> list[str]:
    return sorted(p.name for p in index_dir.iterdir()) if index_dir.exists() else []


@pytest.mark.parametrize(
    "args, stdin",
    [(["search", "chess"], None), (["console"], b"/paper search chess\n"), (["serve", "--port", "0"], None)],
)
def test_a_full_disk_during_the_start_up_build_is_one_line(tmp_path, args, stdin) -> None:
    r = _disk_full_run(args, tmp_path, stdin)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert len(lines) == 1 or args[0] == "serve", lines  # serve logs its settings line first
    index_dir = tmp_path / "index"
    assert lines[-1].endswith(
        f"cannot write the index at {index_dir}: a file grew past the size limit "
        "(ulimit -f); raise the limit or set PAPERBOT_INDEX_DIR to another folder"
    )
    assert _left_in(index_dir) == ["LOCK"]  # the partial generation is gone; the lock file stays


def test_the_same_build_without_the_limit_works(tmp_path) -> None:
    """The control: what fails above is the limit, not the command."""
    r = run_process(["search", "chess"], tmp_path)
    assert r.returncode == 0 and "chess" in r.stdout.lower(), r.stderr


@pytest.fixture
def read_only(monkeypatch):
    """``read_only(dir)`` makes ``dir`` unwritable for this process (see the module's docstring)."""
    made: list[Path] = []

    def make(index_dir: Path) -> None:
        index_dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            for path in [index_dir, *index_dir.rglob("*")]:
                path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
            made.append(index_dir)
            return

        def refused(directory):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(Path(directory) / layout.LOCK))

        monkeypatch.setattr(layout, "locked", refused)

    yield make
    for index_dir in made:
        for path in [index_dir, *index_dir.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _settings(tmp_path: Path, index_dir: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'p.db'}", index_dir=index_dir, seeds_dir=SEEDS)


def test_a_read_only_folder_with_an_index_from_older_seeds_is_served_as_built(
    tmp_path, read_only, seed_papers, caplog
) -> None:
    index_dir = tmp_path / "ro-index"
    old = [p for p in seed_papers if p.name == "KIStego"]
    search.build_index(index_dir, old, fingerprint="older seeds")
    before = _left_in(index_dir)
    read_only(index_dir)
    caplog.set_level(logging.INFO, logger="bot.runtime.wiring")
    settings = _settings(tmp_path, index_dir)
    assert search.stored_fingerprint(index_dir) != corpus.seeds_fingerprint([SEEDS])
    assert wiring.ensure_default_index(settings) is False
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "serving it as built" in warnings[0].getMessage()
    assert str(index_dir) in warnings[0].getMessage()
    service = wiring.build_service(settings)
    reply = service.command("search image steganography", Context(CONSOLE_TEAM, "C0CONSOLE", "U0CONSOLE"))
    assert reply.page.total == 1 and reply.page.hits[0].paper.name == "KIStego"
    assert _left_in(index_dir) == before


def test_an_empty_read_only_folder_is_one_line(tmp_path, read_only) -> None:
    index_dir = tmp_path / "ro-empty"
    read_only(index_dir)
    with pytest.raises(wiring.IndexUnwritable) as caught:
        wiring.ensure_default_index(_settings(tmp_path, index_dir))
    message = str(caught.value)
    assert message.startswith(f"cannot write the index at {index_dir}: ") and "\n" not in message
    assert message.endswith("set PAPERBOT_INDEX_DIR to another folder")
    assert _left_in(index_dir) in ([], ["LOCK"])


def test_an_index_folder_below_a_file_is_one_line(tmp_path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    for args, stdin in ((["search", "chess"], None), (["console"], "/paper help\n")):
        r = run(args, tmp_path, stdin=stdin, env_extra={"PAPERBOT_INDEX_DIR": str(tmp_path / "afile" / "sub")})
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.strip() == (
            f"Error: the index directory {tmp_path / 'afile' / 'sub'} cannot be made: "
            f"{tmp_path / 'afile'} is a file; set PAPERBOT_INDEX_DIR to another folder"
        )


def test_index_add_on_a_full_disk_is_one_short_line(tmp_path, seed_papers) -> None:
    """``add`` copies the live generation first: ``shutil.copytree`` fails for
    each file too big for the disk, and its error lists them all (8 KB)."""
    index_dir = tmp_path / "index"
    search.build_index(index_dir, seed_papers)
    live = layout.current_name(index_dir)
    (tmp_path / "new.jsonl").write_text('{"id": "n1", "title": "New", "abstract": "Chess engines, again."}\n')
    r = _disk_full_run(["index", "add", "--source", "new.jsonl"], tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (line,) = r.stderr.strip().splitlines()
    too_big = sorted(p.name for p in (index_dir / live).iterdir() if p.stat().st_size > FILE_LIMIT)
    head, _, first = line.rpartition(", the first ")
    assert head == (
        f"Error: cannot write the index at {index_dir}: a file grew past the size limit (ulimit -f); "
        f"raise the limit or give another --index DIR ({len(too_big)} files of the live index "
        "could not be copied"
    ), line
    assert first.rstrip(")") in too_big  # copytree's order is the directory's
    assert len(too_big) >= 2 and len(line) < 300
    assert _left_in(index_dir) == sorted(["CURRENT", "LOCK", live])
    assert "n1" not in search.SearchIndex(index_dir).ids()
