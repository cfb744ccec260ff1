"""Group commit of SQLite journal claims (``bot.store.claim_batches``): claims made at the same
moment share one write transaction, each still all or nothing, answered once committed; a
claim whose bound passes while it queues gives up and leaves nothing behind."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from bot.store import Store
from bot.store.db import transaction
from tests.kit import HeldSqliteLock

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
LEASE = timedelta(seconds=60)


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'batches.db'}")
    yield s
    s.close()


def claim(store, key, aliases=(), owner="a", **kw):
    return store.journal_claim(key, kind="event", payload="{}", owner=owner, lease=LEASE, aliases=aliases, now=T0, **kw)


def queued_behind_a_writer(store, claims: list[tuple[str, tuple[str, ...]]], timeout_ms: int = 20_000) -> list:
    """Run ``claims`` on threads while another writer of this process holds the write lock,
    release it once every claim is queued, and return their answers (or exceptions)."""
    batches = store._batches()
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with transaction(store._engine, write=True) as conn:
            conn.exec_driver_sql("SELECT 1")
            holding.set()
            release.wait(30)

    held = threading.Thread(target=writer)
    held.start()
    holding.wait(30)

    def one(item):
        key, aliases = item
        try:
            return claim(store, key, aliases, lock_timeout_ms=timeout_ms)
        except Exception as exc:  # noqa: BLE001 — returned for the assertion
            return exc

    with ThreadPoolExecutor(len(claims)) as pool:
        answers = [pool.submit(one, item) for item in claims]
        deadline = time.monotonic() + 30
        while len(batches._waiting) < len(claims) and time.monotonic() < deadline:
            time.sleep(0.005)
        queued = len(batches._waiting)
        release.set()
        held.join(30)
        results = [a.result(60) for a in answers]
    assert queued == len(claims)
    return results


def test_claims_queued_together_are_committed_in_one_transaction(store) -> None:
    before = (store._batches().batches, store._batches().claims)
    keys = [(f"event:Ev{i}", (f"msg:T:C:{i}.0",)) for i in range(12)]
    assert queued_behind_a_writer(store, keys) == [1] * 12
    assert (store._batches().batches - before[0], store._batches().claims - before[1]) == (1, 12)
    assert all(store.journal_state(key) is not None for key, _ in keys)
    assert all(not store.claim_keys([aliases[0]]) for _, aliases in keys)  # the aliases were written too


def test_two_deliveries_of_one_event_in_one_batch_are_claimed_once(store) -> None:
    same = ("event:EvSame", ("msg:T:C:7.0",))
    edit = ("event:EvEdit", ("msg:T:C:7.0",))  # another event id for the same message
    other = ("event:EvOther", ("msg:T:C:8.0",))
    answers = queued_behind_a_writer(store, [same, same, edit, other])
    assert sorted(answers[:3]) == [0, 0, 1]  # one of the three copies of the message wins
    assert answers[3] == 1
    winner = [same, same, edit][answers[:3].index(1)][0]
    loser = "event:EvEdit" if winner == "event:EvSame" else "event:EvSame"
    assert store.journal_state(loser) is None  # all or nothing: the loser added no row


def test_a_claim_that_exists_already_is_refused_inside_a_batch_and_adds_nothing(store) -> None:
    assert claim(store, "event:EvOld", ("msg:T:C:1.0",)) == 1
    answers = queued_behind_a_writer(
        store, [("event:EvNew", ("msg:T:C:1.0",)), ("event:EvOld", ()), ("event:EvFresh", ("msg:T:C:2.0",))]
    )
    assert answers == [0, 0, 1]
    assert store.journal_state("event:EvNew") is None


def test_queued_claims_give_up_at_their_bound_while_the_lock_is_held_elsewhere(tmp_path) -> None:
    path = tmp_path / "held.db"
    store = Store(f"sqlite:///{path}")
    try:
        with HeldSqliteLock(path) as lock:
            with ThreadPoolExecutor(6) as pool:
                answers = list(
                    pool.map(lambda i: _try(lambda: claim(store, f"event:EvH{i}", lock_timeout_ms=300)), range(6))
                )
            assert lock.held  # they gave up by themselves, the lock never came free
        assert all(isinstance(a, sa.exc.OperationalError) and "locked" in str(a) for a in answers)
        assert all(store.journal_state(f"event:EvH{i}") is None for i in range(6))  # nothing half-written
        assert claim(store, "event:EvH0") == 1  # free again: claimed
    finally:
        store.close()


def _try(call):
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 — returned for the assertion
        return exc


def test_a_claim_with_a_short_bound_fails_alone_and_the_others_wait_for_their_own(tmp_path) -> None:
    # The journal gives claims 0.2 s right after one gave up (STUCK_WAIT_MS), others 1.5 s: a
    # leader bounded by a short claim must not fail the claims queued beside it with more time.
    path = tmp_path / "held.db"
    store = Store(f"sqlite:///{path}")
    batches = store._batches()
    try:
        lock = HeldSqliteLock(path)
        with ThreadPoolExecutor(3) as pool:
            first = pool.submit(_try, lambda: claim(store, "event:EvFirst", lock_timeout_ms=1_000))
            _until(lambda: batches._leading)  # it leads, waiting for the lock held elsewhere
            short = pool.submit(_try, lambda: claim(store, "event:EvShort", lock_timeout_ms=1_500))
            longer = pool.submit(_try, lambda: claim(store, "event:EvLong", lock_timeout_ms=30_000))
            _until(lambda: len(batches._waiting) == 3)  # both queued beside it
            assert isinstance(first.result(30), sa.exc.OperationalError)
            assert isinstance(short.result(30), sa.exc.OperationalError)  # led next, bounded by the short one
            assert lock.held and not longer.done()  # still waiting, within its own bound
            lock.release()
            assert longer.result(30) == 1
        assert store.journal_state("event:EvShort") is None and store.journal_state("event:EvFirst") is None
    finally:
        store.close()


def _until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.001)
