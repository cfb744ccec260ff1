"""``build_app`` / ``make_client``: sizing, retries, and no hidden environment reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from slack_bolt.error import BoltError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.core.config import Settings
from bot.slack.app import LISTENER_THREADS, build_app, make_client
from tests.fakeslack import FakeSlack
from tests.slack.slackkit import SlackHarness, make_settings


class NoService:
    """The app is built but never asked anything in these tests."""

    def command(self, text, ctx):  # pragma: no cover - never called
        raise AssertionError("not expected")

    mention = command


def test_client_points_at_settings_url_and_retries_rate_limits(fake_slack: FakeSlack) -> None:
    client = make_client(Settings(bot_token="xoxb-1", api_url=fake_slack.api_url))
    assert client.base_url == fake_slack.api_url and client.token == "xoxb-1"
    assert any(isinstance(h, RateLimitErrorRetryHandler) for h in client.retry_handlers)


def test_app_is_sized_for_fifty_concurrent_commands(fake_slack: FakeSlack, tmp_path: Path) -> None:
    app = build_app(make_settings(fake_slack, tmp_path), NoService())
    assert app.process_before_response is True  # acks on the request thread; work in the queue
    assert app.listener_runner.listener_executor._max_workers == LISTENER_THREADS >= 50
    (auth,) = fake_slack.calls("auth.test")  # token checked once, at start
    assert auth.headers["authorization"] == "Bearer xoxb-test-token"


def test_rejected_token_fails_at_start(fake_slack: FakeSlack, tmp_path: Path) -> None:
    fake_slack.fail_method("auth.test", "invalid_auth")
    with pytest.raises(BoltError, match="invalid_auth"):
        build_app(make_settings(fake_slack, tmp_path), NoService())


def test_environment_is_not_read(slack_factory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Bolt would fall back to these if build_app left an argument out.
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "env-secret")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-from-env")
    slack: SlackHarness = slack_factory()
    response, url = slack.command("help")  # signed with the settings' secret: 401 if env were read
    assert response.status == 200
    slack.replies(url)
    assert {c.headers.get("authorization") for c in slack.fake.calls("auth.test")} == {"Bearer xoxb-test-token"}
