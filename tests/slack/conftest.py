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
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from bot.render.announce import PostingAnnouncer
from bot.runtime.processes import store_seen as store_seen_fn
from bot.runtime.recommending import IndexRecommender
from bot.service.service import Service
from bot.slack.app import LISTENER_THREADS, build_app, make_client
from bot.slack.delivery.event_keys import SeenKeys
from bot.slack.delivery.poster import SlackPoster
from bot.slack.transport.http_server import make_server
from bot.store import Store
from tests.fakeslack import MANIFESTS, FakeSlack
from tests.slack.slackkit import SlackHarness, make_settings
from tests.strict.scopes import Manifest


@pytest.fixture(autouse=True)
def clean_slack_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove every ``SLACK_*`` variable: Bolt falls back to them silently."""
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            monkeypatch.delenv(name)


@pytest.fixture
def retry_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds slack_sdk's retry handlers ask to sleep, recorded instead of slept.

    Only the handlers' own ``time`` is replaced (``slack_sdk.http_retry.handler``
    and ``.builtin_handlers``), so every other thread keeps the real clock.
    """
    import types

    from slack_sdk.http_retry import builtin_handlers, handler

    asked: list[float] = []
    fake_time = types.SimpleNamespace(sleep=asked.append)
    monkeypatch.setattr(handler, "time", fake_time)
    monkeypatch.setattr(builtin_handlers, "time", fake_time)
    return asked


def _distinct_grants() -> list[tuple[Path, str]]:
    """One manifest per distinct set of bot scopes, named after every manifest
    that asks for that set: the fake's answers depend on the token's scopes
    alone, so two manifests with the same scopes would run each test twice
    for nothing; when they differ, each set gets its own run."""
    by_scopes: dict[frozenset[str], list[Path]] = {}
    for path in MANIFESTS:
        by_scopes.setdefault(Manifest.load(path).scopes, []).append(path)
    return [(paths[0], "+".join(p.name for p in paths)) for paths in by_scopes.values()]


GRANTS = _distinct_grants()


@pytest.fixture(params=[path for path, _ in GRANTS], ids=[name for _, name in GRANTS])
def fake_slack(request: pytest.FixtureRequest):
    """A started strict ``FakeSlack`` whose token has a manifest's scopes (each
    test runs once per distinct scope set of ``manifest.yml`` and
    ``manifest.http.yml``); stopped after the test, which fails if Slack would
    have refused any call — unless the test is marked
    ``@pytest.mark.slack_rejects`` (it provokes refusals on purpose) — and
    fails whenever something Slack accepted would not be seen as meant
    (``fake.defects``: an ephemeral answer in a thread without replies, a
    public message replaced by someone else's click)."""
    with FakeSlack(request.param) as fake:
        yield fake
    if request.node.get_closest_marker("slack_rejects") is None:
        assert fake.rejections == [], f"Slack would have refused: {fake.rejections}"
    assert fake.defects == [], f"Slack would not show this as meant: {fake.defects}"


@pytest.fixture(params=["text", "json"])
def response_style(request: pytest.FixtureRequest, fake_slack: FakeSlack) -> str:
    """Each ``response_url`` answer public reports give (docs/slack-rules.md
    [response-url]): HTTP 200 ``ok``, then HTTP 200 ``{"ok": true}``."""
    fake_slack.response_style = request.param
    return request.param


@pytest.fixture
def slack_factory(fake_slack: FakeSlack, seed_index, tmp_path: Path):
    """Start the real server: ``slack_factory(service=None, store_seen=False, index=None, recommend=False,
    database_url=None)`` → ``SlackHarness``.

    Args (of the returned function):
        service: the service behind the app; default the real ``Service``.
        index: the default service's index (default the seeds' ``seed_index``;
            ``linked_index`` adds papers with arXiv, OpenReview and DOI links).
        store_seen: idempotency through the real store
            (``bot.runtime.processes.store_seen``) instead of in-memory ``SeenKeys``.
        recommend: the default service gets the real model (``bot.runtime.recommending``, issue 22).
        database_url: the store's database (default a SQLite file in ``tmp_path``;
            ``db_url`` gives SQLite, then PostgreSQL).

    The ``seen`` check is wrapped to log each ``(key, result)`` into
    ``harness.seen_log``; the listener pool is the harness's, so
    ``harness.drain()`` waits until every listener has finished.
    """
    started: list[tuple[Any, threading.Thread, Any, ThreadPoolExecutor]] = []

    def start(
        service: Any = None,
        store_seen: bool = False,
        index: Any = None,
        recommend: bool = False,
        database_url: str | None = None,
    ) -> SlackHarness:
        settings = make_settings(fake_slack, tmp_path)
        if database_url is not None:
            settings = replace(settings, database_url=database_url)
        client = make_client(settings)
        store = Store(settings.database_url)
        index = index or seed_index
        if service is None:
            service = Service(
                index,
                store,
                settings,
                announcer=PostingAnnouncer(SlackPoster(client)),
                recommender=IndexRecommender(index) if recommend else None,
            )
        check: Callable[..., bool] = store_seen_fn(store) if store_seen else SeenKeys().seen
        log: list[tuple[str, bool]] = []

        def recording_seen(*keys: str) -> bool:
            result = check(*keys)
            log.extend((key, result) for key in keys)
            return result

        executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS)
        app = build_app(settings, service, client=client, seen=recording_seen, listener_executor=executor)
        server = make_server(app, "127.0.0.1", 0)
        thread = threading.Thread(target=server.run, name="paperbot-http", daemon=True)
        thread.start()
        started.append((server, thread, store, executor))
        return SlackHarness(server.url, fake_slack, index, store, service, app, log, executor)

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
