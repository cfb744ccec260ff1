"""Post-time arithmetic (``bot.daily.post_times``): parsing and edge zones."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from bot.core.models import Subscription
from bot.daily.post_times import due_today, next_post_time, parse_hhmm, post_time_utc
from bot.digest import run_due
from bot.store import Store
from tests.kit import Clock, RecordingPoster

UTC = timezone.utc


@pytest.mark.parametrize(
    "text,expected", [("00:00", time(0, 0)), ("09:30", time(9, 30)), ("23:59", time(23, 59)), ("9:30", time(9, 30))]
)
def test_parse_hhmm(text, expected):
    assert parse_hhmm(text) == expected


@pytest.mark.parametrize("bad", ["24:00", "12:60", "12", "", "ab:cd", "12:5", "-1:00"])
def test_parse_hhmm_rejects(bad):
    with pytest.raises(ValueError):
        parse_hhmm(bad)


def test_midnight_inside_a_gap_is_due_at_the_jump():
    # America/Santiago 2026-09-06: 00:00 -04 → 01:00 -03 (04:00 UTC); midnight does not exist.
    assert post_time_utc(date(2026, 9, 6), "00:00", ZoneInfo("America/Santiago")) == datetime(
        2026, 9, 6, 4, 0, tzinfo=UTC
    )


def test_ordinary_day_is_the_plain_wall_time():
    assert post_time_utc(date(2026, 7, 1), "09:00", ZoneInfo("Asia/Kolkata")) == datetime(2026, 7, 1, 3, 30, tzinfo=UTC)


def _sub(time_="09:00", tz="UTC", since=datetime(2026, 1, 1, tzinfo=UTC), active=True):
    return Subscription("T1", "C1", time_, tz, active=active, created_at=since, updated_at=since)


def test_due_today_uses_the_channel_local_date():
    now = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)  # already Dec 2 in Tokyo
    today, post_time, due = due_today(_sub("08:00", "Asia/Tokyo"), now)
    assert today == date(2026, 12, 2) and post_time == datetime(2026, 12, 1, 23, 0, tzinfo=UTC) and due


def test_due_today_not_before_the_subscription():
    now = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    assert due_today(_sub(since=now - timedelta(minutes=10)), now)[2] is False
    assert due_today(_sub(since=now - timedelta(hours=1)), now)[2] is True


def test_next_post_time_without_store():
    now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert next_post_time(_sub(), now) == datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    late = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    assert next_post_time(_sub(since=late - timedelta(minutes=1)), late) == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert next_post_time(_sub(), late) == late  # due, not yet posted: the next tick
    assert next_post_time(_sub(active=False), now) is None
    assert next_post_time(None, now) is None


def test_next_post_time_moves_past_a_date_already_posted(sqlite_url, index):
    store = Store(sqlite_url)
    store.upsert_subscription("T1", "C1", "09:30", "Europe/Berlin", "U1", datetime(2026, 11, 21, tzinfo=UTC))
    sub = store.get_subscription("T1", "C1")
    before = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 08:00 in Berlin
    assert next_post_time(sub, before, store) == datetime(2026, 12, 1, 8, 30, tzinfo=UTC)
    assert next_post_time(sub, before, store).tzinfo.key == "Europe/Berlin"
    posted_at = datetime(2026, 12, 1, 8, 31, tzinfo=UTC)
    assert run_due(store, index, RecordingPoster(Clock(posted_at)), posted_at).posted == 1
    assert next_post_time(sub, datetime(2026, 12, 1, 8, 32, tzinfo=UTC), store) == datetime(
        2026, 12, 2, 8, 30, tzinfo=UTC
    )
    store.deactivate("T1", "C1", "is_archived")
    assert next_post_time(store.get_subscription("T1", "C1"), before, store) is None
    store.close()
