"""Builds the bot's objects from ``Settings`` — shared by the CLI, the console
and the composition root ``bot.runtime`` so each of them stays a thin wrapper.

Entry-point layer (docs/architecture.md "Layers"): the one place below the
CLI where the index, the store, the announcer and the service meet.
"""
from __future__ import annotations

import logging
from pathlib import Path

from bot import corpus, search
from bot.config import Settings
from bot.ports import Poster
from bot.render.announce import PostingAnnouncer
from bot.service import Service
from bot.store import Store, StoreError

log = logging.getLogger(__name__)


def seed_paths(settings: Settings) -> list[Path]:
    """The seed inputs: ``PAPERBOT_SEEDS`` (a folder or a file)."""
    return [settings.seeds_dir]


def ensure_default_index(settings: Settings, progress=None) -> bool:
    """Build the default index when it is missing or was built from other seeds.

    Only the *default* index (``PAPERBOT_INDEX_DIR``) is ever built
    implicitly (docs/interfaces.md "Index directory layout"). Returns True when a build ran.

    Raises:
        corpus.CorpusError: when the seeds cannot be read.
        search.IndexBusy: when another process is building right now.
    """
    paths = seed_paths(settings)
    fingerprint = corpus.seeds_fingerprint(paths)
    stored = search.stored_fingerprint(settings.index_dir)
    if stored == fingerprint and search.opens(settings.index_dir):
        return False   # (an index this code cannot open is rebuilt like changed seeds)
    if stored is None and (Path(settings.index_dir) / "CURRENT").exists():
        # Built by `paperbot index build --source …`: the operator's corpus, not
        # the seeds — never replace it implicitly.
        log.info("keeping %s: it was built from explicit sources", settings.index_dir)
        return False
    log.info("building the default index from %s", ", ".join(map(str, paths)))
    search.build_index(settings.index_dir, LazyPapers(paths), fingerprint=fingerprint, progress=progress)
    return True


class LazyPapers:
    """An iterable that reads ``paths`` only when iterated (inside the build's
    lock); ``total`` is the number of papers once read, ``stats`` the load's
    ``corpus.LoadStats``; ``accepted_only`` as for ``corpus.load_papers``."""

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
    if settings.dyno and settings.database_url.startswith("sqlite"):
        raise StoreError(f"DATABASE_URL is SQLite but this is dyno {settings.dyno}: dynos share no disk, "
                         "so web and clock would not share subscriptions; attach PostgreSQL "
                         "(heroku addons:create heroku-postgresql) and let it set DATABASE_URL")
    return Store(settings.database_url)


def build_service(settings: Settings, poster: Poster | None = None, *, index_dir: Path | None = None,
                  ensure_index: bool = True) -> Service:
    """The ``Service`` over the configured index and store.

    Args:
        settings: configuration.
        poster: where channel confirmations go (Slack poster, console printer),
            rendered by a ``PostingAnnouncer``; None → no confirmations.
        index_dir: an explicit index; None → the default, built when needed.
        ensure_index: build the default index first when it is missing or stale.
    """
    store = open_store(settings)   # first: a bad DATABASE_URL fails before a long index build
    if index_dir is None and ensure_index:
        ensure_default_index(settings)
    index = search.SearchIndex(index_dir or settings.index_dir)
    announcer = PostingAnnouncer(poster) if poster is not None else None
    return Service(index, store, settings, announcer=announcer)
