"""The daily "paper of the day" digest (docs/interfaces.md "Paper of the day").

``run_due`` is what the clock's interval job calls; ``send`` is
``paperbot digest send``; ``make_job`` builds the plain function the clock
schedules. Post-time arithmetic (``next_post_time``, ``post_time_utc``) and the UTC
clock (``utc_now``) are in the leaf ``bot.daily.post_times``, re-exported here; the runs
are in ``bot.digest.run`` (docs/architecture.md "Layers"). No Slack, SQL
or APScheduler types here: the store, index, poster and clock are passed in.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Callable

from bot.daily.post_times import next_post_time, post_time_utc, utc_now
from bot.digest.run import LATE_AFTER, MAX_ATTEMPTS, RECONCILE_AFTER, DigestDateError, DigestSummary, run_due, send

__all__ = [
    "run_due",
    "send",
    "next_post_time",
    "post_time_utc",
    "make_job",
    "utc_now",
    "DigestSummary",
    "DigestDateError",
    "LATE_AFTER",
    "RECONCILE_AFTER",
    "MAX_ATTEMPTS",
]

log = logging.getLogger(__name__)


def make_job(
    store, index, poster, *, clock: Callable[[], datetime] = utc_now, learned=None
) -> Callable[[], DigestSummary]:
    """The plain function the clock runs every interval: ``run_due`` at ``clock()``.
    (Slack's event keys are not purged here: the processes that handle events
    do it, ``bot.store.claims``.)

    Args:
        store: ``bot.store.Store``.
        index: ``ids()`` / ``get(id)`` (``bot.search.SearchIndex``).
        poster: ``bot.core.ports.Poster``.
        clock: returns aware UTC now (tests inject a fake).
        learned: the service's picks for ``for me`` / ``for this channel`` subscriptions
            (``Service.recommendations``), or None.

    Returns:
        A no-argument callable returning the run's ``DigestSummary``;
        exceptions (e.g. the database is unreachable) propagate to the
        scheduler, which logs them and runs the job again next interval.
    """

    def digest_job() -> DigestSummary:
        now = clock()
        summary = run_due(store, index, poster, now, learned=learned)
        if summary.posted or summary.failed or summary.skipped or summary.stopped:
            log.info("digest run: %s", summary)
        return summary

    return digest_job
