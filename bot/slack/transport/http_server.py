"""Production HTTP transport: Bolt's WSGI adapter served by waitress.

Routes (docs/interfaces.md "CLI", ``paperbot serve``):

- ``POST /slack/events`` — slash commands, Events API, interactivity; Bolt
  verifies the signature and refuses (401) one that is wrong or older than
  5 minutes before any listener runs (docs/platform-facts.md "Slack request signing").
- ``GET /healthz`` — ``200 ok`` (for the platform's health checks).
- anything else — ``404``.

Sizing: a request holds a waitress thread while Bolt runs its middleware and
its listener's ack part (``process_before_response=True``: the intake, the
journal's claim — at most 1.5 s for the database — and ``ack()``; the work is
queued, ``bot.slack.delivery.work_queue``), so ``THREADS`` request threads take
50 concurrent commands without queueing (docs/interfaces.md "Quality bars").
"""

from __future__ import annotations

import io
import logging
import threading
import time
from typing import Any, Callable, Iterable

import waitress
from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier

from bot.slack.transport.request_shapes import malformed

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
#: Request threads (waitress default: 4).
THREADS = 64
#: Open connections before waitress stops accepting (default 100).
CONNECTION_LIMIT = 1000
#: Listen backlog (default 1024): a burst waits in the kernel, never refused.
BACKLOG = 2048
#: Largest body accepted, bytes. Slack's payloads are a few kB; a view
#: submission with big inputs stays far below 1 MiB. A larger one gets 413
#: and a short body once it has been read (so the sender sees the answer
#: instead of a reset connection) ...
MAX_BODY = 1 << 20
#: ... up to this size; beyond it waitress answers 413 from the
#: ``Content-Length`` alone and closes the connection.
MAX_REQUEST = 16 * MAX_BODY

StartResponse = Callable[..., Any]


def wsgi_app(app: App) -> Callable[[dict, StartResponse], Iterable[bytes]]:
    """The WSGI application: ``/healthz`` here, everything else to Bolt's adapter.

    Args:
        app: the Bolt app from ``bot.slack.app.build_app``.

    Returns:
        A PEP 3333 callable. Bolt's ``SlackRequestHandler`` answers
        ``POST /slack/events`` and 404s every other path/method.
    """
    slack = SlackRequestHandler(app, path=EVENTS_PATH)
    verifier = SignatureVerifier(getattr(app, "_signing_secret", "") or "")

    def application(environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            body = b"ok" if environ["REQUEST_METHOD"] == "GET" else b""
            start_response("200 OK", [("content-type", "text/plain; charset=utf-8"), ("content-length", "2")])
            return [body]
        if environ.get("PATH_INFO") == EVENTS_PATH and environ.get("REQUEST_METHOD") == "POST":
            # Verify the signature before Bolt parses the body: Bolt parses first,
            # and an unsigned malformed body ("{not json") made it answer 500.
            raw = _read_body(environ)
            if len(raw) > MAX_BODY:
                log.warning(
                    "refused a request to %s (413): its body has %d bytes, more than %d",
                    EVENTS_PATH,
                    len(raw),
                    MAX_BODY,
                )
                return _plain(start_response, "413 Payload Too Large", b'{"error":"body too large"}')
            problem = _unsigned(verifier, raw, environ)
            if problem:
                log.warning("rejected a request to %s (401): %s", EVENTS_PATH, problem)
                return _plain(start_response, "401 Unauthorized", b'{"error":"invalid request"}')
            problem = malformed(raw, environ.get("CONTENT_TYPE", ""))
            if problem:
                log.warning("bad request to %s (400): %s", EVENTS_PATH, problem)
                return _plain(start_response, "400 Bad Request", b'{"error":"bad request"}')
            environ["wsgi.input"] = io.BytesIO(raw)
            environ["CONTENT_LENGTH"] = str(len(raw))
        try:
            return slack(environ, start_response)
        except Exception as exc:  # a signed but malformed body: 400, one line, never a traceback
            log.warning("bad request to %s (%s); answered 400", environ.get("PATH_INFO"), type(exc).__name__)
            return _plain(start_response, "400 Bad Request", b'{"error":"bad request"}')

    return application


#: What to check for each reason a request is refused (README "Connecting a real
#: workspace", step 5). Slack's rule: https://docs.slack.dev/authentication/verifying-requests-from-slack
UNSIGNED = "no X-Slack-Signature / X-Slack-Request-Timestamp headers: not sent by Slack"
STALE = "its timestamp is {age} s away from this machine's clock and Slack's limit is 5 minutes: check the clock (NTP)"
BAD_TIMESTAMP = "its X-Slack-Request-Timestamp is not a whole number of seconds: not sent by Slack"
NOT_UTF8 = "its body is not valid UTF-8, so its signature cannot be checked: Slack sends UTF-8"
MISMATCH = (
    "its signature does not match SLACK_SIGNING_SECRET: copy the app's Signing Secret again "
    "(Basic Information → App Credentials; not the Client Secret or Verification Token), "
    "restart paperbot serve, then Retry the URL in the app settings"
)


def _unsigned(verifier: SignatureVerifier, raw: bytes, environ: dict) -> str | None:
    """None when the request carries a valid, fresh (≤ 5 min) Slack signature,
    else one line saying what is wrong (``UNSIGNED``, ``BAD_TIMESTAMP``,
    ``STALE``, ``NOT_UTF8``, ``MISMATCH``)."""
    timestamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP", "")
    signature = environ.get("HTTP_X_SLACK_SIGNATURE", "")
    if not timestamp or not signature:
        return UNSIGNED
    if not timestamp.isascii() or not timestamp.isdigit():
        return BAD_TIMESTAMP
    age = int(time.time()) - int(timestamp)
    if abs(age) > 300:
        return STALE.format(age=age)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_UTF8
    if not signature.isascii():  # Slack's is "v0=" + hex; hmac refuses to compare non-ASCII text
        return MISMATCH
    if verifier.is_valid(body=text, timestamp=timestamp, signature=signature):
        return None
    return MISMATCH


def _read_body(environ: dict) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return environ["wsgi.input"].read(length) if length > 0 else b""


def _plain(start_response: StartResponse, status: str, body: bytes) -> Iterable[bytes]:
    start_response(status, [("content-type", "application/json"), ("content-length", str(len(body)))])
    return [body]


class HttpServer:
    """A waitress server bound to a port; ``run()`` blocks, ``close()`` stops it.

    Attributes:
        host: the bound address ("127.0.0.1", "0.0.0.0").
        port: the bound port (the real one when 0 was asked for).
        url: ``http://host:port`` (for tests and logs).
    """

    def __init__(self, server: Any) -> None:
        self._server = server
        self._stopped = threading.Event()
        self._running = False
        self._loop_thread: int | None = None
        self._detached: list[Any] = []
        self.host: str = server.effective_host
        self.port: int = int(server.effective_port)
        self.url = f"http://{self.host}:{self.port}"

    def run(self) -> None:
        """Serve until ``close()`` (or KeyboardInterrupt). Blocks the calling thread."""
        self._running = True
        self._loop_thread = threading.get_ident()
        try:
            self._server.run()
        finally:
            self._running = False
            for channel in self._detached:
                _close(channel)
            self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
            self._stopped.set()

    def close(self, timeout: float = 5.0) -> None:
        """Stop accepting, close every connection, stop the request threads.

        Safe from any thread, from a signal handler interrupting ``run()``
        (e.g. SIGTERM) and when ``run()`` never started. From another thread
        it waits up to ``timeout`` seconds for ``run()`` to return.
        """
        server = self._server
        if not self._running:
            _close_all(server)
            server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout)
        elif threading.get_ident() == self._loop_thread:
            # A signal handler interrupted run()'s select(): closing the
            # sockets now would make the resumed select() fail (EBADF).
            # Detach them; the loop ends on an empty map, run() closes them.
            self._detached.extend(server._map.values())
            server._map.clear()
            server.trigger.pull_trigger()  # wake select(); takes no lock
        else:
            # Close on the loop's own thread: from here it would race select().
            try:
                server.trigger.pull_trigger(lambda: _close_all(server))
            except OSError:
                # The trigger's pipe is already closed (seen once in CI, under
                # load): the loop cannot be woken, so close from here instead.
                log.debug("server trigger already closed; closing directly")
                _close_all(server)
            self._stopped.wait(timeout)


def _close(channel: Any) -> None:
    try:
        channel.close()
    except OSError:
        pass


def _close_all(server: Any) -> None:
    for channel in list(server._map.values()):
        _close(channel)


def make_server(app: App, host: str = "0.0.0.0", port: int = 3000, *, threads: int = THREADS) -> HttpServer:
    """Bind a production WSGI server for ``app`` (does not start serving).

    Args:
        app: the Bolt app.
        host: address to bind; "0.0.0.0" in a container, "127.0.0.1" in tests.
        port: TCP port; 0 picks a free one (see ``HttpServer.port``).
        threads: request threads (default ``THREADS``).

    Returns:
        HttpServer: call ``run()`` (blocking; in a thread for tests) and
        ``close()``.

    Raises:
        OSError: the port is taken or the address cannot be bound.
    """
    server = waitress.create_server(
        wsgi_app(app),
        host=host,
        port=port,
        threads=threads,
        connection_limit=CONNECTION_LIMIT,
        backlog=BACKLOG,
        max_request_body_size=MAX_REQUEST,
        ident="paperbot",
        clear_untrusted_proxy_headers=True,
    )
    return HttpServer(server)
