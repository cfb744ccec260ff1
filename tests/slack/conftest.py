"""Fixtures for the Slack adapter tests: a clean ``SLACK_*`` environment, the
fake Slack Web API, and a real paperbot HTTP server over the real seeds.

``slack`` starts, per test: the fake Web API (``tests.fakeslack``), a real
SQLite store in a tmp dir, the real ``Service`` over a real Whoosh index of
``seeds/`` (``seed_index`` of tests/conftest.py, built once per session),
the real Bolt app and the real waitress server on a free loopback port.
Requests are signed by ``tests.signing``.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import pytest

from bot.render.announce import PostingAnnouncer
from bot.runtime import store_seen as store_seen_fn
from bot.service import Service
from bot.slack.app import LISTENER_THREADS, build_app, make_client
from bot.slack.events import SeenKeys
from bot.slack.poster import SlackPoster
from bot.slack.server import make_server
from bot.store import Store
from tests.fakeslack import FakeSlack
from tests.slack.slackkit import SlackHarness, make_settings


@pytest.fixture(autouse=True)
def clean_slack_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove every ``SLACK_*`` variable: Bolt falls back to them silently."""
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            monkeypatch.delenv(name)


@pytest.fixture
def fake_slack():
    """A started ``FakeSlack``; stopped after the test."""
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def slack_factory(fake_slack: FakeSlack, seed_index, tmp_path: Path):
    """Start the real server: ``slack_factory(service=None, store_seen=False)`` → ``SlackHarness``.

    Args (of the returned function):
        service: the service behind the app; default the real ``Service``.
        store_seen: idempotency through the real store
            (``bot.runtime.store_seen``) instead of in-memory ``SeenKeys``.

    The ``seen`` check is wrapped to log each ``(key, result)`` into
    ``harness.seen_log``; the listener pool is the harness's, so
    ``harness.drain()`` waits until every listener has finished.
    """
    started: list[tuple[Any, threading.Thread, Any, ThreadPoolExecutor]] = []

    def start(service: Any = None, store_seen: bool = False) -> SlackHarness:
        settings = make_settings(fake_slack, tmp_path)
        client = make_client(settings)
        store = Store(settings.database_url)
        if service is None:
            service = Service(seed_index, store, settings, announcer=PostingAnnouncer(SlackPoster(client)))
        check: Callable[..., bool] = store_seen_fn(store) if store_seen else SeenKeys().seen
        log: list[tuple[str, bool]] = []

        def recording_seen(*keys: str) -> bool:
            result = check(*keys)
            log.extend((key, result) for key in keys)
            return result

        executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS)
        app = build_app(settings, service, client=client, seen=recording_seen,
                        listener_executor=executor)
        server = make_server(app, "127.0.0.1", 0)
        thread = threading.Thread(target=server.run, name="paperbot-http", daemon=True)
        thread.start()
        started.append((server, thread, store, executor))
        return SlackHarness(server.url, fake_slack, seed_index, store, service, app, log, executor)

    yield start
    for server, thread, store, executor in started:
        server.close()
        thread.join(10)
        executor.shutdown(wait=True)
        store.close()


@pytest.fixture
def slack(slack_factory) -> SlackHarness:
    """The default harness: real service, in-memory ``seen``."""
    return slack_factory()


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_db(request, tmp_path: Path) -> str:
    """A database URL several servers share: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    return request.getfixturevalue("pg_schema")[0]
