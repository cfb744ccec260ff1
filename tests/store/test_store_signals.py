"""Signals and the bot's single-paper posts in the store (SQLite and PostgreSQL),
and the migration to schema 10 copying reading lists in as saves."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import sqlalchemy as sa

from bot.core.models import DeliveryState, ReadingListEntry
from bot.store import SCHEMA_VERSION, Store

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def test_a_signal_is_recorded_removed_and_the_newer_write_wins(db_url):
    store = Store(db_url)
    assert store.put_signal("T1", "U1", "U1", "p1", "up", at=NOW)
    assert store.put_signal("T1", "U1", "U1", "p2", "saved", at=NOW + timedelta(minutes=1))
    assert [r[:2] for r in store.signal_rows("T1", "U1")] == [("p2", "saved"), ("p1", "up")]
    # a removal processed before the older "added" it undoes: the older write changes nothing
    store.put_signal("T1", "U1", "U1", "p3", "down", active=False, at=NOW + timedelta(minutes=5))
    store.put_signal("T1", "U1", "U1", "p3", "down", at=NOW + timedelta(minutes=4))
    assert "p3" not in {r[0] for r in store.signal_rows("T1", "U1")}
    # and a newer "added" brings it back
    store.put_signal("T1", "U1", "U1", "p3", "down", at=NOW + timedelta(minutes=6))
    assert store.signal_rows("T1", "U1")[0][:2] == ("p3", "down")
    assert store.signal_rows("T2", "U1") == [] and store.signal_rows("T1", "U2") == []
    assert store.put_signal("T1", "U1", "U1", "p" * 201, "up") is False  # too long: not stored
    assert store.put_signal("T1", "", "U1", "p1", "up") is False
    store.close()


def test_forget_deletes_what_the_user_gave_for_any_subject_and_counts_those_in_force(db_url):
    store = Store(db_url)
    store.put_signal("T1", "U1", "U1", "p1", "saved", at=NOW)
    store.put_signal("T1", "C1", "U1", "p1", "shared", at=NOW)
    store.put_signal("T1", "C1", "U2", "p2", "up", at=NOW)
    store.put_signal("T1", "U1", "U1", "p9", "up", active=False, at=NOW)  # removed: not counted
    store.put_signal("T2", "U1", "U1", "p1", "saved", at=NOW)  # another team: kept
    store.add_reading_list_entry("T1", "U1", ReadingListEntry("p1", "One"), NOW)
    assert sorted(store.forget_signals("T1", "U1")) == [("C1", "p1", "shared"), ("U1", "p1", "saved")]
    assert store.signal_rows("T1", "U1") == []
    assert [r[:2] for r in store.signal_rows("T1", "C1")] == [("p2", "up")]
    assert len(store.signal_rows("T2", "U1")) == 1
    assert store.reading_list_count("T1", "U1") == 1  # forget alone keeps the reading list
    assert store.clear_reading_list("T1", "U1") == 1 and store.reading_list_count("T1", "U1") == 0
    store.close()


def test_a_post_names_its_paper_from_bot_posts_and_single_paper_deliveries(db_url):
    store = Store(db_url)
    assert store.record_post("T1", "C1", "100.1", "p1", NOW)
    assert store.record_post("T1", "C1", "100.1", "p2", NOW) is False  # first one stands
    assert store.post_paper("T1", "C1", "100.1") == "p1"
    assert store.post_paper("T1", "C2", "100.1") is None and store.post_paper("T2", "C1", "100.1") is None
    day = date(2026, 12, 1)
    # a one-paper digest post
    assert store.claim_delivery("T1", "C1", day, "p5", now=NOW)
    store.finish_delivery("T1", "C1", day, state=DeliveryState.POSTED, message_ts="200.1", now=NOW)
    assert store.post_paper("T1", "C1", "200.1") == "p5"
    # a personal feed: the subscription's channel is the user, the post is in their DM
    assert store.claim_delivery("T1", "U7", day, "p6", now=NOW)
    store.finish_delivery("T1", "U7", day, state=DeliveryState.POSTED, message_ts="300.1", now=NOW)
    assert store.post_paper("T1", "D7", "300.1", "U7") == "p6"
    assert store.post_paper("T1", "D7", "300.1", "U8") is None  # someone else's feed
    # a post of three papers is about no one paper
    store.picks_for_date("T1", "C3", day, "", lambda cycle, seen: [("p7", 0), ("p8", 0), ("p9", 0)])
    assert store.claim_delivery("T1", "C3", day, "p7", now=NOW)
    store.finish_delivery("T1", "C3", day, state=DeliveryState.POSTED, message_ts="400.1", now=NOW)
    assert store.post_paper("T1", "C3", "400.1") is None
    assert store.post_paper("T1", "C1", "999.9") is None
    store.close()


def test_migration_to_10_copies_reading_lists_in_as_saves(db_url):
    store = Store(db_url)
    store.add_reading_list_entry("T1", "U1", ReadingListEntry("p1", "One"), NOW)
    store.add_reading_list_entry("T1", "U1", ReadingListEntry("p2", "Two"), NOW + timedelta(minutes=1))
    with store._engine.begin() as conn:  # back to version 9: as an older paperbot left it
        conn.execute(sa.text("DROP TABLE signals"))
        conn.execute(sa.text("DROP TABLE bot_posts"))
        conn.execute(sa.text("UPDATE schema_version SET version = 9"))
    store.close()
    again = Store(db_url)
    assert again.migrated_from == 9 and again.schema_version() == SCHEMA_VERSION
    assert [r[:2] for r in again.signal_rows("T1", "U1")] == [("p2", "saved"), ("p1", "saved")]
    assert again.signal_rows("T1", "U1")[0][2] == NOW + timedelta(minutes=1)
    again.close()
