"""Builds the bot's objects from ``Settings`` — shared by the CLI, the console
and the composition root ``bot.runtime.processes`` so each of them stays a thin wrapper.

Entry-point layer (docs/architecture.md "Layers"): the one place below the
CLI where the index, the store, the announcer and the service meet.
"""

from __future__ import annotations

import errno
import logging
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from bot import corpus, search
from bot.core.config import Settings
from bot.core.ports import Poster, TeamPosters

if TYPE_CHECKING:
    from bot.service.service import Service
    from bot.store import Store

# The store (SQLAlchemy), the service and the renderer (Slack's SDK) are imported by the
# functions that build them: `paperbot search` and `index build` open only the index.

log = logging.getLogger(__name__)


class IndexUnwritable(Exception):
    """The default index must be built but cannot be written where it is
    configured; ``str(e)`` is one line naming the folder and the fix."""


def seed_paths(settings: Settings) -> list[Path]:
    """The seed inputs: ``PAPERBOT_SEEDS`` (a folder or a file)."""
    return [settings.seeds_dir]


def no_seeds(settings: Settings, index: bool = True) -> str:
    """What to do when no seed path exists (paperbot run from another folder, a
    mistyped ``PAPERBOT_SEEDS``): one line naming the paths, the folder relative paths
    were read from, and the variables to set (``.env.example``).

    Args:
        settings: where the seeds and the index were looked for.
        index: True to say there is no index to serve either (``console``, ``search``, ``serve``).
    """
    where = ", ".join(map(str, seed_paths(settings)))
    also = f" and no index in {settings.index_dir} to serve" if index else ""
    return (
        f"no papers at {where}{also}. Relative paths (the default seeds/ and index/ too) are read "
        f"from the folder paperbot runs in, {Path.cwd()}: cd into the paperbot project folder, or set "
        "PAPERBOT_SEEDS (a file or folder of papers) and PAPERBOT_INDEX_DIR to absolute paths, "
        "in the environment or in .env"
    )


#: Seconds a starting process waits for another process's build of the
#: default index (a 100k-paper build takes about 7 minutes on 2 busy cores,
#: benchmarks/results/search_bench_100k.txt: 444 s wall).
START_WAIT_S = 900.0


def ensure_default_index(settings: Settings, progress=None, wait_s: float = START_WAIT_S) -> bool:
    """Build the default index when it is missing or was built from other seeds.

    Only the *default* index (``PAPERBOT_INDEX_DIR``) is ever built
    implicitly (docs/interfaces.md "Index directory layout"). Without any seeds
    (``PAPERBOT_SEEDS`` absent) an existing index is served as built. When
    another process is building it (processes started together on one
    folder), this one logs one INFO line, waits up to ``wait_s`` seconds for
    the lock, then checks again and uses what the other built (never
    building twice). Returns True when this process ran a build.

    A folder that cannot be written (read-only, full, below a file) is no
    error while it holds an index this code opens: that index is served as
    built, with one WARNING. Whatever a failed build wrote is removed
    (``search.build_index``).

    Args:
        settings: where the index and the seeds are.
        progress: the build's progress display (``bot.cli.progress.progress``), or None.
        wait_s: most seconds to wait for another process's build.

    Raises:
        corpus.CorpusError: when the seeds cannot be read (or are absent and
            there is no index to serve).
        search.IndexBusy: another process still builds after ``wait_s`` seconds.
        IndexUnwritable: a build is needed and the folder cannot be written.
    """
    paths = seed_paths(settings)
    if not any(Path(p).exists() for p in paths) and search.has_index(settings.index_dir):
        # Seeds are needed only to build the default index; one that exists is
        # served as built (docs/interfaces.md "Environment variables": PAPERBOT_SEEDS).
        log.info("serving the index in %s as built: no seeds at %s", settings.index_dir, ", ".join(map(str, paths)))
        return False
    if not any(Path(p).exists() for p in paths):
        raise corpus.CorpusError(no_seeds(settings))
    fingerprint = corpus.seeds_fingerprint(paths)
    index_dir = Path(settings.index_dir)
    if not _needs_build(index_dir, fingerprint):
        return False

    def needed() -> bool:  # again, inside the lock: another process may have just built it
        if not _needs_build(index_dir, fingerprint):
            return False
        log.info("building the default index from %s", ", ".join(map(str, paths)))
        return True

    def on_wait(so_far: float) -> None:
        if not said:
            said.append(True)
            log.info("another process is building the index in %s; waiting up to %.0f s for it", index_dir, wait_s)

    said: list[bool] = []
    try:
        gen, _ = search.take_turn(
            lambda: search.build_index(
                index_dir, LazyPapers(paths), fingerprint=fingerprint, progress=progress, needed=needed
            ),
            wait_s,
            on_wait,
        )
    except OSError as e:
        if not search.opens(index_dir):
            raise IndexUnwritable(write_error(index_dir, e, "PAPERBOT_INDEX_DIR")) from None
        log.warning(
            "the index in %s was built from other seeds than %s and cannot be rebuilt there (%s); serving it as built",
            index_dir,
            ", ".join(map(str, paths)),
            e.strerror or e,
        )
        return False
    return gen is not None


#: Why a folder cannot be written, by errno, with the fix (``{elsewhere}``
#: names the setting that points at another folder).
_WRITE_PROBLEMS = {
    errno.ENOSPC: "no space left on the device; free some space there or {elsewhere}",
    errno.EDQUOT: "the disk quota is used up; free some space there or {elsewhere}",
    errno.EFBIG: "a file grew past the size limit (ulimit -f); raise the limit or {elsewhere}",
    errno.EROFS: "the file system is read-only; mount it read-write or {elsewhere}",
    errno.EACCES: "permission denied; let this user write there or {elsewhere}",
    errno.EPERM: "the operation is not permitted; let this user write there or {elsewhere}",
}


def write_error(target: Path, e: OSError, setting: str = "--index DIR") -> str:
    """One line for an OSError while writing the index at ``target``: what is
    wrong and the fix, ``setting`` being how to choose another folder
    (``"--index DIR"``, ``"PAPERBOT_INDEX_DIR"``).

    Args:
        target: the index folder.
        e: the error.
        setting: how the user chooses another folder ("--index DIR", "PAPERBOT_INDEX_DIR").
    """
    target = Path(target)
    if isinstance(e, shutil.Error):
        return _copy_error(target, e, setting)
    elsewhere = f"set {setting} to another folder" if setting.isupper() else f"give another {setting}"
    if target.exists() and not target.is_dir():
        return f"the index directory {target} is a file; give a directory (it is created when missing)"
    if e.errno == errno.ENOTDIR or isinstance(e, NotADirectoryError):
        blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        blocker = f"{blocker} is a file" if blocker else "a part of its path is a file"
        return f"the index directory {target} cannot be made: {blocker}; {elsewhere}"
    why = _WRITE_PROBLEMS.get(e.errno, f"{e.strerror or e}; {{elsewhere}}")
    return f"cannot write the index at {target}: {why.format(elsewhere=elsewhere)}"


def _copy_error(target: Path, e: shutil.Error, setting: str) -> str:
    """``write_error`` for ``shutil.copytree``'s error (``index add`` copies the
    live generation first): its argument is a list of ``(source, destination,
    reason)`` for every file that failed — summarised as the first one's
    reason and the count, the reason's errno read back from its text
    ("[Errno 28] No space left on device: …", the form ``str(OSError)`` has)."""
    failures = e.args[0] if e.args and isinstance(e.args[0], list) and e.args[0] else None
    if failures is None:
        return f"cannot write the index at {target}: {' '.join(str(e).split())[:200]}"
    _, destination, reason = failures[0]
    code = re.match(r"\[Errno (\d+)\] ([^:]*)", str(reason))
    first = write_error(
        target, OSError(int(code.group(1)), code.group(2)) if code else OSError(str(reason)[:120]), setting
    )
    count = f"{len(failures)} files" if len(failures) > 1 else "1 file"
    return f"{first} ({count} of the live index could not be copied, the first {Path(str(destination)).name})"


def _needs_build(index_dir: Path, fingerprint: str) -> bool:
    """True when the default index in ``index_dir`` is missing, was built from
    other seeds, or cannot be opened by this code (then it is rebuilt like
    changed seeds) — but never for an index built from explicit sources."""
    stored = search.stored_fingerprint(index_dir)
    if stored == fingerprint and search.opens(index_dir):
        return False
    if stored is None and (index_dir / "CURRENT").exists():
        # Built by `paperbot index build --source …`: the operator's corpus, not
        # the seeds — never replace it implicitly.
        log.info("keeping %s: it was built from explicit sources", index_dir)
        return False
    return True


class LazyPapers:
    """An iterable that reads ``paths`` only when iterated (inside the build's
    lock); ``total`` is the number of papers once read, ``stats`` the load's
    ``corpus.LoadStats``; ``accepted_only`` as for ``corpus.load_papers``.

    Args:
        paths: the source files.
        accepted_only: leave out papers not accepted at their venue.
    """

    def __init__(self, paths: list[Path], accepted_only: bool = False) -> None:
        self.paths = paths
        self.total = 0
        self.accepted_only = accepted_only
        self.stats = corpus.LoadStats()

    def __iter__(self):
        papers = corpus.load_papers(self.paths, stats=self.stats, accepted_only=self.accepted_only)
        self.total = len(papers)
        return iter(papers)


def open_store(settings: Settings) -> Store:
    """Open (and create or migrate) the SQL store at ``DATABASE_URL``.

    Raises:
        StoreError: the database cannot be opened, or it is SQLite while
            ``DYNO`` is set — on Heroku-style platforms every process has its
            own disk, so web and clock would each see their own file (README
            "Heroku-style platforms").
    """
    from bot.store import Store, StoreError

    if settings.dyno and settings.database_url.startswith("sqlite"):
        raise StoreError(
            f"DATABASE_URL is SQLite but this is dyno {settings.dyno}: dynos share no disk, "
            "so web and clock would not share subscriptions; attach PostgreSQL "
            "(heroku addons:create heroku-postgresql) and let it set DATABASE_URL"
        )
    return Store(settings.database_url)


def build_service(
    settings: Settings,
    poster: Poster | TeamPosters | None = None,
    *,
    index_dir: Path | None = None,
    ensure_index: bool = True,
    store: Store | None = None,
) -> Service:
    """The ``Service`` over the configured index and store.

    Args:
        settings: configuration.
        poster: where channel confirmations go (Slack poster, a distributed app's
            posters per team, console printer), rendered by a ``PostingAnnouncer``;
            None → no confirmations.
        index_dir: an explicit index; None → the default, built when needed.
        ensure_index: build the default index first when it is missing or stale.
        store: the store, already open; None → ``open_store(settings)``.
    """
    from bot.render.announce import PostingAnnouncer
    from bot.runtime.recommending import IndexRecommender
    from bot.service.service import Service

    store = store or open_store(settings)  # first: a bad DATABASE_URL fails before a long index build
    if index_dir is None and ensure_index:
        ensure_default_index(settings)
    index = search.SearchIndex(index_dir or settings.index_dir)
    announcer = PostingAnnouncer(poster) if poster is not None else None
    return Service(index, store, settings, announcer=announcer, recommender=IndexRecommender(index))
