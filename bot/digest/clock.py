"""The scheduler of the daily digest: ONE APScheduler 3.11 interval job
(the only module that imports apscheduler).

Why one interval job and not a cron job per channel (docs/platform-facts.md "APScheduler 3"):
APScheduler 3.11.3's ``CronTrigger`` fires a 01:30 job twice on a fall-back
day and skips a 00:00 job the day after a spring-forward, so the job only
asks "what is due now?" (``bot.digest.run_due``) every ``interval_s``
seconds and the store's claim keyed by (team, channel, local date) makes a
repeat harmless. Subscriptions live in the SQL store, the job in an
in-memory job store (nothing pickled, no token anywhere on disk).

Job settings (docs/platform-facts.md "APScheduler 3"; APScheduler userguide):

- fixed id ``JOB_ID`` with ``replace_existing=True``: adding it again
  replaces it, never duplicates it;
- ``coalesce=True``: runs missed while the process was paused collapse to one;
- ``max_instances=1``: a run that outlasts the interval makes the next one
  skip (logged by APScheduler) instead of overlapping;
- ``misfire_grace_time=interval_s``: the default of 1 s would drop a run
  that starts a little late; a run later than one interval is dropped, the
  next interval covers it;
- explicit ``timezone=UTC`` on the scheduler and trigger (the default is
  the host's local zone);
- ``next_run_time=now``: the first run happens at start-up, so a post time missed
  while the process was down is posted at once (docs/interfaces.md "Paper of the day").

Run exactly one clock process per database: APScheduler does not coordinate
schedulers (FAQ), though the store's claims keep even two from double-posting.
"""

from __future__ import annotations

import logging
from datetime import timezone
from typing import Callable

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot.daily.post_times import utc_now

log = logging.getLogger(__name__)

JOB_ID = "paperbot-digest"
#: Default interval (seconds): a post time one minute ahead posts within that minute.
INTERVAL_S = 30.0


def schedule_digest(
    scheduler: BaseScheduler, job: Callable[[], object], *, interval_s: float = INTERVAL_S, run_now: bool = True
):
    """Add (or replace) the digest interval job on ``scheduler``.

    Args:
        scheduler: an APScheduler 3.x scheduler (started or not).
        job: a no-argument plain function, e.g. ``bot.digest.make_job(...)``.
        interval_s: seconds between runs (> 0).
        run_now: run once as soon as the scheduler runs, then every interval.

    Returns:
        apscheduler.job.Job: the job with id ``JOB_ID``.

    Raises:
        ValueError: ``interval_s`` ≤ 0.
    """
    if interval_s <= 0:
        raise ValueError("interval_s must be positive")
    extra = {"next_run_time": utc_now()} if run_now else {}
    return scheduler.add_job(
        job,
        IntervalTrigger(seconds=interval_s, timezone=timezone.utc),
        id=JOB_ID,
        name="paper of the day",
        replace_existing=True,
        coalesce=True,
        max_instances=1,
        misfire_grace_time=max(1, int(interval_s)),
        **extra,
    )


def make_scheduler(
    job: Callable[[], object], *, interval_s: float = INTERVAL_S, blocking: bool = False, run_now: bool = True
) -> BaseScheduler:
    """A configured, not yet started scheduler holding the one digest job.

    Args:
        job: the plain function to run.
        interval_s: seconds between runs.
        blocking: ``BlockingScheduler`` (``paperbot clock``) instead of
            ``BackgroundScheduler`` (``paperbot socket``, daemon thread).
        run_now: first run at start-up.

    Returns:
        The scheduler: in-memory job store, one worker thread, UTC.
    """
    cls = BlockingScheduler if blocking else BackgroundScheduler
    scheduler = cls(
        jobstores={"default": MemoryJobStore()},
        executors={"default": ThreadPoolExecutor(max_workers=1)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": max(1, int(interval_s))},
        timezone=timezone.utc,
    )
    schedule_digest(scheduler, job, interval_s=interval_s, run_now=run_now)
    return scheduler


def start_clock(
    job: Callable[[], object], *, interval_s: float = INTERVAL_S, run_now: bool = True
) -> BackgroundScheduler:
    """Start the digest job in a background (daemon) thread; return the scheduler.

    Call ``scheduler.shutdown()`` to stop it. The daemon thread dies with the
    main thread (APScheduler FAQ), so the caller must keep its main thread
    alive (Bolt's ``SocketModeHandler.start()`` does).

    Args:
        job: the no-argument digest job (``bot.digest.make_job``).
        interval_s: seconds between runs.
        run_now: also run once at start-up.
    """
    scheduler = make_scheduler(job, interval_s=interval_s, run_now=run_now)
    scheduler.start()
    log.info("clock started: digest job every %ss", interval_s)
    return scheduler


def run_clock(job: Callable[[], object], *, interval_s: float = INTERVAL_S) -> None:
    """Run the digest job in the foreground until interrupted (``paperbot clock``).

    Returns after Ctrl-C / ``SystemExit``, with the scheduler shut down.

    Args:
        job: the no-argument digest job (``bot.digest.make_job``).
        interval_s: seconds between runs.
    """
    scheduler = make_scheduler(job, interval_s=interval_s, blocking=True)
    log.info("clock running: digest job every %ss (Ctrl-C to stop)", interval_s)
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        if scheduler.running:
            scheduler.shutdown(wait=False)
