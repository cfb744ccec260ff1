"""Helpers for the Slack adapter tests: send what Slack sends, read what came back.

``SlackHarness`` wraps a running paperbot HTTP server and the fake Web API;
``mention_event`` builds an ``app_mention``, ``dm_event`` a ``message.im``,
``block_actions`` / ``view_submission`` the interactivity payloads;
``wait_until`` polls (never a fixed sleep as an assertion); ``strings``
flattens a JSON body for checks.
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

from bot.core.config import Settings
from tests.fakeslack import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.kit import SEEDS
from tests.signing import JSON, signed_headers

SECRET = "test-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-test-token"


def make_settings(fake: FakeSlack, tmp_path: Path) -> Settings:
    """Settings pointing every Slack call at ``fake`` and the store into ``tmp_path``."""
    return Settings(
        bot_token=BOT_TOKEN,
        signing_secret=SECRET,
        api_url=fake.api_url,
        database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
        index_dir=tmp_path / "index",
        seeds_dir=SEEDS,
    )


@dataclass
class Response:
    """An HTTP answer from the server under test."""

    status: int
    body: bytes
    seconds: float = 0.0  # from sending the request to reading the whole answer

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

    def request(
        self, method: str, path: str, body: str = "", headers: dict[str, str] | None = None, timeout: float = 30
    ) -> Response:
        parts = urlsplit(self.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body.encode("utf-8") if body else None, headers=headers or {})
            answer = conn.getresponse()
            data = answer.read()
        finally:
            conn.close()
        return Response(answer.status, data, time.perf_counter() - started)

    def command(
        self,
        text: str,
        *,
        user: str = "U0ALICE",
        channel: str = "C0GENERAL",
        signed: bool = True,
        age_s: int = 0,
        response_url: str | None = None,
    ) -> tuple[Response, str]:
        """POST a ``/paper`` command with ``text`` (send it entity-encoded, as Slack does).

        Args:
            response_url: where the reply goes; default a fresh one on the fake.

        Returns:
            (response, response_url): the HTTP answer and where the reply will go.
        """
        response_url = response_url or self.fake.new_response_url()
        body = urlencode(
            {
                "token": "deprecated",
                "team_id": TEAM_ID,
                "team_domain": "paperbot-test",
                "channel_id": channel,
                "channel_name": "general",
                "user_id": user,
                "user_name": user.lower(),
                "command": "/paper",
                "text": text,
                "api_app_id": "A0PAPERBOT",
                "is_enterprise_install": "false",
                "response_url": response_url,
                "trigger_id": self.fake.new_trigger_id(),
            }
        )
        headers = (
            signed_headers(SECRET, body, age_s=age_s)
            if signed
            else {"Content-Type": "application/x-www-form-urlencoded"}
        )
        return self.request("POST", "/slack/events", body, headers), response_url

    def event(self, event: dict[str, Any], *, event_id: str, retry_num: int | None = None) -> Response:
        """POST an Events API envelope around ``event`` (signed)."""
        envelope = {
            "token": "deprecated",
            "team_id": TEAM_ID,
            "api_app_id": "A0PAPERBOT",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [
                {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": False}
            ],
        }
        said = event.get("type") in ("app_mention", "message") and not (event.get("subtype") or event.get("bot_id"))
        if said and isinstance(event.get("channel"), str) and isinstance(event.get("ts"), str):
            self.fake.user_message(  # Slack has the message before it tells the bot
                event["channel"], event["ts"], user=str(event.get("user")), thread_ts=event.get("thread_ts")
            )
        body = json.dumps(envelope)
        headers = signed_headers(SECRET, body, content_type=JSON)
        if retry_num is not None:
            headers.update({"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"})
        return self.request("POST", "/slack/events", body, headers)

    def interact(self, payload: dict[str, Any]) -> Response:
        """POST an interactivity payload as Slack does: form field ``payload=`` holding
        the urlencoded JSON, signed (docs/platform-facts.md "Slack payloads", bolt's
        test_block_actions.py). A ``trigger_id`` in it is replaced by a fresh one from
        the fake (changing ``payload``)."""
        if "trigger_id" in payload:
            view = payload.get("view") or {}
            payload["trigger_id"] = self.fake.new_trigger_id(view.get("id") if view.get("type") == "modal" else None)
        body = urlencode({"payload": json.dumps(payload)})
        return self.request("POST", "/slack/events", body, signed_headers(SECRET, body))

    def click(self, action_id: str, value: Any, **kwargs: Any) -> tuple[Response, str | None]:
        """Click a button: a signed ``block_actions`` (see ``block_actions`` for ``kwargs``).

        ``value`` is sent as is when a string, else as compact JSON. Unless
        ``in_view`` is given, a fresh ``response_url`` on the fake is used,
        which knows who clicked which message (``owner``: whose public message
        it is, see ``FakeSlack.new_response_url``).

        Returns:
            (response, response_url): the HTTP answer and where the reply goes
            (None for a click inside a view).
        """
        owner = kwargs.pop("owner", None)
        if "response_url" not in kwargs and not kwargs.get("in_view"):
            kwargs["response_url"] = self.fake.new_response_url(
                clicker=kwargs.get("user", "U0ALICE"), public=not kwargs.get("ephemeral", True), owner=owner
            )
        payload = block_actions(action_id, value, **kwargs)
        return self.interact(payload), payload.get("response_url")

    def replies(self, response_url: str, count: int = 1, timeout: float = 15) -> list[dict]:
        """Bodies posted to ``response_url`` (waits for ``count`` of them)."""
        path = urlsplit(response_url).path
        calls = self.fake.wait_for("response_url", count, timeout, where=lambda c: c.path == path)
        return [c.body for c in calls]


def mention_event(
    text: str, *, ts: str, channel: str = "C0GENERAL", user: str = "U0ALICE", **extra: Any
) -> dict[str, Any]:
    """An ``app_mention`` event as Slack sends it (docs.slack.dev/reference/events/app_mention)."""
    return {
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM_ID,
        **extra,
    }


def block_actions(
    action_id: str,
    value: Any,
    *,
    user: str = "U0ALICE",
    channel: str = "C0GENERAL",
    response_url: str | None = None,
    ephemeral: bool = True,
    in_view: str | None = None,
    view_id: str = "V0HOME",
    private_metadata: str = "",
    thread_ts: str | None = None,
    message_ts: str = "1765000000.000100",
) -> dict[str, Any]:
    """A ``block_actions`` payload for one button click, as Slack sends it.

    Shape: bolt-python ``tests/scenario_tests/test_block_actions.py`` and
    docs.slack.dev "block_actions payload" (docs/platform-facts.md "Slack payloads").

    Args:
        value: the button's value; a str is sent verbatim (to tamper with it).
        ephemeral: the clicked message was ephemeral (search results) or not
            (a digest post).
        in_view: "home" or "modal": the click came from a view — then the
            payload has a ``view`` and no ``channel`` nor ``response_url``.
        thread_ts: the clicked message is in this thread (``container.thread_ts``,
            and ``message.thread_ts`` of a public message).
        message_ts: the clicked message's ``ts``.
    """
    raw = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    payload: dict[str, Any] = {
        "type": "block_actions",
        "token": "deprecated",
        "api_app_id": "A0PAPERBOT",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM_ID},
        "team": {"id": TEAM_ID, "domain": "paperbot-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "trigger_id": "1337.42.abcdef",
        "actions": [
            {
                "action_id": action_id,
                "block_id": "b1",
                "type": "button",
                "value": raw,
                "text": {"type": "plain_text", "text": "Button", "emoji": True},
                "action_ts": f"{time.time():.6f}",
            }
        ],
        "state": {"values": {}},
    }
    if in_view:
        payload["container"] = {"type": "view", "view_id": view_id}
        payload["view"] = {
            "id": view_id,
            "type": in_view,
            "team_id": TEAM_ID,
            "blocks": [],
            "hash": "1765000000.abcdef",
            "state": {"values": {}},
            "private_metadata": private_metadata,
            "callback_id": "" if in_view == "home" else "paper_modal",
        }
    else:
        payload["container"] = {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": ephemeral,
        }
        if thread_ts:
            payload["container"]["thread_ts"] = thread_ts
        payload["channel"] = {"id": channel, "name": "general"}
        payload["response_url"] = response_url
        if not ephemeral:
            payload["message"] = {
                "type": "message",
                "ts": message_ts,
                "user": BOT_USER_ID,
                "text": "Paper of the day",
                "blocks": [],
            }
            if thread_ts:
                payload["message"]["thread_ts"] = thread_ts
    return payload


def view_submission(
    query: str | None, *, user: str = "U0ALICE", view_id: str = "V0MODAL", callback_id: str = "search_modal"
) -> dict[str, Any]:
    """A ``view_submission`` of the search modal with ``query`` typed in its input
    (``None``: the input is missing from ``state``, as in a tampered payload)."""
    values = {} if query is None else {"search_query": {"query": {"type": "plain_text_input", "value": query}}}
    return {
        "type": "view_submission",
        "token": "deprecated",
        "api_app_id": "A0PAPERBOT",
        "team": {"id": TEAM_ID, "domain": "paperbot-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "trigger_id": "1337.43.abcdef",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM_ID},
        "view": {
            "id": view_id,
            "team_id": TEAM_ID,
            "type": "modal",
            "callback_id": callback_id,
            "hash": "1765000000.fedcba",
            "private_metadata": "",
            "blocks": [],
            "root_view_id": view_id,
            "app_id": "A0PAPERBOT",
            "bot_id": "BBOT",
            "title": {"type": "plain_text", "text": "Search papers"},
            "state": {"values": values},
        },
        "response_urls": [],
    }


def dm_event(text: str, *, ts: str, channel: str = "D0ALICE", user: str = "U0ALICE", **extra: Any) -> dict[str, Any]:
    """A ``message.im`` event (a direct message to the bot), as Slack sends it."""
    return {
        "type": "message",
        "channel_type": "im",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM_ID,
        **extra,
    }


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
