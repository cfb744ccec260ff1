"""Helpers for the Slack adapter tests: send what Slack sends, read what came back.

``SlackHarness`` wraps a running paperbot HTTP server and the fake Web API;
``mention_event`` builds an ``app_mention``; ``wait_until`` polls (never a
fixed sleep as an assertion); ``strings`` flattens a JSON body for checks.
"""
from __future__ import annotations

import http.client
import json
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlencode, urlsplit

from bot.config import Settings
from tests.fakeslack import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.signing import JSON, signed_headers

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
SECRET = "test-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-test-token"


def make_settings(fake: FakeSlack, tmp_path: Path) -> Settings:
    """Settings pointing every Slack call at ``fake`` and the store into ``tmp_path``."""
    return Settings(bot_token=BOT_TOKEN, signing_secret=SECRET, api_url=fake.api_url,
                    database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
                    index_dir=tmp_path / "index", seeds_dir=SEEDS)


@dataclass
class Response:
    """An HTTP answer from the server under test."""

    status: int
    body: bytes
    seconds: float = 0.0   # from sending the request to reading the whole answer

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass
class SlackHarness:
    """The running server plus helpers that send what Slack would send.

    Attributes:
        url: ``http://127.0.0.1:<port>`` of the server under test.
        fake: the fake Web API (records every call the bot makes).
        index, store, service, app: the real objects behind the server.
        seen_log: every ``(key, seen(key))`` the event listener asked.
        executor: the app's listener pool (see ``drain``).
    """

    url: str
    fake: FakeSlack
    index: Any
    store: Any
    service: Any
    app: Any
    seen_log: list[tuple[str, bool]] = field(default_factory=list)
    executor: Executor | None = None

    def drain(self) -> None:
        """Wait until every listener started so far has finished (the pool
        then refuses new work: call it once, before the final assertions).

        Every request's listener is submitted before its HTTP answer is
        sent, so after ``drain()`` nothing more can reach the fake.
        """
        assert self.executor is not None
        self.executor.shutdown(wait=True)

    def request(self, method: str, path: str, body: str = "",
                headers: dict[str, str] | None = None, timeout: float = 30) -> Response:
        parts = urlsplit(self.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body.encode("utf-8") if body else None,
                         headers=headers or {})
            answer = conn.getresponse()
            data = answer.read()
        finally:
            conn.close()
        return Response(answer.status, data, time.perf_counter() - started)

    def command(self, text: str, *, user: str = "U0ALICE", channel: str = "C0GENERAL",
                signed: bool = True, age_s: int = 0,
                response_url: str | None = None) -> tuple[Response, str]:
        """POST a ``/paper`` command with ``text`` (send it entity-encoded, as Slack does).

        Args:
            response_url: where the reply goes; default a fresh one on the fake.

        Returns:
            (response, response_url): the HTTP answer and where the reply will go.
        """
        response_url = response_url or self.fake.new_response_url()
        body = urlencode({
            "token": "deprecated", "team_id": TEAM_ID, "team_domain": "paperbot-test",
            "channel_id": channel, "channel_name": "general", "user_id": user,
            "user_name": user.lower(), "command": "/paper", "text": text,
            "api_app_id": "A0PAPERBOT", "is_enterprise_install": "false",
            "response_url": response_url, "trigger_id": "1.2.3",
        })
        headers = (signed_headers(SECRET, body, age_s=age_s) if signed
                   else {"Content-Type": "application/x-www-form-urlencoded"})
        return self.request("POST", "/slack/events", body, headers), response_url

    def event(self, event: dict[str, Any], *, event_id: str,
              retry_num: int | None = None) -> Response:
        """POST an Events API envelope around ``event`` (signed)."""
        envelope = {
            "token": "deprecated", "team_id": TEAM_ID, "api_app_id": "A0PAPERBOT",
            "event": event, "type": "event_callback", "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID,
                                "is_bot": True, "is_enterprise_install": False}],
        }
        body = json.dumps(envelope)
        headers = signed_headers(SECRET, body, content_type=JSON)
        if retry_num is not None:
            headers.update({"X-Slack-Retry-Num": str(retry_num),
                            "X-Slack-Retry-Reason": "http_timeout"})
        return self.request("POST", "/slack/events", body, headers)

    def replies(self, response_url: str, count: int = 1, timeout: float = 15) -> list[dict]:
        """Bodies posted to ``response_url`` (waits for ``count`` of them)."""
        path = urlsplit(response_url).path
        calls = self.fake.wait_for("response_url", count, timeout, where=lambda c: c.path == path)
        return [c.body for c in calls]


def mention_event(text: str, *, ts: str, channel: str = "C0GENERAL", user: str = "U0ALICE",
                  **extra: Any) -> dict[str, Any]:
    """An ``app_mention`` event as Slack sends it (docs.slack.dev/reference/events/app_mention)."""
    return {"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": channel,
            "event_ts": ts, "team": TEAM_ID, **extra}


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` every 10 ms until truthy; return its value.

    Raises:
        AssertionError: still falsy after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.01)


#: Keys whose strings Slack never displays nor parses as mrkdwn.
HIDDEN_KEYS = frozenset({"value", "action_id", "block_id", "response_type", "type"})


def shown_strings(value: Any) -> list[str]:
    """Every string Slack would show or parse inside a JSON-like message body.

    Skips button ``value``s, ``action_id``s and ``block_id``s, which carry
    data back to the app and are never rendered.
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in HIDDEN_KEYS for s in shown_strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in shown_strings(v)]
    return []
