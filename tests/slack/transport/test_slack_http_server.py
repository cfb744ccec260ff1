"""The waitress server: routes, free port, clean shutdown, body limit."""

from __future__ import annotations

import http.client
import socket
import threading

import pytest

from bot.slack.transport.http_server import MAX_REQUEST, make_server
from tests.slack.slackkit import SlackHarness


def test_port_zero_binds_a_free_port_and_close_stops_run(slack: SlackHarness) -> None:
    server = make_server(slack.app, "127.0.0.1", 0)
    assert server.port > 0 and server.url == f"http://127.0.0.1:{server.port}"
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    # An idle keep-alive connection must not keep the server alive.
    idle = socket.create_connection(("127.0.0.1", server.port))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/healthz")
    assert conn.getresponse().read() == b"ok"

    server.close()
    thread.join(10)

    assert not thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
    idle.close()
    conn.close()


def test_close_without_run(slack: SlackHarness) -> None:
    server = make_server(slack.app, "127.0.0.1", 0)
    server.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()


def test_head_healthz(slack: SlackHarness) -> None:
    response = slack.request("HEAD", "/healthz")
    assert (response.status, response.body) == (200, b"")


def test_oversized_body_is_refused_before_bolt(slack: SlackHarness) -> None:
    before = len(slack.fake.calls())
    port = int(slack.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        # Only the headers: waitress answers from Content-Length alone.
        sock.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % (MAX_REQUEST + 1)
        )
        status_line = sock.makefile("rb").readline()
    assert status_line.split()[1] == b"413"
    assert len(slack.fake.calls()) == before
