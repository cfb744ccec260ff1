"""Concurrent duplicate deliveries of one event — 2, 4 and 8 copies released
together by a barrier, to one server or to two sharing the database, on SQLite
and PostgreSQL, over HTTP and over Socket Mode — give exactly one reply
(docs/architecture.md "Idempotency and the journal"). A few rounds here;
``benchmarks/duplicates_bench.py`` runs 100 a case."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from tests.slack.burst import Servers, deliver_together, mention_envelope, replies_in_thread

ROUNDS = 3


def _socket_together(running: Servers, body: str, copies: int) -> list[int]:
    """``copies`` Socket Mode envelopes of ``body`` at once (later ones marked retries)."""
    payload = json.loads(body)
    barrier = threading.Barrier(copies)

    def one(i: int) -> int:
        request = SocketModeRequest(
            "events_api", f"env-{i}", payload, retry_attempt=i or None, retry_reason="timeout" if i else None
        )
        barrier.wait(timeout=30)
        return run_bolt_app(running.apps[i % len(running.apps)], request).status

    with ThreadPoolExecutor(max_workers=copies) as pool:
        return list(pool.map(one, range(copies)))


def _http_together(running: Servers, body: str, copies: int) -> list[int]:
    return deliver_together(running.urls, body, copies)


@pytest.mark.parametrize("transport", [_http_together, _socket_together], ids=["http", "socket"])
@pytest.mark.parametrize("servers", [1, 2])
@pytest.mark.parametrize("copies", [2, 4, 8])
def test_duplicates_released_together_get_exactly_one_reply(
    shared_db, copies, servers, transport, fake_slack, seed_index, tmp_path
) -> None:
    running = Servers(fake_slack, seed_index, shared_db, tmp_path, servers)
    try:
        stamps = []
        for n in range(ROUNDS):
            ts = f"1765{len(transport.__name__)}{copies}{servers}{n:03d}.000100"
            body = mention_envelope(f"Ev0DUP{transport.__name__}{copies}S{servers}R{n}", ts, user=f"U0R{n}")
            assert transport(running, body, copies) == [200] * copies
            stamps.append(ts)
        running.drain()
    finally:
        running.close()
    assert [replies_in_thread(fake_slack, ts) for ts in stamps] == [1] * ROUNDS
