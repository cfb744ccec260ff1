"""Exactly one post per channel and local date across the DST changes of 2026
(America/Los_Angeles, Europe/Berlin) for post times 00:00, 01:30, 02:30, 09:00.

The interval job is simulated: ``run_due`` is called with an injected clock
every minute (starting 17 s past, so no tick lands exactly on a post time) through
the local day before, the day of, and the day after each transition. The
expected UTC instants on the transition days are written out by hand from
the zones' published rules, not computed by the code under test.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from bot.digest import post_time_utc, run_due
from bot.store import Store
from tests.digest.digestkit import ListIndex, make_papers, marker_of
from tests.kit import Clock, RecordingPoster

UTC = timezone.utc
POST_TIMES = ("00:00", "01:30", "02:30", "09:00")
TICK = timedelta(minutes=1)


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


# zone, transition date, {post time: due instant on that date (UTC)}
TRANSITIONS = [
    # 2026-03-08 02:00 PST → 03:00 PDT (10:00 UTC): 02:30 does not exist → due at the jump.
    (
        "America/Los_Angeles",
        date(2026, 3, 8),
        {
            "00:00": utc(2026, 3, 8, 8, 0),
            "01:30": utc(2026, 3, 8, 9, 30),
            "02:30": utc(2026, 3, 8, 10, 0),
            "09:00": utc(2026, 3, 8, 16, 0),
        },
    ),
    # 2026-11-01 02:00 PDT → 01:00 PST (09:00 UTC): 01:30 happens twice → the first.
    (
        "America/Los_Angeles",
        date(2026, 11, 1),
        {
            "00:00": utc(2026, 11, 1, 7, 0),
            "01:30": utc(2026, 11, 1, 8, 30),
            "02:30": utc(2026, 11, 1, 10, 30),
            "09:00": utc(2026, 11, 1, 17, 0),
        },
    ),
    # 2026-03-29 02:00 CET → 03:00 CEST (01:00 UTC): 02:30 does not exist → due at the jump.
    (
        "Europe/Berlin",
        date(2026, 3, 29),
        {
            "00:00": utc(2026, 3, 28, 23, 0),
            "01:30": utc(2026, 3, 29, 0, 30),
            "02:30": utc(2026, 3, 29, 1, 0),
            "09:00": utc(2026, 3, 29, 7, 0),
        },
    ),
    # 2026-10-25 03:00 CEST → 02:00 CET (01:00 UTC): 02:30 happens twice → the first.
    (
        "Europe/Berlin",
        date(2026, 10, 25),
        {
            "00:00": utc(2026, 10, 24, 22, 0),
            "01:30": utc(2026, 10, 24, 23, 30),
            "02:30": utc(2026, 10, 25, 0, 30),
            "09:00": utc(2026, 10, 25, 8, 0),
        },
    ),
]


@pytest.mark.parametrize("zone,day,expected", TRANSITIONS, ids=[f"{z}-{d}" for z, d, _ in TRANSITIONS])
def test_post_times_on_transition_days(zone, day, expected):
    for post_time, instant in expected.items():
        assert post_time_utc(day, post_time, ZoneInfo(zone)) == instant, post_time


@pytest.mark.parametrize("zone,day,expected", TRANSITIONS, ids=[f"{z}-{d}" for z, d, _ in TRANSITIONS])
def test_one_post_per_local_date_through_a_dst_change(tmp_path, zone, day, expected):
    tz = ZoneInfo(zone)
    days = [day - timedelta(days=1), day, day + timedelta(days=1)]
    start = datetime.combine(days[0], datetime.min.time(), tz).astimezone(UTC)
    end = datetime.combine(days[-1] + timedelta(days=1), datetime.min.time(), tz).astimezone(UTC)
    store = Store(f"sqlite:///{tmp_path / 'dst.db'}")
    for post_time in POST_TIMES:
        store.upsert_subscription(
            "T1", f"C{post_time.replace(':', '')}", post_time, zone, "U1", start - timedelta(hours=1)
        )
    clock = Clock(start + timedelta(seconds=17))
    poster = RecordingPoster(clock)
    index = ListIndex(make_papers())
    ticks = 0
    while clock.now < end:
        run_due(store, index, poster, clock.now)
        clock.now += TICK
        ticks += 1
    assert ticks >= 3 * 24 * 60 - 60  # the 23- or 25-hour day included

    by_channel_date = defaultdict(list)
    for channel, message, at in poster.parents:
        posted_date, _paper = marker_of(message)
        by_channel_date[(channel, posted_date)].append(at)
    for post_time in POST_TIMES:
        channel = f"C{post_time.replace(':', '')}"
        for d in days:
            times = by_channel_date.pop((channel, d.isoformat()), [])
            assert len(times) == 1, f"{channel} {d}: {len(times)} posts"
            (at,) = times
            assert at.astimezone(tz).date() == d  # posted on that local date
            if d == day:
                due = expected[post_time]
            else:
                due = datetime.combine(d, datetime.strptime(post_time, "%H:%M").time(), tz).astimezone(UTC)
            assert due <= at < due + TICK, f"{channel} {d}: posted {at}, due {due}"
    assert not by_channel_date, f"unexpected posts: {dict(by_channel_date)}"
    # every post of one date is the same paper, and three dates → three papers
    papers_by_date = {marker_of(m) for _, m, _ in poster.parents}
    assert len(papers_by_date) == 3
    assert len({p for _, p in papers_by_date}) == 3
    # each digest had its abstract reply in its thread
    assert len([p for p in poster.posts if p[2] is not None]) == len(poster.parents)
    store.close()
