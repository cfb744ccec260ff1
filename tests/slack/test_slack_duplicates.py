"""Concurrent duplicate deliveries of one event — 2, 4 and 8 copies released
together by a barrier, to one server or to two sharing the database, on SQLite
and PostgreSQL — give exactly one reply (docs/architecture.md "Idempotency").
A few rounds here; ``benchmarks/duplicates_bench.py`` runs 100 a case."""
from __future__ import annotations

import pytest

from tests.slack.burst import Servers, deliver_together, mention_envelope, replies_in_thread

ROUNDS = 3


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_db(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    return request.getfixturevalue("pg_schema")[0]


@pytest.mark.parametrize("servers", [1, 2])
@pytest.mark.parametrize("copies", [2, 4, 8])
def test_duplicates_released_together_get_exactly_one_reply(shared_db, copies, servers, fake_slack,
                                                            seed_index, tmp_path) -> None:
    running = Servers(fake_slack, seed_index, shared_db, tmp_path, servers)
    try:
        stamps = []
        for n in range(ROUNDS):
            ts = f"17651{copies}{servers}{n:03d}.000100"
            body = mention_envelope(f"Ev0DUP{copies}S{servers}R{n}", ts)
            assert deliver_together(running.urls, body, copies) == [200] * copies
            stamps.append(ts)
        running.drain()
    finally:
        running.close()
    assert [replies_in_thread(fake_slack, ts) for ts in stamps] == [1] * ROUNDS
