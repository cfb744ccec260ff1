"""The journal of acknowledged work (``bot.store.journal``) on SQLite and PostgreSQL:
one owner per key, takeover only after the lease, aliases claimed with the row,
payloads dropped once done or expired."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from bot.store import EntryState, Store
from tests.kit import HeldSqliteLock, older_database

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
LEASE = timedelta(seconds=60)


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def claim(store, key="event:Ev1", owner="a", now=T0, aliases=("msg:T:C:1.0",), **kw):
    return store.journal_claim(
        key, kind="event", payload='{"x": 1}', owner=owner, lease=LEASE, aliases=aliases, now=now, **kw
    )


def test_one_owner_until_the_lease_expires_then_one_takeover(store):
    assert claim(store) == 1
    assert claim(store, owner="b", now=T0 + timedelta(seconds=59)) == 0  # live lease: a duplicate
    assert store.journal_state("event:Ev1") == (EntryState.PENDING, "a", True)
    assert claim(store, owner="b", now=T0 + timedelta(seconds=61)) == 2  # expired: b takes over
    assert claim(store, owner="c", now=T0 + timedelta(seconds=62)) == 0
    assert store.journal_state("event:Ev1")[1] == "b"


def test_renewal_keeps_the_claim(store):
    claim(store)
    assert store.journal_renew(["event:Ev1"], "a", LEASE, now=T0 + timedelta(seconds=50)) == 1
    assert store.journal_renew(["event:Ev1"], "b", LEASE, now=T0 + timedelta(seconds=50)) == 0  # not b's
    assert claim(store, owner="b", now=T0 + timedelta(seconds=100)) == 0
    assert claim(store, owner="b", now=T0 + timedelta(seconds=111)) == 2


def test_the_going_out_mark_is_set_by_the_renewal_before_a_post_and_cleared_by_a_deferral(store):
    claim(store)
    store.journal_renew(["event:Ev1"], "a", LEASE, now=T0 + timedelta(seconds=5))  # a plain renewal
    assert store.journal_posting("event:Ev1") is False
    assert store.journal_renew(["event:Ev1"], "b", LEASE, now=T0, posting=True) == 0  # not b's: no mark
    assert store.journal_posting("event:Ev1") is False
    assert store.journal_renew(["event:Ev1"], "a", LEASE, now=T0 + timedelta(seconds=6), posting=True) == 1
    assert store.journal_posting("event:Ev1") is True
    assert store.journal_defer("event:Ev1", "a", T0 + timedelta(seconds=8)) is True
    assert store.journal_posting("event:Ev1") is True  # kept unless asked …
    assert store.journal_defer("event:Ev1", "a", T0 + timedelta(seconds=8), clear_posting=True) is True
    assert store.journal_posting("event:Ev1") is False  # … Slack did not take it
    assert store.journal_posting("event:Nope") is False


def test_an_edit_of_a_claimed_message_is_a_duplicate_and_adds_nothing(store):
    claim(store)
    assert claim(store, key="event:Ev2", owner="b") == 0  # same message key, new event id
    assert store.journal_state("event:Ev2") is None
    assert store.claim_keys(["msg:T:C:2.0"])  # other keys are untouched


def test_done_drops_the_payload_and_is_never_taken_over(store):
    claim(store)
    store.journal_done("event:Ev1")
    assert store.journal_state("event:Ev1") == (EntryState.DONE, "a", False)
    assert claim(store, owner="b", now=T0 + timedelta(hours=1)) == 0
    assert store.journal_stale("event", T0 - timedelta(hours=1), now=T0 + timedelta(hours=1)) == []


def test_stale_lists_expired_leases_and_expire_gives_up_old_work(store):
    claim(store)
    claim(store, key="event:Ev3", aliases=(), now=T0 + timedelta(minutes=5))
    later = T0 + timedelta(minutes=6, seconds=30)
    assert [e.key for e in store.journal_stale("event", T0 - timedelta(minutes=1), now=later)] == [
        "event:Ev1",
        "event:Ev3",
    ]
    assert store.journal_stale("command", T0 - timedelta(minutes=1), now=later) == []
    assert store.journal_expire("event", T0 + timedelta(minutes=1)) == 1  # Ev1 is too old now
    assert store.journal_state("event:Ev1") == (EntryState.EXPIRED, "a", False)
    assert claim(store, owner="b", now=later, answerable_after=T0 + timedelta(minutes=1)) == 0
    assert (
        claim(store, key="event:Ev3", aliases=(), owner="b", now=later, answerable_after=T0 + timedelta(minutes=1)) == 2
    )


def test_release_of_a_dead_owner_makes_its_work_stale_at_once(store):
    claim(store)
    assert store.journal_owners() == {"a"}
    assert store.journal_release("a", now=T0 + timedelta(seconds=1)) == 1
    assert [e.key for e in store.journal_stale("event", T0 - timedelta(minutes=1), now=T0 + timedelta(seconds=1))] == [
        "event:Ev1"
    ]
    store.journal_done("event:Ev1")
    assert store.journal_owners() == set()
    assert store.purge_journal(T0 + timedelta(days=8)) == 1


def test_a_version_6_journal_gains_the_going_out_mark(tmp_path):
    path = tmp_path / "v6.db"
    Store(f"sqlite:///{path}").close()
    older_database(path, 6, "ALTER TABLE journal DROP COLUMN posting_at")
    store = Store(f"sqlite:///{path}")
    assert store.migrated_from == 6
    claim(store)
    assert store.journal_renew(["event:Ev1"], "a", LEASE, now=T0, posting=True) == 1
    assert store.journal_posting("event:Ev1") is True
    store.close()


def test_a_claim_stuck_behind_a_frozen_transaction_gives_up_in_time(pg_schema):
    # A process frozen mid-claim holds the row's lock; another process's claim of the same
    # event must fail fast (the listener then answers 500 and Slack delivers it again),
    # not wait as long as the frozen one sleeps.
    import psycopg

    from bot.store.claims import CLAIM_LOCK_TIMEOUT_MS

    url, schema, dsn = pg_schema
    store = Store(url)
    frozen = psycopg.connect(dsn, options=f"-csearch_path={schema}")
    frozen.execute(
        "INSERT INTO journal (key, kind, state, owner, lease_until, received_at, attempts) "
        "VALUES ('event:EvF', 'event', 'pending', 'frozen', now(), now(), 1)"
    )  # not committed
    started = time.monotonic()
    with pytest.raises(sa.exc.OperationalError):
        claim(store, key="event:EvF", owner="b", aliases=())
    waited = time.monotonic() - started
    frozen.rollback()
    frozen.close()
    assert CLAIM_LOCK_TIMEOUT_MS / 1000 - 0.5 < waited < 10
    assert claim(store, key="event:EvF", owner="b", aliases=()) == 1  # free again: claimed
    store.close()


def test_a_claim_behind_sqlites_write_lock_gives_up_while_the_lock_is_still_held(tmp_path):
    # A backup, a VACUUM or a stalled process holds SQLite's write lock; the claim before an
    # ack must give up (CLAIM_LOCK_TIMEOUT_MS) instead of waiting the store's usual 30 s.
    path = tmp_path / "locked.db"
    store = Store(f"sqlite:///{path}")
    with HeldSqliteLock(path) as lock:
        with pytest.raises(sa.exc.OperationalError, match="locked"):
            claim(store, key="event:EvL")
        assert lock.held  # it gave up by itself, the lock never came free
        assert store.journal_state("event:EvL") is None  # nothing half-written
    assert claim(store, key="event:EvL") == 1  # free again: claimed
    with HeldSqliteLock(path, at_most=2.5):  # the store's other writers keep the long wait
        assert store.claim_keys(["event:EvM"]) is True  # waited for the lock, then wrote
    store.close()


def test_a_reply_marked_as_going_out_is_left_alone_while_it_may_be_in_flight(store):
    # The owner died right after writing its post; Slack may still be processing it, so
    # neither the journal loop nor a Slack retry takes the row before POST_SETTLE.
    from bot.store.journal import POST_SETTLE

    claim(store, now=T0)
    store.journal_renew(["event:Ev1"], "a", LEASE, now=T0, posting=True)
    store.journal_release("a", now=T0 + timedelta(seconds=2))  # the owner is dead
    soon, later = T0 + POST_SETTLE - timedelta(seconds=1), T0 + POST_SETTLE + timedelta(seconds=1)
    assert store.journal_stale("event", T0 - LEASE, now=soon) == []
    assert claim(store, owner="b", now=soon) == 0
    assert [e.key for e in store.journal_stale("event", T0 - LEASE, now=later)] == ["event:Ev1"]
    assert claim(store, owner="b", now=later) == 2


def test_a_deferral_after_slacks_answer_need_not_settle(store):
    claim(store, now=T0)
    store.journal_renew(["event:Ev1"], "a", LEASE, now=T0, posting=True)
    store.journal_defer("event:Ev1", "a", T0 + timedelta(seconds=2))  # Slack answered 5xx
    assert store.journal_posting("event:Ev1") is True  # still looks in the thread
    assert [e.key for e in store.journal_stale("event", T0 - LEASE, now=T0 + timedelta(seconds=3))] == ["event:Ev1"]
