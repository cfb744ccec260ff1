"""Schedules people keep (issue 13): ``weekdays`` in America/Los_Angeles across
the 2026 DST days, ``weekly mon`` with ``3 papers`` (one message of three,
once, Mondays only), and two processes released together posting a topic
subscription once. Real seed index; SQLite and PostgreSQL; injected clock.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from bot import search
from bot.digest import run_due
from bot.store import Store
from tests.digest.digestkit import FilePoster, marker_of, run_together
from tests.kit import Clock, RecordingPoster

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")


def _tick(store, index, poster, start: datetime, end: datetime, step: timedelta) -> None:
    now = start
    while now < end:
        poster.clock.now = now
        run_due(store, index, poster, now)
        now += step


def _local_days(poster) -> list[date]:
    return [date.fromisoformat(marker_of(m)[0]) for _, m, _ in poster.parents]


def test_weekdays_skip_the_weekend_in_los_angeles_across_the_2026_dst_days(db_url, seed_index):
    store, poster = Store(db_url), RecordingPoster(Clock(datetime(2026, 1, 1, tzinfo=UTC)))
    # 2026-03-08 and 2026-11-01 are Sundays: the clocks change on a day without a post
    windows = [(date(2026, 3, 5), date(2026, 3, 11)), (date(2026, 10, 29), date(2026, 11, 4))]
    for first, last in windows:
        start = datetime(first.year, first.month, first.day, 0, 13, tzinfo=LA).astimezone(UTC)
        end = datetime(last.year, last.month, last.day, 23, 59, tzinfo=LA).astimezone(UTC)
        store.remove_subscription("T1", "C1")
        store.upsert_subscription(
            "T1", "C1", "09:00", "America/Los_Angeles", "U1", start, days=(0, 1, 2, 3, 4), topic="reasoning"
        )
        _tick(store, seed_index, poster, start, end, timedelta(minutes=20))
    got = _local_days(poster)
    expected = [date(2026, 3, d) for d in (5, 6, 9, 10, 11)] + [
        date(2026, 10, 29),
        date(2026, 10, 30),
        date(2026, 11, 2),
        date(2026, 11, 3),
        date(2026, 11, 4),
    ]
    assert got == expected
    assert all(d.weekday() < 5 for d in got)
    # each post went out at 09:00 local (within one 20-minute tick), on both sides of each change
    for (_, _message, at), day in zip(poster.parents, got):
        local = at.astimezone(LA)
        assert (local.date(), local.hour) == (day, 9) and local.minute < 20
    assert {at.astimezone(UTC).hour for _, _, at in poster.parents} == {16, 17}
    assert all(d.local_date.weekday() < 5 for d in store.deliveries_since(date(2026, 3, 1)))
    store.close()


def test_weekly_monday_with_three_papers_posts_one_message_of_three_once_on_mondays(db_url, seed_index):
    store, poster = Store(db_url), RecordingPoster(Clock(datetime(2026, 1, 1, tzinfo=UTC)))
    store.upsert_subscription(
        "T1",
        "C1",
        "10:00",
        "Europe/London",
        "U1",
        datetime(2026, 11, 29, tzinfo=UTC),
        days=(0,),
        papers=3,
        topic="reasoning",
    )
    _tick(
        store,
        seed_index,
        poster,
        datetime(2026, 11, 30, 0, 7, tzinfo=UTC),
        datetime(2026, 12, 15, 0, 0, tzinfo=UTC),
        timedelta(minutes=30),
    )
    parents = poster.parents
    days = _local_days(poster)
    assert days == [date(2026, 11, 30), date(2026, 12, 7), date(2026, 12, 14)]
    matches = set(seed_index.match_all("reasoning"))
    seen = []
    for _, message, _ in parents:
        ids = [b["elements"][0]["value"] for b in message.blocks if b["type"] == "actions"]
        assert len(ids) == 3
        paper_ids = {json.loads(v)["id"] for v in ids}
        assert len(paper_ids) == 3 and paper_ids <= matches
        seen += sorted(paper_ids)
    threads = [t for _, _, t, _ in poster.posts if t is not None]
    assert len(threads) == 9  # each abstract in the thread, nothing else
    n = len(matches)
    assert len(set(seen[: min(n, 9)])) == min(n, 9)  # no repeats before every match had its turn
    store.close()


def _prepare(url):
    store = Store(url)
    for channel in ("C1", "C2"):
        store.upsert_subscription(
            "T1", channel, "09:00", "UTC", "U1", datetime(2026, 11, 30, tzinfo=UTC), topic="reasoning", papers=2
        )
    store.upsert_subscription(
        "T1", "U7", "09:00", "UTC", "U7", datetime(2026, 11, 30, tzinfo=UTC), topic="reinforcement learning"
    )
    store.close()


def _worker(url, index_dir, log_path, barrier, results):
    try:
        store = Store(url)
        index = search.SearchIndex(index_dir)
        index.ids()
        barrier.wait(timeout=60)
        summary = run_due(store, index, FilePoster(log_path), datetime(2026, 12, 1, 9, 0, 5, tzinfo=UTC))
        results.put((summary.posted, summary.failed))
    except Exception as exc:  # noqa: BLE001 — reported to the parent
        results.put(repr(exc))


def test_two_processes_released_together_post_each_topic_subscription_once(db_url, seed_index_dir, tmp_path):
    _prepare(db_url)
    log_path = tmp_path / "posts.log"
    got = run_together(_worker, [(db_url, seed_index_dir, log_path)] * 2)
    assert all(isinstance(g, tuple) for g in got), got
    parents = FilePoster(log_path).parents()
    assert Counter(c for c, _ in parents) == {"C1": 1, "C2": 1, "U7": 1}
    assert sum(g[0] for g in got) == 3 and sum(g[1] for g in got) == 0
    store = Store(db_url)
    picks = store.channel_picks("T1", "C1", date(2026, 12, 1), "reasoning")
    assert len(picks) == 2 and any(m.endswith(picks[0]) for _, m in parents)
    store.close()


def test_digest_send_skips_a_channel_whose_posting_day_it_is_not(db_url, seed_index):
    from bot.digest import send

    store, poster = Store(db_url), RecordingPoster(Clock(datetime(2026, 12, 1, tzinfo=UTC)))
    start = datetime(2026, 11, 30, tzinfo=UTC)
    store.upsert_subscription("T1", "CWEEK", "10:00", "UTC", "U1", start, days=(0,), topic="reasoning")
    store.upsert_subscription("T1", "CDAILY", "10:00", "UTC", "U1", start, topic="reasoning")
    tuesday = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    summary = send(store, seed_index, poster, tuesday)
    assert [c for c, _, _ in poster.parents] == ["CDAILY"] and summary.skipped == 1
    assert store.channel_picks("T1", "CWEEK", date(2026, 12, 1), "reasoning") == []
    store.close()
