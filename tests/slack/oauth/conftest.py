"""Fixtures for the distributed-app tests: the strict fake Slack with the OAuth
manifest's scopes, a fresh ``PAPERBOT_TOKEN_KEY``, and real paperbot servers of a
distributed app over one database (SQLite, then PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeslack import FakeSlack
from tests.slack.oauth.oauthkit import MANIFEST, Process, Served, new_key, oauth_settings, serve


@pytest.fixture
def fake():
    """A started strict ``FakeSlack`` that installs the OAuth manifest's app; the test
    fails if Slack would have refused a call (unless marked ``slack_rejects``)."""
    with FakeSlack(MANIFEST) as f:
        yield f


@pytest.fixture(autouse=True)
def _no_refusals(request: pytest.FixtureRequest, fake: FakeSlack):
    yield
    if request.node.get_closest_marker("slack_rejects") is None:
        assert fake.rejections == [], f"Slack would have refused: {fake.rejections}"


@pytest.fixture
def key() -> str:
    return new_key()


@pytest.fixture
def servers(fake: FakeSlack, db_url: str, seed_index_dir: Path, seed_index, key: str):
    """``servers(n=1)`` → that many running servers over one database; the fake's
    app redirects installs to the first. Closed after the test."""
    started: list[Served] = []

    def start(n: int = 1) -> list[Served]:
        settings = oauth_settings(fake, db_url, seed_index_dir, key)
        for _ in range(n):
            started.append(serve(settings, seed_index))
        fake.redirect_url = started[0].url + "/slack/oauth_redirect"
        return started[-n:]

    yield start
    for served in started:
        served.close()


@pytest.fixture
def processes():
    """``processes(*args, env=…)`` starts ``python -m bot *args`` (a ``Process``); all stopped afterwards."""
    started: list[Process] = []

    def start(*args: str, env: dict[str, str]) -> Process:
        started.append(Process(list(args), env))
        return started[-1]

    yield start
    for p in started:
        p.stop()
