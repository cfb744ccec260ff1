"""The APScheduler clock: one interval job with the documented settings
(docs/platform-facts.md "APScheduler 3"), running a plain function. No test waits for a real
post time; the running-scheduler tests wait on events set by the job.
"""

from __future__ import annotations

import threading
from datetime import timedelta, timezone

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot.digest import clock


def _noop():
    return None


def test_one_interval_job_with_fixed_id_and_safe_settings():
    scheduler = clock.make_scheduler(_noop)
    assert isinstance(scheduler, BackgroundScheduler)
    jobs = scheduler.get_jobs()
    assert [j.id for j in jobs] == [clock.JOB_ID] == ["paperbot-digest"]
    job = jobs[0]
    assert isinstance(job.trigger, IntervalTrigger)
    assert job.trigger.interval == timedelta(seconds=30)
    assert job.trigger.timezone == timezone.utc
    assert (job.coalesce, job.max_instances, job.misfire_grace_time) == (True, 1, 30)
    assert job.func is _noop
    assert scheduler.timezone == timezone.utc


def test_adding_the_job_again_replaces_it():
    scheduler = clock.make_scheduler(_noop, interval_s=30)
    scheduler.start(paused=True)
    try:
        clock.schedule_digest(scheduler, _noop, interval_s=10)
        jobs = scheduler.get_jobs()
        assert len(jobs) == 1 and jobs[0].trigger.interval == timedelta(seconds=10)
    finally:
        scheduler.shutdown(wait=False)


def test_bad_interval_is_refused():
    with pytest.raises(ValueError):
        clock.make_scheduler(_noop, interval_s=0)


def test_background_clock_runs_the_job_at_start_and_again():
    calls = []
    twice = threading.Event()

    def job():
        calls.append(threading.current_thread().name)
        if len(calls) >= 2:
            twice.set()

    scheduler = clock.start_clock(job, interval_s=0.05)
    try:
        assert twice.wait(timeout=30)
        assert threading.current_thread().name not in calls  # ran off the main thread
    finally:
        scheduler.shutdown(wait=True)


def test_blocking_clock_runs_in_the_foreground_until_shut_down():
    scheduler = clock.make_scheduler(lambda: scheduler.shutdown(wait=False), blocking=True, interval_s=3600)
    assert isinstance(scheduler, BlockingScheduler)
    runner = threading.Thread(target=scheduler.start)  # run_now=True: fires at once
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive()
