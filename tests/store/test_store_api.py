"""Store API against real SQLite and PostgreSQL: subscriptions, claims, picks,
idempotency keys."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from bot.core.models import DeliveryState as State
from bot.store import SCHEMA_VERSION, Store

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
DAY = date(2026, 3, 1)


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def test_new_database_gets_current_schema(store):
    assert store.migrated_from is None
    assert store.schema_version() == SCHEMA_VERSION == 11


def test_upsert_creates_then_changes_and_reports_previous(store):
    new, previous = store.upsert_subscription("T1", "C1", "09:00", "Europe/Berlin", "U1", T0)
    assert previous is None
    assert (new.local_time, new.tz, new.active, new.subscribed_by) == ("09:00", "Europe/Berlin", True, "U1")
    assert new.created_at == T0 and new.updated_at == T0

    later = T0 + timedelta(hours=1)
    changed, previous = store.upsert_subscription("T1", "C1", "10:15", "America/New_York", "U2", later)
    assert previous == new
    assert (changed.local_time, changed.tz, changed.subscribed_by) == ("10:15", "America/New_York", "U2")
    assert changed.created_at == T0 and changed.updated_at == later


def test_upsert_same_post_time_keeps_updated_at(store):
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", T0)
    again, _ = store.upsert_subscription("T1", "C1", "09:00", "UTC", "U2", T0 + timedelta(hours=3))
    assert again.updated_at == T0
    assert again.subscribed_by == "U2"


@pytest.mark.parametrize("bad", ["9:00", "24:00", "12:60", "", "0900", "09:00:00"])
def test_upsert_rejects_bad_time(store, bad):
    with pytest.raises(ValueError):
        store.upsert_subscription("T1", "C1", bad, "UTC", "U1", T0)


def test_naive_time_is_rejected(store):
    with pytest.raises(Exception, match="timezone-aware"):
        store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", datetime(2026, 3, 1, 8, 0))


def test_list_get_remove(store):
    store.upsert_subscription("T2", "C9", "09:00", "UTC", "U1", T0)
    store.upsert_subscription("T1", "C2", "09:00", "UTC", "U1", T0)
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", T0)
    assert [(s.team_id, s.channel_id) for s in store.subscriptions()] == [("T1", "C1"), ("T1", "C2"), ("T2", "C9")]
    assert [s.channel_id for s in store.subscriptions(team="T1")] == ["C1", "C2"]
    assert store.get_subscription("T1", "C2").channel_id == "C2"
    assert store.remove_subscription("T1", "C2") is True
    assert store.remove_subscription("T1", "C2") is False
    assert store.get_subscription("T1", "C2") is None


def test_deactivate_once_and_resubscribe_reactivates(store):
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", T0)
    store.upsert_subscription("T1", "C2", "09:00", "UTC", "U1", T0)
    assert store.deactivate("T1", "C1", "is_archived", now=T0) is True
    assert store.deactivate("T1", "C1", "is_archived", now=T0) is False  # → logged once
    sub = store.get_subscription("T1", "C1")
    assert (sub.active, sub.inactive_reason) == (False, "is_archived")
    assert [s.channel_id for s in store.subscriptions(active_only=True)] == ["C2"]
    back, previous = store.upsert_subscription("T1", "C1", "09:00", "UTC", "U3", T0 + timedelta(days=1))
    assert previous.active is False
    assert (back.active, back.inactive_reason) == (True, None)
    assert back.updated_at == T0 + timedelta(days=1)


def test_claim_is_granted_once(store):
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0) is True
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0) is False
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED, State.SKIPPED)) is False
    assert store.claim_delivery("T1", "C2", DAY, "p1", now=T0) is True
    assert store.claim_delivery("T1", "C1", DAY + timedelta(days=1), "p2", now=T0) is True
    d = store.get_delivery("T1", "C1", DAY)
    assert (d.state, d.paper_id, d.message_ts) == (State.CLAIMED, "p1", None)


def test_finish_posted_is_never_downgraded(store):
    store.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    store.finish_delivery("T1", "C1", DAY, state=State.POSTED, message_ts="1.5", now=T0)
    store.finish_delivery("T1", "C1", DAY, state=State.UNKNOWN, now=T0)
    store.finish_delivery("T1", "C1", DAY, state=State.FAILED, now=T0)
    d = store.get_delivery("T1", "C1", DAY)
    assert (d.state, d.message_ts) == (State.POSTED, "1.5")
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED,)) is False
    with pytest.raises(ValueError):
        store.finish_delivery("T1", "C1", DAY, state="done")


def test_failed_claim_can_be_retried_up_to_max_attempts(store):
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED,), max_attempts=3)
    for _attempt in (2, 3):
        store.finish_delivery("T1", "C1", DAY, state=State.FAILED, now=T0)
        assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED,), max_attempts=3)
    store.finish_delivery("T1", "C1", DAY, state=State.FAILED, now=T0)
    assert not store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED,), max_attempts=3)
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED,))  # manual: no cap


def test_unknown_and_claimed_are_never_reclaimed(store):
    store.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    assert not store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.CLAIMED, State.UNKNOWN, State.POSTED))
    store.finish_delivery("T1", "C1", DAY, state=State.UNKNOWN, now=T0)
    assert not store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.FAILED, State.SKIPPED, State.UNKNOWN))


def test_skipped_day_is_recorded_once_and_can_be_sent_manually(store):
    assert store.mark_skipped("T1", "C1", DAY, now=T0) is True
    assert store.mark_skipped("T1", "C1", DAY, now=T0) is False
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0) is False
    assert store.claim_delivery("T1", "C1", DAY, "p1", now=T0, reclaim=(State.SKIPPED,)) is True
    assert store.mark_skipped("T1", "C1", DAY, now=T0) is False


def test_release_only_drops_open_claims(store):
    store.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    assert store.release_delivery("T1", "C1", DAY) is True
    assert store.get_delivery("T1", "C1", DAY) is None
    store.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    store.finish_delivery("T1", "C1", DAY, state=State.POSTED, message_ts="1.0", now=T0)
    assert store.release_delivery("T1", "C1", DAY) is False


def test_stale_claims_are_old_claims_without_ts(store):
    store.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    store.claim_delivery("T1", "C2", DAY, "p1", now=T0 + timedelta(minutes=10))
    store.claim_delivery("T1", "C3", DAY, "p1", now=T0)
    store.finish_delivery("T1", "C3", DAY, state=State.POSTED, message_ts="2.0", now=T0)
    stale = store.stale_claims(T0 + timedelta(minutes=5))
    assert [(d.channel_id, at) for d, at in stale] == [("C1", T0)]


def test_deliveries_since(store):
    for offset in range(3):
        store.claim_delivery("T1", "C1", DAY + timedelta(days=offset), "p", now=T0)
    got = store.deliveries_since(DAY + timedelta(days=1))
    assert [d.local_date for d in got] == [DAY + timedelta(days=1), DAY + timedelta(days=2)]


def test_paper_for_date_is_persisted_at_first_use(store):
    calls = []

    def choose(day):
        calls.append(day)
        return "p-first"

    assert store.paper_for_date(DAY, choose) == "p-first"
    assert store.paper_for_date(DAY, lambda d: "p-after-corpus-change") == "p-first"
    assert calls == [DAY]
    assert store.paper_for_date(DAY + timedelta(days=1), lambda d: "p-next") == "p-next"


def test_first_time_and_purge(store):
    assert store.first_time("Ev1", now=T0) is True
    assert store.first_time("Ev1", now=T0) is False
    assert store.first_time("T1:C1:1700000000.000100", now=T0 + timedelta(days=8)) is True
    assert store.purge_events(T0 + timedelta(days=1)) == 1
    assert store.first_time("Ev1", now=T0 + timedelta(days=8)) is True  # forgotten after purge
    assert store.first_time("T1:C1:1700000000.000100") is False
    with pytest.raises(ValueError):
        store.first_time("")


def test_state_survives_a_new_store_on_the_same_database(db_url):
    a = Store(db_url)
    a.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", T0)
    a.claim_delivery("T1", "C1", DAY, "p1", now=T0)
    a.close()
    b = Store(db_url)
    assert b.migrated_from == SCHEMA_VERSION
    assert b.get_subscription("T1", "C1").local_time == "09:00"
    assert b.claim_delivery("T1", "C1", DAY, "p1", now=T0) is False
    b.close()


def test_repr_hides_the_url(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'secret-name.db'}")
    assert "secret-name" not in repr(s)
    s.close()


def test_a_mark_is_recorded_once_for_good(db_url):
    store = Store(db_url)
    assert store.mark("onboard", "user:T1:U1") == (False, None)
    assert store.mark_once("onboard", "user:T1:U1", now=T0) is True
    assert store.mark_once("onboard", "user:T1:U1", now=T0) is False
    assert store.mark_once("share", "T1:C1:1.0:p1", detail="C9", now=T0) is True
    assert store.mark("share", "T1:C1:1.0:p1") == (True, "C9")
    store.unmark("share", "T1:C1:1.0:p1")
    assert store.mark_once("share", "T1:C1:1.0:p1", detail="C8", now=T0) is True
    store.close()
    again = Store(db_url)
    assert again.mark_once("onboard", "user:T1:U1") is False  # survives a restart
    again.close()
