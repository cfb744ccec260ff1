"""A small fake Slack Web API on a free loopback port, recording every request.

The pattern of bolt-python's own ``tests/mock_web_api_server`` (a stdlib
HTTP server in a thread), improved: a free port instead of 8888, request
bodies recorded, per-channel errors and 429s configurable, and a polling
``wait_for`` instead of sleeps.

Routes:
    ``/api/<method>``   Web API methods (GET query or POST form/JSON body).
    ``/response/<n>``   ``response_url`` targets (``respond()`` posts here).

Answers ``auth.test``, ``chat.postMessage`` (a fresh ``ts`` each time, kept
in that channel's history), ``chat.postEphemeral``, ``users.info``
(``tz`` configurable per user), ``conversations.history`` (what was posted),
``users.conversations`` (``memberships`` per user, paginated by
``member_page_size``), ``views.publish`` / ``views.update`` / ``views.open`` /
``views.push``; ``{"ok": true}`` for any other method.
"""
from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qsl, urlsplit

BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
TEAM_ID = "T0TEST"
#: Methods whose ``channel`` argument triggers ``fail_channel`` errors.
CHANNEL_METHODS = ("chat.postMessage", "chat.postEphemeral", "conversations.history")


@dataclass
class Call:
    """One request the fake received.

    Attributes:
        method: Web API method ("chat.postMessage") or "response_url".
        path: the request path ("/api/chat.postMessage", "/response/3").
        body: parsed body: JSON object, or form / query fields (one value each).
        headers: request headers, names lower-cased.
        status: the HTTP status the fake answered.
    """

    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int = 200


@dataclass
class _RateLimit:
    remaining: int
    retry_after: int


class FakeSlack:
    """The fake Web API server. Use as a context manager or ``start()``/``stop()``.

    Attributes:
        user_tz: ``users.info`` time zone per user id (default "Europe/Berlin").
        history: messages per channel, newest last (chat.postMessage appends).
        memberships: channel ids each user is a member of (``users.conversations``).
        member_page_size: channels per ``users.conversations`` page (its
            ``limit`` argument caps it further), so pagination can be tested.
        delays: seconds to wait before answering a method (a slow Slack).
    """

    def __init__(self) -> None:
        self.user_tz: dict[str, str] = {}
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.memberships: dict[str, list[str]] = {}
        self.member_page_size = 100
        self.delays: dict[str, float] = {}
        self._calls: list[Call] = []
        self._cond = threading.Condition()
        self._channel_errors: dict[tuple[str, str], str] = {}
        self._rate_limits: dict[str, _RateLimit] = {}
        self._method_errors: dict[str, list] = {}
        self._ts = itertools.count(1)
        self._responses = itertools.count(1)
        self._base_ts = int(time.time())
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> "FakeSlack":
        """Bind 127.0.0.1 on a free port and serve in a daemon thread."""
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        name="fakeslack", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeSlack":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------- addresses
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        assert self._server, "FakeSlack not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        """Web API base URL, with the trailing "/" slack_sdk needs."""
        return self.base_url + "/api/"

    def new_response_url(self) -> str:
        """A fresh ``response_url`` on this fake (``/response/<n>``)."""
        return f"{self.base_url}/response/{next(self._responses)}"

    # ----------------------------------------------------------------- behaviour
    def fail_channel(self, channel: str, error: str,
                     methods: tuple[str, ...] = CHANNEL_METHODS) -> None:
        """Answer ``{"ok": false, "error": error}`` for ``channel`` on ``methods``."""
        for method in methods:
            self._channel_errors[(method, channel)] = error

    def fail_method(self, method: str, error: str, after: int = 0) -> None:
        """Answer calls of ``method`` with ``{"ok": false, "error": error}``.

        Args:
            after: let this many calls succeed first (e.g. 1: only a thread
                reply after its parent fails).
        """
        self._method_errors[method] = [error, after]

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 0) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 429 + ``Retry-After``."""
        self._rate_limits[method] = _RateLimit(times, retry_after)

    # ----------------------------------------------------------------- records
    def calls(self, method: str | None = None) -> list[Call]:
        """Requests received so far, oldest first; only ``method``'s when given."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def wait_for(self, method: str | None, count: int = 1, timeout: float = 10.0,
                 where: Callable[[Call], bool] | None = None) -> list[Call]:
        """Wait until at least ``count`` matching calls were recorded; return them.

        Raises:
            AssertionError: fewer after ``timeout`` seconds (with what came).
        """
        def matching() -> list[Call]:
            return [c for c in self._calls if (method is None or c.method == method)
                    and (where is None or where(c))]

        deadline = time.monotonic() + timeout
        with self._cond:
            while len(found := matching()) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"expected {count} {method} call(s) within {timeout}s, got "
                        f"{len(found)}; all calls: {[c.method for c in self._calls]}")
                self._cond.wait(left)
            return found

    def _record(self, call: Call) -> None:
        with self._cond:
            self._calls.append(call)
            self._cond.notify_all()

    # ----------------------------------------------------------------- answers
    def _answer(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        time.sleep(self.delays.get(method, 0))
        limit = self._rate_limits.get(method)
        if limit and limit.remaining > 0:
            limit.remaining -= 1
            return 429, {"Retry-After": str(limit.retry_after)}, {"ok": False, "error": "ratelimited"}
        channel = str(body.get("channel", ""))
        error = self._channel_errors.get((method, channel))
        failing = self._method_errors.get(method)
        if failing and not error:
            if failing[1] > 0:
                failing[1] -= 1
            else:
                error = failing[0]
        if error:
            return 200, {}, {"ok": False, "error": error}
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        return 200, {}, handler(body) if handler else {"ok": True}

    def _api_auth_test(self, body: dict) -> dict:
        return {"ok": True, "url": "https://paperbot-test.slack.com/", "team": "Test",
                "user": "paperbot", "team_id": TEAM_ID, "user_id": BOT_USER_ID,
                "bot_id": BOT_ID, "is_enterprise_install": False}

    def _api_chat_postMessage(self, body: dict) -> dict:
        ts = f"{self._base_ts + next(self._ts)}.000100"
        message = {"type": "message", "ts": ts, "user": BOT_USER_ID, "bot_id": BOT_ID,
                   "text": body.get("text", ""), "blocks": body.get("blocks") or []}
        if body.get("thread_ts"):
            message["thread_ts"] = body["thread_ts"]
        with self._cond:
            self.history.setdefault(str(body.get("channel")), []).append(message)
        return {"ok": True, "channel": body.get("channel"), "ts": ts, "message": message}

    def _api_chat_postEphemeral(self, body: dict) -> dict:
        return {"ok": True, "message_ts": f"{self._base_ts + next(self._ts)}.000200"}

    def _api_users_info(self, body: dict) -> dict:
        user = str(body.get("user", ""))
        return {"ok": True, "user": {"id": user, "name": user.lower(),
                                     "tz": self.user_tz.get(user, "Europe/Berlin")}}

    def _api_conversations_history(self, body: dict) -> dict:
        oldest = float(body.get("oldest") or 0)
        with self._cond:
            messages = [m for m in self.history.get(str(body.get("channel")), [])
                        if float(m["ts"]) > oldest]
        return {"ok": True, "messages": list(reversed(messages)), "has_more": False}

    def _api_conversations_replies(self, body: dict) -> dict:
        ts = str(body.get("ts") or "")
        with self._cond:
            messages = [m for m in self.history.get(str(body.get("channel")), [])
                        if m["ts"] == ts or m.get("thread_ts") == ts]
        return {"ok": True, "messages": messages, "has_more": False}

    def _api_users_conversations(self, body: dict) -> dict:
        channels = self.memberships.get(str(body.get("user", "")), [])
        start = int(body.get("cursor") or 0)
        size = max(1, min(self.member_page_size, int(body.get("limit") or 100)))
        page = channels[start:start + size]
        more = start + size < len(channels)
        return {"ok": True, "channels": [{"id": c, "is_channel": True} for c in page],
                "response_metadata": {"next_cursor": str(start + size) if more else ""}}

    def _api_views_publish(self, body: dict) -> dict:
        return {"ok": True, "view": {"id": "V0HOME", **_view(body)}}

    def _api_views_open(self, body: dict) -> dict:
        return {"ok": True, "view": {"id": "V0MODAL", **_view(body)}}

    def _api_views_push(self, body: dict) -> dict:
        return {"ok": True, "view": {"id": "V0PUSHED", **_view(body)}}

    def _api_views_update(self, body: dict) -> dict:
        return {"ok": True, "view": {"id": body.get("view_id") or "V0MODAL", **_view(body)}}


def _view(body: dict) -> dict:
    view = body.get("view")
    if isinstance(view, str):
        view = json.loads(view)
    return view or {}


class _Handler(BaseHTTPRequestHandler):
    owner: FakeSlack
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = _parse(raw, self.headers.get("Content-Type", ""))
        body.update({k: v for k, v in parse_qsl(url.query) if k not in body})
        headers = {k.lower(): v for k, v in self.headers.items()}
        if url.path.startswith("/api/"):
            method = url.path[len("/api/"):]
            status, extra, answer = self.owner._answer(method, body)
        elif url.path.startswith("/response/"):
            method, status, extra, answer = "response_url", 200, {}, "ok"
        else:
            method, status, extra, answer = "unknown", 404, {}, {"ok": False, "error": "unknown_method"}
        self.owner._record(Call(method, url.path, body, headers, status))
        data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
        self.send_response(status)
        ctype = "text/plain" if isinstance(answer, str) else "application/json; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _parse(raw: bytes, content_type: str) -> dict[str, Any]:
    if not raw:
        return {}
    text = raw.decode("utf-8")
    if "json" in content_type:
        value = json.loads(text)
        return value if isinstance(value, dict) else {"_json": value}
    return dict(parse_qsl(text, keep_blank_values=True))
