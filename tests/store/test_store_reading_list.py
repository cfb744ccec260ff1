"""Reading lists and per-channel picks in the store (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from bot.core.models import ReadingListEntry
from bot.store import Store

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def test_reading_lists_are_per_user_per_team_newest_first(db_url):
    store = Store(db_url)
    for n, pid in enumerate(("pa", "pb", "pc")):
        assert store.add_reading_list_entry(
            "T1", "U1", ReadingListEntry(pid, f"Title {pid}", authors=("X", "Y")), NOW + timedelta(minutes=n)
        )
    assert store.add_reading_list_entry("T1", "U1", ReadingListEntry("pa", "again"), NOW) is False  # once
    assert store.add_reading_list_entry("T1", "U2", ReadingListEntry("pz", "Bob's"), NOW)
    assert store.add_reading_list_entry("T2", "U1", ReadingListEntry("py", "other team"), NOW)
    assert [e.paper_id for e in store.reading_list_entries("T1", "U1")] == ["pc", "pb", "pa"]
    assert [e.paper_id for e in store.reading_list_entries("T1", "U1", 1, 1)] == ["pb"]
    assert store.reading_list_entries("T1", "U1")[0].authors == ("X", "Y")
    assert [e.paper_id for e in store.reading_list_entries("T1", "U2")] == ["pz"]
    assert [e.paper_id for e in store.reading_list_entries("T2", "U1")] == ["py"]
    assert store.remove_reading_list_entry("T1", "U2", "pa") is False  # not Bob's to remove
    assert store.remove_reading_list_entry("T1", "U1", "pa") and store.reading_list_count("T1", "U1") == 2
    store.close()


def test_a_channels_picks_are_made_once_and_cycles_are_tracked(db_url):
    store = Store(db_url)
    calls = []

    def choose(cycle, seen):
        calls.append((cycle, set(seen)))
        return [("p1", cycle), ("p2", cycle + 1)]

    day = date(2026, 12, 1)
    assert store.picks_for_date("T1", "C1", day, "rl", choose) == ["p1", "p2"]
    assert store.picks_for_date("T1", "C1", day, "rl", choose) == ["p1", "p2"]
    assert calls == [(0, set())]
    assert store.channel_cycle("T1", "C1", "rl") == (1, {"p2"})
    assert store.channel_cycle("T1", "C1", "rl", before=day) == (0, set())
    assert store.channel_picks("T1", "C1", day, "other topic") == []
    assert store.channel_picks("T1", "C2", day, "rl") == []
    store.close()
