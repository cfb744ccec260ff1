"""Socket Mode transport: the same Bolt app over Slack's websocket.

Uses slack_sdk's built-in Socket Mode client (``slack_sdk.socket_mode.builtin``,
no extra dependency) under a small Bolt handler. Bolt skips signature checks
in Socket Mode and copies the envelope's ``retry_attempt`` / ``retry_reason``
into the ``X-Slack-Retry-*`` headers, so the listeners behave as over HTTP
(docs/platform-facts.md "Socket Mode", "Bolt"). Needs an app-level token (``xapp-…``, scope
``connections:write``).

Surviving the network (README "Socket Mode and the network"): the built-in
client reconnects by itself — through a fresh ``apps.connections.open`` URL —
after a close frame, when Slack sends a ``disconnect`` message (reasons
``warning``, ``refresh_requested``), and when no pong came back for four ping
intervals. It does not notice a TCP connection the server shut without a close
frame (its receive loop reads the end of the stream as "no data yet" and spins
until the pongs are missed, 4 ping intervals later; treating an empty read as
closed was tried upstream and reverted, https://github.com/slackapi/python-slack-sdk/pull/1246
and /pull/1269), so ``_Client`` also polls
the socket for the peer's shutdown (Linux ``POLLRDHUP``, poll(2)) every
``EOF_CHECK_S`` and reconnects at once. The one reason it must not reconnect on is
``link_disabled``: Socket Mode was switched off in the app settings
(https://docs.slack.dev/apis/events-api/using-socket-mode), and
the client would otherwise keep reconnecting. ``run_socket`` then logs one
ERROR and raises ``SocketModeDisabled``.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import threading
import time

from slack_bolt import App, BoltResponse
from slack_bolt.adapter.socket_mode.base_handler import BaseSocketModeHandler
from slack_bolt.adapter.socket_mode.internals import run_bolt_app, send_response
from slack_sdk import WebClient
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.interval_runner import IntervalRunner
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.slack.transport.request_shapes import event_problem, interaction_problem

log = logging.getLogger(__name__)

#: Threads the socket client uses to hand envelopes to Bolt. Each holds its
#: envelope only while Bolt runs the middleware and the listener's ack part on
#: it (the work is queued on the app's listener pool, bot.slack.delivery.work_queue),
#: so this need not match the 50-command target.
CONCURRENCY = 16
#: Seconds between pings (slack_sdk's client default); no pong for 4 of them → reconnect.
PING_INTERVAL = 5.0
#: Seconds between checks for a connection the server shut down.
EOF_CHECK_S = 0.5
#: The ``disconnect`` reason that means "Socket Mode is off for this app".
LINK_DISABLED = "link_disabled"
DISABLED_MESSAGE = (
    "Socket Mode is switched off in the app settings (Slack sent disconnect reason "
    "link_disabled): turn it on under Settings → Socket Mode at https://api.slack.com/apps, "
    "or run paperbot serve for HTTP mode"
)


class SocketModeDisabled(Exception):
    """Slack closed the connection with reason ``link_disabled``; reconnecting is pointless."""


class _Client(SocketModeClient):
    """The built-in client, except that a ``link_disabled`` disconnect stops it
    instead of reconnecting (the base class reconnects on every ``disconnect``)."""

    def __init__(self, **kwargs) -> None:
        self.link_disabled = threading.Event()
        super().__init__(**kwargs)
        self._eof_watch = IntervalRunner(self._check_peer, EOF_CHECK_S).start()

    def _check_peer(self) -> None:
        try:
            session = self.current_session
            sock = getattr(session, "sock", None)  # builtin Connection: None once closed
            if self.closed or sock is None or not _peer_closed(sock):
                return
            log.info("the Socket Mode connection was closed by the server; reconnecting")
            session.disconnect()
            if self.auto_reconnect_enabled:
                self.connect_to_new_endpoint()
        except Exception:  # noqa: BLE001 — keep watching; the library's monitor retries too
            log.warning("could not reconnect the Socket Mode connection yet", exc_info=True)

    def close(self) -> None:
        self._eof_watch.shutdown()
        sock = getattr(self.current_session, "sock", None)
        if sock is not None:
            try:  # wakes the receive thread now instead of after its 3 s socket timeout
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        super().close()

    def enqueue_message(self, message: str) -> None:
        if '"disconnect"' in message and LINK_DISABLED in message:
            try:
                parsed = json.loads(message)
            except ValueError:
                parsed = {}
            if parsed.get("type") == "disconnect" and parsed.get("reason") == LINK_DISABLED:
                self.auto_reconnect_enabled = self.default_auto_reconnect_enabled = False
                self.link_disabled.set()
                return
        super().enqueue_message(message)


def _peer_closed(sock) -> bool:
    """True when the other end shut the TCP connection down (``POLLRDHUP``,
    Linux; elsewhere always False and the ping timeout covers it). Reads
    nothing, so it works under TLS too."""
    flag = getattr(select, "POLLRDHUP", 0)
    if not flag:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), flag | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(0))
    except (OSError, ValueError):  # closed meanwhile (fileno -1)
        return False


class SocketHandler(BaseSocketModeHandler):
    """Bolt's Socket Mode handler (``slack_bolt.adapter.socket_mode``) over ``_Client``.

    Args:
        app: the Bolt app.
        app_token: the app-level token ``xapp-…``.
        web_client: the client ``apps.connections.open`` is called with (default: ``app.client``).
        ping_interval: seconds between pings.

    Attributes:
        app: the Bolt app; app_token: the ``xapp-…`` token; client: the socket client.
    """

    def __init__(
        self, app: App, app_token: str, *, web_client: WebClient | None = None, ping_interval: float = PING_INTERVAL
    ) -> None:
        self.app = app
        self.app_token = app_token
        self.client = _Client(
            app_token=app_token,
            logger=app.logger,
            web_client=web_client if web_client is not None else app.client,
            proxy=app.client.proxy,
            ping_interval=ping_interval,
            concurrency=CONCURRENCY,
        )
        self.client.socket_mode_request_listeners.append(self.handle)

    def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:
        """Dispatch one envelope to Bolt and send its ack (as Bolt's own handler does);
        one whose payload Slack could never send (``bot.slack.transport.request_shapes``)
        is acknowledged and ignored, with one WARNING, before Bolt sees it.

        Args:
            client: the Socket Mode client the envelope came on.
            req: the envelope.
        """
        start = time.time()
        problem = envelope_problem(req.type, req.payload)
        if problem:
            log.warning("a Socket Mode %s envelope Slack would not send (%s); acked, ignored", req.type, problem)
            send_response(client, req, BoltResponse(status=200, body=""), start)  # the envelope's ack
            return
        send_response(client, req, run_bolt_app(self.app, req), start)


def envelope_problem(kind: str, payload: object) -> str | None:
    """Why a Socket Mode envelope's ``payload`` cannot be one Slack sends, or None
    (slash commands are left to Bolt, as over HTTP).

    Args:
        kind: the envelope's ``type`` ("interactive", "events_api", "slash_commands" …).
        payload: the envelope's ``payload`` as Slack sent it (any JSON value).
    """
    if kind == "interactive":
        return interaction_problem(payload)
    if kind == "events_api":
        return event_problem(payload) if isinstance(payload, dict) else "its payload is not a JSON object"
    return None


def socket_handler(
    app: App, app_token: str, *, web_client: WebClient | None = None, ping_interval: float = PING_INTERVAL
) -> SocketHandler:
    """A Socket Mode handler for ``app`` (not connected yet).

    Args:
        app: the Bolt app from ``bot.slack.app.build_app``.
        app_token: the app-level token ``xapp-…``; must be non-empty.
        web_client: the client ``apps.connections.open`` is called with
            (default: ``app.client``, i.e. ``SLACK_API_URL``).
        ping_interval: seconds between pings; 4 without a pong → reconnect.

    Raises:
        ValueError: ``app_token`` is empty.
    """
    if not app_token:
        raise ValueError("an app-level token (xapp-…) is required for Socket Mode")
    return SocketHandler(app, app_token, web_client=web_client, ping_interval=ping_interval)


def run_socket(
    app: App, app_token: str, *, web_client: WebClient | None = None, ping_interval: float = PING_INTERVAL
) -> None:
    """Connect to Slack over Socket Mode and serve until the process ends.

    Blocks the calling thread; reconnects on its own when the connection
    drops (module docstring). Arguments as ``socket_handler``.

    Args:
        app: the Bolt app from ``bot.slack.app.build_app``.
        app_token: the app-level token ``xapp-…``; must be non-empty.
        web_client: as ``socket_handler``.
        ping_interval: as ``socket_handler``.

    Raises:
        ValueError: ``app_token`` is empty.
        slack_sdk.errors.SlackApiError: ``apps.connections.open`` refused
            the token (e.g. ``invalid_auth``, ``not_allowed_token_type``).
        SocketModeDisabled: Slack sent ``disconnect`` with reason
            ``link_disabled``; one ERROR naming the fix was logged.
    """
    handler = socket_handler(app, app_token, web_client=web_client, ping_interval=ping_interval)
    try:
        handler.connect()
        log.warning("paperbot connected to Slack over Socket Mode")
        handler.client.link_disabled.wait()
    finally:
        handler.close()
    log.error(DISABLED_MESSAGE)
    raise SocketModeDisabled(DISABLED_MESSAGE)
