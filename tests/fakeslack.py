"""A strict fake Slack on a free loopback port: the Web API, ``response_url``s
and ``views.*``, validating every message and view the way Slack's servers do
(rules and their Slack pages: docs/slack-rules.md; code: ``tests/strict``).

The pattern of bolt-python's own ``tests/mock_web_api_server`` (a stdlib
HTTP server in a thread), made strict: what Slack would refuse is answered
as Slack answers it (``{"ok": false, "error": "invalid_blocks",
"response_metadata": {"messages": [...]}}``; HTTP 400 ``invalid_blocks`` on a
``response_url``) and recorded in ``rejections``. The token has the bot
scopes of one manifest (default ``manifest.yml``); a method those scopes do
not allow answers ``missing_scope`` with ``needed`` and ``provided``, and a
method without a row in ``bot.slack.scopes`` answers ``unknown_method``.

Routes:
    ``/api/<method>``   Web API methods (``tests.strict.methods``).
    ``/response/<n>``   ``response_url``s from ``new_response_url()`` (5 uses).
    ``/oauth/v2/authorize``  a distributed app's install (``tests.strict.oauth``:
                        tokens per workspace, rotation, uninstalls).

Also configurable per test: per-channel and per-method errors, 429s, a
connection dropped after a call was taken in (``drop_connection``), channel
membership (``add_channel``; a DM or group DM between people, without the bot:
``add_im``), ``trigger_id``s (``new_trigger_id``, 3 s, once), messages people
posted (``user_message``), and whether a ``response_url`` answers ``ok`` or
``{"ok": true}`` (``response_style``).

What Slack accepts but no one sees as meant — an ephemeral message in a thread
without replies, a click that replaces a public message that is not the
clicker's — is answered ``ok`` and recorded in ``defects``
(``tests.strict.visibility``).
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from tests.strict import wire
from tests.strict.methods import BOT_ID, BOT_USER_ID, TEAM_ID, Channel, SlackMethods
from tests.strict.oauth import OAuthMethods
from tests.strict.records import Call, Defect, Rejection
from tests.strict.scopes import MANIFESTS, Manifest, missing_scope
from tests.strict.surfaces import ResponseUrls, Stacks, Triggers, check_message
from tests.strict.visibility import ClickOrigin, replaces_for_everyone

__all__ = ["FakeSlack", "Call", "Defect", "Rejection", "BOT_USER_ID", "BOT_ID", "TEAM_ID", "MANIFESTS"]

#: Methods whose ``channel`` argument triggers ``fail_channel`` errors.
CHANNEL_METHODS = ("chat.postMessage", "conversations.history")


class FakeSlack(OAuthMethods, SlackMethods):
    """The strict fake. Use as a context manager or ``start()``/``stop()``.

    Args:
        manifest: the app manifest whose bot scopes the token has.

    Attributes:
        user_tz: ``users.info`` time zone per user id (default "Europe/Berlin").
        history: messages per channel, newest last (chat.postMessage appends).
        ephemerals: chat.postEphemeral messages per channel (with ``user``, ``thread_ts``).
        outside: users per channel who are not in it (chat.postEphemeral refuses them).
        memberships: channel ids each user is a member of (``users.conversations``).
        member_page_size: channels per ``users.conversations`` page.
        granted: the token's bot scopes (from ``manifest``).
        rejections: every call refused for breaking a Slack rule, oldest first.
        defects: every call Slack accepts whose result no one sees as meant, oldest first.
        response_style: how a ``response_url`` answers: "text" (HTTP 200 ``ok``;
            a refusal HTTP 400 ``invalid_blocks``) or "json" (HTTP 200
            ``{"ok": true}``; a refusal HTTP 200 ``{"ok": false, "error": …}``)
            — public reports give both (docs/slack-rules.md [response-url]).
        triggers, response_urls: the one-shot tokens handed out.
        stacks: modal stacks opened and pushed (≤ 3 views each).
    """

    def __init__(self, manifest: Path | str = MANIFESTS[0]) -> None:
        self.manifest = Manifest.load(Path(manifest))
        self.granted = self.manifest.scopes
        self.user_tz: dict[str, str] = {}
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.ephemerals: dict[str, list[dict[str, Any]]] = {}
        self.outside: dict[str, set[str]] = {}
        self.memberships: dict[str, list[str]] = {}
        self.member_page_size = 100
        self.channels: dict[str, Channel] = {}
        self.rejections: list[Rejection] = []
        self.defects: list[Defect] = []
        self.response_style = "text"
        self.shares: dict[tuple, set[str]] = {}
        self.unfurled: list[dict] = []
        self.triggers = Triggers()
        self.stacks = Stacks()
        self.response_urls = ResponseUrls()
        self._calls: list[Call] = []
        self._cond = threading.Condition()
        self._channel_errors: dict[tuple[str, str], str] = {}
        self._rate_limits: dict[str, list[int]] = {}
        self._method_errors: dict[str, list] = {}
        self._drops: dict[str, int] = {}
        self._ts = itertools.count(1)
        self._base_ts = int(time.time())
        self._responses = itertools.count(1)
        #: Put in every ``response_url`` path ("/response/<run><n>"): ``tests.fakeslack_cli`` sets one per
        #: run, so a restarted fake never hands out a URL paperbot answered before (its journal keys a
        #: command by its URL, and would take the command for one already answered).
        self.run = ""
        self._server = None
        self.echo: Callable[[Call], None] | None = None  # told of each call (tests.fakeslack_cli prints them)
        self._oauth_init()

    # ----------------------------------------------------------------- lifecycle
    def start(self, port: int = 0) -> "FakeSlack":
        """Bind 127.0.0.1 on ``port`` (0: a free one) and serve in a daemon thread."""
        self._server, _ = wire.serve(self, port)
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

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        assert self._server, "FakeSlack not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        """Web API base URL, with the trailing "/" slack_sdk needs."""
        return self.base_url + "/api/"

    # ----------------------------------------------------------------- world
    def new_response_url(self, *, clicker: str | None = None, public: bool = False, owner: str | None = None) -> str:
        """A fresh ``response_url`` on this fake (``/response/<n>``, 5 uses).

        Args:
            clicker: who clicked the message it belongs to (None: a slash command).
            public: that message is seen by everyone (not ephemeral).
            owner: for a public message, the user it answered (None: nobody's
                alone, e.g. a digest post); replacing it from someone else's
                click is recorded in ``defects`` [replace-original].
        """
        path = f"/response/{self.run}{next(self._responses)}"
        self.response_urls.issue(path, ClickOrigin(clicker, public, owner) if clicker else None)
        return self.base_url + path

    def new_trigger_id(self, view: str | None = None) -> str:
        """A fresh ``trigger_id``: one ``views.open``/``views.push``, within 3 s;
        ``view``: the modal it was clicked in (a push goes onto its stack)."""
        return self.triggers.issue(view)

    def channel(self, channel_id: str) -> Channel:
        """The channel's state; unknown ids are public channels the bot is not in,
        except DMs (``D…``), where the bot always is."""
        with self._cond:
            if channel_id not in self.channels:
                self.channels[channel_id] = Channel(
                    private=channel_id.startswith(("D", "G")), bot_member=channel_id.startswith("D")
                )
            return self.channels[channel_id]

    def add_channel(self, channel_id: str, *, private: bool = False, bot_member: bool = False) -> None:
        """Declare a channel: private or public, with or without the bot in it."""
        with self._cond:
            self.channels[channel_id] = Channel(private=private, bot_member=bot_member)

    def add_im(self, channel_id: str) -> None:
        """Declare a DM (``D…``) or group DM between people, without the bot: it
        cannot post, join or read there (``channel_not_found``, [dm-membership])."""
        with self._cond:
            self.channels[channel_id] = Channel(private=True, bot_member=False, im=True)

    def user_message(
        self, channel: str, ts: str, *, user: str = "U0ALICE", text: str = "", thread_ts: str | None = None
    ) -> None:
        """A message a person posted (Slack has it; the bot hears of it by an event):
        kept in ``history`` once, so a thread it replies in counts as active."""
        message = {"type": "message", "ts": ts, "user": user, "text": text}
        if thread_ts and thread_ts != ts:
            message["thread_ts"] = thread_ts
        with self._cond:
            kept = self.history.setdefault(channel, [])
            if not any(m.get("ts") == ts for m in kept):
                kept.append(message)

    def link_shared(
        self,
        urls: list[str],
        *,
        channel: str = "C0GENERAL",
        ts: str = "1765000500.000100",
        composer: bool = False,
        user: str = "U0ALICE",
    ) -> dict[str, Any]:
        """A ``link_shared`` event for ``urls`` (posted in ``channel`` at ``ts``, or
        typed in the composer), remembered so ``chat.unfurl`` may answer it [unfurl]."""
        unfurl_id = f"C-{ts}" if composer else f"U-{channel}-{ts}"
        with self._cond:
            if composer:
                self.shares[("unfurl_id", unfurl_id)] = set(urls)
            else:
                self.shares[("ts", channel, ts)] = set(urls)
                self.shares[("unfurl_id", unfurl_id)] = set(urls)
        domains = [urlsplit(u).hostname or "" for u in urls]
        return {
            "type": "link_shared",
            "channel": "COMPOSER" if composer else channel,
            "is_bot_user_member": True,
            "user": user,
            "message_ts": unfurl_id if composer else ts,
            "unfurl_id": unfurl_id,
            "source": "composer" if composer else "conversations_history",
            "links": [{"domain": d, "url": u} for d, u in zip(domains, urls)],
            "event_ts": ts,
        }

    # ----------------------------------------------------------------- behaviour
    def fail_channel(self, channel: str, error: str, methods: tuple[str, ...] = CHANNEL_METHODS) -> None:
        """Answer ``{"ok": false, "error": error}`` for ``channel`` on ``methods``."""
        for method in methods:
            self._channel_errors[(method, channel)] = error

    def fail_method(self, method: str, error: str, after: int = 0) -> None:
        """Answer calls of ``method`` with ``{"ok": false, "error": error}``,
        after letting ``after`` calls succeed."""
        self._method_errors[method] = [error, after]

    def stop_failing(self, method: str) -> None:
        """Undo ``fail_method(method, …)``: its calls succeed again."""
        self._method_errors.pop(method, None)

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 0) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 429 + ``Retry-After``."""
        self._rate_limits[method] = [times, retry_after]

    def drop_connection(self, method: str, times: int = 1) -> None:
        """Take in and carry out the next ``times`` calls of ``method``, then close
        the connection without answering (the caller cannot know it worked)."""
        self._drops[method] = times

    # ----------------------------------------------------------------- records
    def calls(self, method: str | None = None) -> list[Call]:
        """Requests received so far, oldest first; only ``method``'s when given."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def wait_for(
        self, method: str | None, count: int = 1, timeout: float = 10.0, where: Callable[[Call], bool] | None = None
    ) -> list[Call]:
        """Wait until at least ``count`` matching calls were recorded; return them.

        Raises:
            AssertionError: fewer after ``timeout`` seconds (with what came).
        """

        def matching() -> list[Call]:
            return [c for c in self._calls if (method is None or c.method == method) and (where is None or where(c))]

        deadline = time.monotonic() + timeout
        with self._cond:
            while len(found := matching()) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"expected {count} {method} call(s) within {timeout}s, got "
                        f"{len(found)}; all calls: {[c.method for c in self._calls]}"
                    )
                self._cond.wait(left)
            return found

    def _reject(self, method: str, body: dict, error: str, messages: list[str]) -> dict:
        with self._cond:
            self.rejections.append(Rejection(method, error, list(messages), body))
        answer: dict[str, Any] = {"ok": False, "error": error}
        if messages:
            answer["response_metadata"] = {"messages": list(messages)}
        return answer

    # ----------------------------------------------------------------- answers
    def handle(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple:
        """Answer one request (called by ``tests.strict.wire``)."""
        if path.startswith("/api/"):
            method = path[len("/api/") :]
            status, extra, answer = self.oauth_answer(method, body, headers) or self._answer(method, body)
        elif path == "/oauth/v2/authorize":
            method = "oauth.authorize"
            status, extra, answer = self.authorize(body)
        elif path.startswith("/fake/"):  # tests.fakeslack_cli drives a running fake over HTTP
            method, extra = path, {}
            status, answer = self.admin(path, body)
        elif path.startswith("/response/"):
            method, extra = "response_url", {}
            status, answer = self._respond(path, body)
        else:
            method, status, extra, answer = "unknown", 404, {}, {"ok": False, "error": "unknown_method"}
        drop = self._drops.get(method, 0) > 0
        if drop:
            self._drops[method] -= 1
        with self._cond:
            self._calls.append(Call(method, path, body, headers, 0 if drop else status, answer))
            self._cond.notify_all()
        if self.echo is not None:
            self.echo(self._calls[-1])
        return (status, extra, wire.DROP) if drop else (status, extra, answer)

    def defect(self, method: str, kind: str, detail: str, body: dict[str, Any]) -> None:
        """Record a call Slack accepts whose result no one sees as meant."""
        with self._cond:
            self.defects.append(Defect(method, kind, detail, body))

    def _respond(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        json_style = self.response_style == "json"
        expired = self.response_urls.use(path)
        if expired:  # [response-url]
            self._reject("response_url", body, expired, [])
            return 404, {"ok": False, "error": expired} if json_style else expired
        problem = check_message(body, response_url=True)
        if problem:
            self._reject("response_url", body, *problem)
            return (200, {"ok": False, "error": problem[0]}) if json_style else (400, problem[0])
        if replaces_for_everyone(self.response_urls.origin(path), body):  # [replace-original]
            self.defect("response_url", "replaced_for_everyone", f"{path}: a public message replaced by a click", body)
        return 200, {"ok": True} if json_style else "ok"

    def _answer(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        limit = self._rate_limits.get(method)
        if limit and limit[0] > 0:
            limit[0] -= 1
            return 429, {"Retry-After": str(limit[1])}, {"ok": False, "error": "ratelimited"}
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        try:
            needed = missing_scope(method, body, self.granted, self.channel(str(body.get("channel", ""))))
        except KeyError:
            handler = None
        if handler is None:  # no row in bot/slack/scopes.py
            return 200, {}, self._reject(method, body, "unknown_method", [])
        if needed:  # [missing-scope]
            answer = self._reject(method, body, "missing_scope", [])
            answer.update(needed=needed, provided=",".join(sorted(self.granted)))
            return 200, {}, answer
        error = self._channel_errors.get((method, str(body.get("channel", ""))))
        failing = self._method_errors.get(method)
        if failing and not error:
            if failing[1] > 0:
                failing[1] -= 1
            else:
                error = failing[0]
        if error:
            return 200, {}, {"ok": False, "error": error}
        return 200, {}, handler(body)
