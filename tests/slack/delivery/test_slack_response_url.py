"""``bot.slack.delivery.response_url.post_json``: connected before ``ready()``, nothing written
before it, and each failure on the side that says whether Slack may have the
reply (docs/architecture.md "Idempotency and the journal"). A raw loopback
socket server plays Slack, so the test sees exactly when bytes arrive."""

from __future__ import annotations

import socket
import threading
from urllib.error import URLError

import pytest

from bot.slack.delivery.response_url import post_json


class RawServer:
    """Accepts one connection; ``answer`` is what it writes back after the request
    (None: close without answering). Records whether bytes had arrived when asked."""

    def __init__(self, answer: bytes | None) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.conn: socket.socket | None = None
        self.request = b""
        self.answer = answer
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.conn, _ = self.sock.accept()
        self.accepted.set()
        self.conn.settimeout(10)
        while b"\r\n\r\n" not in self.request:
            chunk = self.conn.recv(65536)
            if not chunk:  # the client hung up before a whole request
                self.conn.close()
                return
            self.request += chunk
        head, _, rest = self.request.partition(b"\r\n\r\n")
        length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
        while len(rest) < length:
            rest += self.conn.recv(65536)
        self.request = head + b"\r\n\r\n" + rest
        if self.answer is not None:
            self.conn.sendall(self.answer)
        self.conn.close()

    def bytes_waiting(self) -> int:
        """Bytes the client has written so far (peeked, not consumed)."""
        assert self.conn is not None
        self.conn.setblocking(False)
        try:
            return len(self.conn.recv(65536, socket.MSG_PEEK))
        except BlockingIOError:
            return 0
        finally:
            self.conn.setblocking(True)

    def close(self) -> None:
        self.thread.join(timeout=10)
        self.sock.close()


OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"


def test_the_connection_is_open_and_nothing_written_when_ready_is_called() -> None:
    server = RawServer(OK)
    seen = []

    def ready() -> None:
        assert server.accepted.wait(5)  # the connection is up …
        seen.append(server.bytes_waiting())  # … and not one byte of the request is out

    answer = post_json(f"http://127.0.0.1:{server.port}/response/1", {"text": "hi", "blocks": None}, ready=ready)
    server.close()
    assert seen == [0]
    assert answer.status_code == 200 and answer.body == "ok"
    assert server.request.startswith(b"POST /response/1 HTTP/1.1")
    assert server.request.endswith(b'{"text": "hi"}')  # None values left out


def test_what_ready_raises_stops_the_post() -> None:
    server = RawServer(OK)

    class Stop(Exception):
        pass

    def ready() -> None:
        raise Stop()

    with pytest.raises(Stop):
        post_json(f"http://127.0.0.1:{server.port}/response/2", {"text": "hi"}, ready=ready)
    server.thread.join(timeout=5)  # the server saw the connection close, empty
    assert server.request == b""
    server.sock.close()


def test_a_refused_connection_is_a_urlerror_and_ready_is_not_called() -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    called = []
    with pytest.raises(URLError):
        post_json(f"http://127.0.0.1:{port}/response/3", {"text": "hi"}, ready=lambda: called.append(1))
    assert called == []


def test_a_connection_closed_after_the_request_is_ambiguous() -> None:
    server = RawServer(None)  # reads it all, then hangs up without an answer
    with pytest.raises(ConnectionError):
        post_json(f"http://127.0.0.1:{server.port}/response/4", {"text": "hi"})
    server.close()
    assert server.request.endswith(b'{"text": "hi"}')


def test_a_url_that_is_not_http_is_refused() -> None:
    for url in ("not a url", "ftp://example.org/x", "https:///nohost"):
        with pytest.raises(ValueError):
            post_json(url, {"text": "hi"})
