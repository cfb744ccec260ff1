"""The fake Slack's HTTP side: parse a request, hand it to the fake, write the answer.

``serve(owner)`` binds 127.0.0.1 on a free port and serves in a daemon
thread; ``owner.handle(path, body, headers)`` returns ``(status, extra
headers, answer)`` where ``answer`` is a dict (JSON), a str (text/plain) or
``DROP`` — the request was taken in, but the connection is closed before
any answer (what a network failure after Slack received a call looks like).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

DROP = object()


class _Server(ThreadingHTTPServer):
    """A listen backlog of 128, not socketserver's 5: Slack's edge takes a burst of
    connections at once, and a full backlog would make clients wait a second per
    dropped SYN — slowness of the fake, not of the bot."""

    request_queue_size = 128


def serve(owner: Any, port: int = 0) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Start serving ``owner`` on loopback ``port`` (0: a free one); returns (server, thread)."""

    class Handler(_Handler):
        fake = owner

    server = _Server(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.005,), name="fakeslack", daemon=True)
    thread.start()
    return server, thread


class _Handler(BaseHTTPRequestHandler):
    fake: Any
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
        if len(raw) < length:
            # The client died mid-request (a kill -9 between headers and body):
            # an HTTP server never acts on a body shorter than its Content-Length,
            # and neither does Slack — the call never happened.
            self.close_connection = True
            return
        if url.path.startswith("/upload/"):  # file bytes (tests.strict.files), not a form
            status, answer = self.fake.upload(url.path, raw.decode("utf-8", "replace"))
            extra: dict = {}
        else:
            body = parse_body(raw, self.headers.get("Content-Type", ""))
            body.update({k: v for k, v in parse_qsl(url.query) if k not in body})
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, answer = self.fake.handle(url.path, body, headers)
        if answer is DROP:
            self.close_connection = True
            return
        data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
        self.send_response(status)
        ctype = "text/plain" if isinstance(answer, str) else "application/json; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def parse_body(raw: bytes, content_type: str) -> dict[str, Any]:
    """A request body as a dict: JSON object, or form fields (one value each)."""
    if not raw:
        return {}
    text = raw.decode("utf-8")
    if "json" in content_type:
        value = json.loads(text)
        return value if isinstance(value, dict) else {"_json": value}
    return dict(parse_qsl(text, keep_blank_values=True))
