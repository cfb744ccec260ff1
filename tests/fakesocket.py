"""A fake Slack Socket Mode endpoint on a free loopback port: ``apps.connections.open`` plus
the websocket it hands out, written with the standard library (RFC 6455 framing).

What it does, after Slack's Socket Mode page (https://docs.slack.dev/apis/events-api/using-socket-mode;
``docs/platform-facts.md``):

- ``POST /api/apps.connections.open`` with an ``xapp-`` token answers
  ``{"ok": true, "url": "ws://127.0.0.1:<port>/link?ticket=<n>"}``; any other token
  ``not_allowed_token_type``. Every other ``/api/<method>`` is forwarded to ``upstream`` (a
  ``tests.fakeslack.FakeSlack`` base URL), so one ``SLACK_API_URL`` serves a whole bot process.
- A websocket on ``/link`` gets ``hello`` first; then the test pushes envelopes with ``send``
  and reads the bot's acks (``{"envelope_id": …, "payload"?: …}``) with ``wait_for_ack``.
- Pings are answered with pongs carrying the same payload, unless ``answer_pings`` is False
  (a network that silently stops delivering).
- ``drop()`` closes the newest connection's TCP socket without a close frame (the server or
  the network going away); ``disconnect(reason)`` sends ``{"type": "disconnect", "reason": …}``
  (``warning``, ``refresh_requested``, ``link_disabled``) and keeps the socket open, as Slack
  does until it closes it about 10 s later.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: RFC 6455 section 1.3: the GUID appended to Sec-WebSocket-Key.
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class Link:
    """One websocket connection from the bot."""

    def __init__(self, sock: socket.socket, ticket: str) -> None:
        self.sock, self.ticket = sock, ticket
        self.open = True
        self.pings = 0
        self._send_lock = threading.Lock()

    def send_frame(self, opcode: int, data: bytes) -> None:
        """Write one unmasked frame (servers never mask, RFC 6455 section 5.1)."""
        n = len(data)
        head = bytes([0x80 | opcode])
        head += (
            bytes([n])
            if n < 126
            else (bytes([126]) + struct.pack("!H", n) if n < 1 << 16 else bytes([127]) + struct.pack("!Q", n))
        )
        with self._send_lock:
            self.sock.sendall(head + data)

    def send_json(self, message: dict[str, Any]) -> None:
        self.send_frame(TEXT, json.dumps(message).encode())

    def read_frame(self) -> tuple[int, bytes]:
        """Read one (masked, client) frame; raises ConnectionError at EOF."""
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
        mask = self._read(4) if b1 & 0x80 else b"\0\0\0\0"
        data = bytes(c ^ mask[i % 4] for i, c in enumerate(self._read(n)))
        return b0 & 0x0F, data

    def _read(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed")
            out += chunk
        return out

    def drop(self) -> None:
        self.open = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class FakeSocketMode:
    """The fake endpoint. ``start()``/``stop()`` or a context manager.

    Attributes:
        upstream: base URL other Web API methods are forwarded to (``FakeSlack.base_url``), or None.
        answer_pings: answer ping frames (default True).
        opened: how many times ``apps.connections.open`` was answered.
        links: every websocket connection, oldest first.
        acks: every ack received, oldest first (parsed JSON).
    """

    def __init__(self, upstream: str | None = None) -> None:
        self.upstream = upstream.rstrip("/") if upstream else None
        self.answer_pings = True
        self.opened = 0
        self.links: list[Link] = []
        self.acks: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._tickets = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeSocketMode":
        owner = self

        class Handler(_Handler):
            fake = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fakesocket", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        for link in self.links:
            link.drop()

    def __enter__(self) -> "FakeSocketMode":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def api_url(self) -> str:
        """Web API base URL (with the trailing "/") to give the bot as ``SLACK_API_URL``."""
        assert self._server, "FakeSocketMode not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/api/"

    # ------------------------------------------------------------------ the test's side
    def wait_for_links(self, count: int, timeout: float = 15.0) -> Link:
        """Wait until ``count`` connections got their ``hello``; return the newest open one."""
        return self._wait(lambda: len(self.links) >= count and self._newest(), timeout, f"{count} connection(s)")

    def send(self, envelope: dict[str, Any]) -> None:
        """Push ``envelope`` on the newest open connection."""
        link = self._newest()
        assert link, "no open connection"
        link.send_json(envelope)

    def wait_for_ack(self, envelope_id: str, timeout: float = 15.0) -> dict[str, Any]:
        """The bot's ack for ``envelope_id`` (waits for it)."""
        return self._wait(
            lambda: next((a for a in self.acks if a.get("envelope_id") == envelope_id), None),
            timeout,
            f"an ack for {envelope_id}",
        )

    def drop(self) -> None:
        """Close the newest connection abruptly (no close frame)."""
        link = self._newest()
        assert link, "no open connection"
        link.drop()

    def disconnect(self, reason: str) -> None:
        """Send a ``disconnect`` message with ``reason`` on the newest connection."""
        self.send({"type": "disconnect", "reason": reason, "debug_info": {"host": "fakesocket"}})

    def _newest(self) -> Link | None:
        return next((link for link in reversed(self.links) if link.open), None)

    def _wait(self, found, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (value := found()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"expected {what} within {timeout}s; links={len(self.links)}, "
                        f"opened={self.opened}, acks={self.acks}"
                    )
                self._cond.wait(min(left, 0.1))
            return value

    def _notify(self) -> None:
        with self._cond:
            self._cond.notify_all()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSocketMode
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/api/apps.connections.open"):
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            if not token.startswith("xapp-"):
                return self._json(200, {"ok": False, "error": "not_allowed_token_type"})
            with self.fake._cond:
                self.fake.opened += 1
                ticket = next(self.fake._tickets)
            port = self.server.server_address[1]
            return self._json(200, {"ok": True, "url": f"ws://127.0.0.1:{port}/link?ticket={ticket}"})
        if not (self.fake.upstream and self.path.startswith("/api/")):
            return self._json(404, {"ok": False, "error": "unknown_method"})
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
        req = urllib.request.Request(self.fake.upstream + self.path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, data, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, data, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        self._raw(status, data, ctype)

    def do_GET(self) -> None:
        if not self.path.startswith("/link") or self.headers.get("Upgrade", "").lower() != "websocket":
            return self._json(404, {"ok": False, "error": "not_found"})
        key = self.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.wfile.write(
            (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
            ).encode()
        )
        self.wfile.flush()
        link = Link(self.connection, self.path.partition("ticket=")[2])
        link.send_json(
            {
                "type": "hello",
                "num_connections": 1,
                "connection_info": {"app_id": "A0PAPERBOT"},
                "debug_info": {"host": "fakesocket", "approximate_connection_time": 18060},
            }
        )
        with self.fake._cond:
            self.fake.links.append(link)
            self.fake._cond.notify_all()
        self._serve(link)
        self.close_connection = True

    def _serve(self, link: Link) -> None:
        try:
            while link.open:
                opcode, data = link.read_frame()
                if opcode == PING:
                    link.pings += 1
                    if self.fake.answer_pings:
                        link.send_frame(PONG, data)
                elif opcode == TEXT:
                    with self.fake._cond:
                        self.fake.acks.append(json.loads(data))
                        self.fake._cond.notify_all()
                elif opcode == CLOSE:
                    link.send_frame(CLOSE, data[:2])
                    break
        except (ConnectionError, OSError, ValueError):
            pass
        finally:
            link.open = False
            self.fake._notify()

    def _json(self, status: int, value: dict) -> None:
        self._raw(status, json.dumps(value).encode(), "application/json; charset=utf-8")

    def _raw(self, status: int, data: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
