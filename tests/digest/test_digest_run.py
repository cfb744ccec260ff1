"""``run_due`` and ``send`` over a real SQLite store (and PostgreSQL where the
database matters), with an injected clock and a recording poster."""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta, timezone

import pytest

from bot.core.models import DeliveryState as State
from bot.digest import DigestDateError, make_job, next_post_time, run_due, send
from bot.store import Store
from tests.digest.digestkit import ListIndex, marker_of
from tests.kit import APP_TOKEN, BOT_TOKEN, Clock, RecordingPoster

UTC = timezone.utc
DAY = date(2026, 12, 1)
AT_0900 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CREATED = AT_0900 - timedelta(days=10)


@pytest.fixture
def store(sqlite_url):
    s = Store(sqlite_url)
    yield s
    s.close()


@pytest.fixture
def clock():
    return Clock(AT_0900)


@pytest.fixture
def poster(clock):
    return RecordingPoster(clock)


def subscribe(store, *channels, time="09:00", tz="UTC", at=CREATED):
    for channel in channels:
        store.upsert_subscription("T1", channel, time, tz, "U1", at)


def tick_through(store, index, poster, clock, until, step=timedelta(seconds=30)):
    while clock.now < until:
        run_due(store, index, poster, clock.now)
        clock.now += step


def test_due_post_time_posts_once_with_the_abstract_in_its_thread(store, index, poster, clock):
    subscribe(store, "C1")
    clock.now = AT_0900 - timedelta(minutes=2)
    tick_through(store, index, poster, clock, AT_0900 + timedelta(hours=3))
    assert poster.channels() == ["C1"]
    ((channel, parent, at),) = poster.parents
    assert AT_0900 <= at < AT_0900 + timedelta(seconds=30)
    day, paper_id = marker_of(parent)
    assert day == "2026-12-01" and paper_id == store.paper_for_date(DAY, lambda d: "other")
    replies = [p for p in poster.posts if p[2] is not None]
    assert len(replies) == 1 and replies[0][0] == "C1"
    assert replies[0][2] == store.get_delivery("T1", "C1", DAY).message_ts
    assert store.get_delivery("T1", "C1", DAY).state == State.POSTED


def test_every_channel_gets_the_same_paper_that_date(store, index, poster, clock):
    subscribe(store, "C1", "C2", "C3")
    run_due(store, index, poster, AT_0900)
    assert sorted(poster.channels()) == ["C1", "C2", "C3"]
    assert len({marker_of(m) for _, m, _ in poster.parents}) == 1


def test_restart_within_the_day_posts_once(sqlite_url, index, clock):
    first = Store(sqlite_url)
    subscribe(first, "C1")
    poster = RecordingPoster(clock)
    assert run_due(first, index, poster, AT_0900 + timedelta(seconds=5)).posted == 1
    first.close()
    second = Store(sqlite_url)  # the bot restarted
    clock.now = AT_0900 + timedelta(minutes=1)
    tick_through(second, index, poster, clock, AT_0900 + timedelta(hours=6))
    assert poster.channels() == ["C1"]
    clock.now = AT_0900 + timedelta(days=1)
    run_due(second, index, poster, clock.now)
    assert poster.channels() == ["C1", "C1"]  # next day, once more
    second.close()


def test_subscription_made_after_todays_post_time_starts_tomorrow(store, index, poster, clock):
    subscribe(store, "LATE", at=AT_0900 + timedelta(minutes=5))
    subscribe(store, "EARLY", at=AT_0900 - timedelta(minutes=1))
    clock.now = AT_0900 - timedelta(minutes=1)
    tick_through(store, index, poster, clock, AT_0900 + timedelta(days=1, minutes=5), step=timedelta(minutes=5))
    posts = [(c, marker_of(m)[0]) for c, m, _ in poster.parents]
    assert posts == [("EARLY", "2026-12-01"), ("EARLY", "2026-12-02"), ("LATE", "2026-12-02")]
    assert store.get_delivery("T1", "LATE", DAY) is None  # not "skipped" either


def test_post_time_one_minute_ahead_posts_within_that_minute(store, index, poster, clock):
    clock.now = datetime(2026, 12, 1, 14, 41, 20, tzinfo=UTC)
    subscribe(store, "C1", time="14:42", tz="UTC", at=clock.now)
    assert next_post_time(store.get_subscription("T1", "C1"), clock.now) == datetime(2026, 12, 1, 14, 42, tzinfo=UTC)
    tick_through(store, index, poster, clock, datetime(2026, 12, 1, 14, 43, tzinfo=UTC))
    ((_, _, at),) = poster.parents
    assert at < datetime(2026, 12, 1, 14, 43, tzinfo=UTC)


def test_downtime_posts_today_late_once_and_skips_older_days(store, index, poster, clock, caplog):
    subscribe(store, "C1")
    first = run_due(store, index, poster, AT_0900 + timedelta(seconds=10))  # Dec 1 posted, then down
    assert (first.posted, first.skipped) == (1, 7)  # never ran since subscribing: a week is logged
    caplog.set_level(logging.INFO, logger="bot.digest")
    caplog.clear()
    back = AT_0900 + timedelta(days=2, hours=6)  # Dec 3, 15:00: Dec 2 missed, Dec 3 late
    summary = run_due(store, index, poster, back)
    assert (summary.posted, summary.late, summary.skipped) == (1, 1, 1)
    assert str(summary) == "posted 1, skipped 1, failed 0"
    clock.now = back + timedelta(seconds=30)
    tick_through(store, index, poster, clock, back + timedelta(hours=8), step=timedelta(minutes=2))
    assert [marker_of(m)[0] for _, m, _ in poster.parents] == ["2026-12-01", "2026-12-03"]
    assert store.get_delivery("T1", "C1", date(2026, 12, 2)).state == State.SKIPPED
    assert sum("not back-filled" in r.message for r in caplog.records) == 1
    assert sum("late by" in r.message for r in caplog.records) == 1


def test_channel_error_deactivates_that_channel_only(store, index, poster, clock, caplog):
    subscribe(store, "C1", "C2", "C3")
    poster.fail["C2"] = "is_archived"
    caplog.set_level(logging.WARNING, logger="bot.digest")
    summary = run_due(store, index, poster, AT_0900)
    assert sorted(poster.channels()) == ["C1", "C3"]
    assert summary.deactivated == ["C2"] and summary.failed == 1 and summary.posted == 2
    c2 = store.get_subscription("T1", "C2")
    assert (c2.active, c2.inactive_reason) == (False, "is_archived")
    clock.now = AT_0900 + timedelta(seconds=30)
    tick_through(store, index, poster, clock, AT_0900 + timedelta(days=1, hours=1), step=timedelta(minutes=5))
    assert poster.attempts == 2 + 1 + 2  # C2 never tried again, C1/C3 again next day
    assert sum("deactivated" in r.message for r in caplog.records) == 1


@pytest.mark.parametrize("code", ["not_in_channel", "channel_not_found", "is_archived"])
def test_each_channel_error_deactivates(store, index, poster, code):
    subscribe(store, "C1")
    poster.fail["C1"] = code
    run_due(store, index, poster, AT_0900)
    assert store.get_subscription("T1", "C1").inactive_reason == code


@pytest.mark.parametrize("code", ["invalid_auth", "token_revoked", "account_inactive"])
def test_workspace_error_stops_the_run_and_deactivates_nothing(store, index, poster, clock, code):
    subscribe(store, "C1", "C2", "C3")
    poster.fail["C2"] = code
    summary = run_due(store, index, poster, AT_0900)
    assert summary.stopped == code and str(summary).endswith(f"; stopped: {code}")
    assert poster.channels() == ["C1"] and poster.attempts == 2  # C3 not tried
    assert all(s.active for s in store.subscriptions())
    assert store.get_delivery("T1", "C2", DAY) is None  # claim released: nothing was posted
    poster.fail.clear()  # the token is fixed
    run_due(store, index, poster, AT_0900 + timedelta(minutes=1))
    assert sorted(poster.channels()) == ["C1", "C2", "C3"]


def test_refused_post_is_retried_a_few_times_then_given_up(store, index, poster, clock):
    subscribe(store, "C1")
    poster.fail["C1"] = "msg_too_long"
    clock.now = AT_0900
    tick_through(store, index, poster, clock, AT_0900 + timedelta(hours=2))
    assert poster.attempts == 3 and poster.parents == []
    assert store.get_subscription("T1", "C1").active  # not a channel error
    poster.fail.clear()
    summary = send(store, index, poster, AT_0900 + timedelta(hours=2))  # an operator retries
    assert summary.posted == 1


def test_send_twice_posts_once(db_url, index, clock):
    store = Store(db_url)
    subscribe(store, "C1", "C2", "C3")
    poster = RecordingPoster(clock)
    now = AT_0900 - timedelta(hours=3)  # before the post time: a manual send ignores it
    first = send(store, index, poster, now)
    second = send(store, index, poster, now + timedelta(minutes=1))
    assert str(first) == "posted 3, skipped 0, failed 0"
    assert str(second) == "posted 0, skipped 3, failed 0"
    tick_through(store, index, poster, clock, AT_0900 + timedelta(hours=1))  # nor the clock
    assert sorted(poster.channels()) == ["C1", "C2", "C3"]
    store.close()


def test_send_other_dates_needs_force(store, index, poster):
    subscribe(store, "C1", "C2")
    far = date(2027, 1, 5)
    with pytest.raises(DigestDateError, match="--force"):
        send(store, index, poster, AT_0900, day=far)
    assert poster.parents == []
    assert str(send(store, index, poster, AT_0900, day=far, force=True)) == "posted 2, skipped 0, failed 0"
    assert str(send(store, index, poster, AT_0900, day=far, force=True)) == "posted 0, skipped 2, failed 0"
    assert {marker_of(m)[0] for _, m, _ in poster.parents} == {"2027-01-05"}
    yesterday = send(store, index, poster, AT_0900, day=DAY - timedelta(days=1))
    assert yesterday.posted == 2


def test_send_uses_each_channels_local_date(store, index, poster):
    subscribe(store, "TOKYO", tz="Asia/Tokyo")
    subscribe(store, "HONOLULU", tz="Pacific/Honolulu")
    send(store, index, poster, datetime(2026, 12, 1, 20, 0, tzinfo=UTC))
    got = {c: marker_of(m)[0] for c, m, _ in poster.parents}
    assert got == {"TOKYO": "2026-12-02", "HONOLULU": "2026-12-01"}


def test_send_can_post_a_day_the_clock_skipped(store, index, poster):
    subscribe(store, "C1")
    run_due(store, index, poster, AT_0900 + timedelta(days=1, hours=1))  # Dec 1 skipped
    assert store.get_delivery("T1", "C1", DAY).state == State.SKIPPED
    assert send(store, index, poster, AT_0900 + timedelta(days=1, hours=2), day=DAY).posted == 1


def test_a_removed_and_re_added_subscription_does_not_post_twice(store, index, poster):
    subscribe(store, "C1")
    run_due(store, index, poster, AT_0900)
    store.remove_subscription("T1", "C1")
    subscribe(store, "C1", time="10:00", at=AT_0900 + timedelta(minutes=5))
    run_due(store, index, poster, AT_0900 + timedelta(hours=1, minutes=1))
    assert poster.channels() == ["C1"]


def test_no_token_reaches_the_database(sqlite_url, tmp_path, index, clock):
    store = Store(sqlite_url)
    poster = RecordingPoster(clock)
    assert poster.token.startswith("xoxb-") and poster.app_token.startswith("xapp-")
    subscribe(store, "C1", "C2")
    poster.fail["C2"] = "is_archived"
    job = make_job(store, index, poster, clock=clock)
    job()
    send(store, index, poster, AT_0900 + timedelta(minutes=1), day=DAY + timedelta(days=3), force=True)
    store.first_time("Ev123")
    store.close()
    files = [p for p in tmp_path.iterdir() if p.name.startswith("test.db")]
    assert files
    blob = b"".join(p.read_bytes() for p in files)
    assert b"C1" in blob  # the search does see the stored data
    assert b"xoxb-" not in blob and b"xapp-" not in blob
    assert BOT_TOKEN.encode() not in blob and APP_TOKEN.encode() not in blob


def test_make_job_runs_due_posts_and_leaves_event_keys_to_the_processes_handling_events(store, index, poster, clock):
    subscribe(store, "C1")
    store.first_time("old-event", now=AT_0900 - timedelta(days=30))
    job = make_job(store, index, poster, clock=clock)
    assert job().posted == 1
    assert job().posted == 0
    assert store.first_time("old-event") is False  # the journal loop purges them (bot.store.claims)


def test_empty_corpus_fails_the_post_without_crashing_the_run(store, poster):
    subscribe(store, "C1")
    summary = run_due(store, ListIndex([]), poster, AT_0900)
    assert (summary.posted, summary.failed) == (0, 1) and poster.attempts == 0
    assert store.get_delivery("T1", "C1", DAY) is None  # nothing claimed


def test_unknown_zone_deactivates_in_the_clock_and_fails_in_send(store, index, poster):
    subscribe(store, "C1")
    subscribe(store, "BAD", tz="Mars/Olympus_Mons")
    assert str(send(store, index, poster, AT_0900)) == "posted 1, skipped 0, failed 1"
    run_due(store, index, poster, AT_0900 + timedelta(days=1))
    bad = store.get_subscription("T1", "BAD")
    assert not bad.active and "zone" in bad.inactive_reason
    assert poster.channels() == ["C1", "C1"]
