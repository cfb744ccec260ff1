"""Exactly once across processes: several processes released together by a
``multiprocessing.Barrier`` run the digest against one SQLite file or one
PostgreSQL database; a process SIGKILLed between claim and post is followed
by a run that does not post twice. Posts go to a shared append-only file.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from datetime import date, datetime, timedelta, timezone

import pytest

from bot.core.models import DeliveryState as State
from bot.digest import run_due, send
from bot.store import Store
from tests.digest.digestkit import FORK as CTX
from tests.digest.digestkit import FilePoster, ListIndex, make_papers, run_together

UTC = timezone.utc
DAY = date(2026, 12, 1)
DUE = datetime(2026, 12, 1, 9, 0, 5, tzinfo=UTC)
CHANNELS = ("C1", "C2", "C3")


def _prepare(url: str) -> None:
    store = Store(url)
    for channel in CHANNELS:
        store.upsert_subscription("T1", channel, "09:00", "UTC", "U1", DUE - timedelta(days=1))
    store.close()


def _worker(url, log_path, mode, barrier, results):
    """One process: open the store, wait for the others, run, report the summary."""
    try:
        store = Store(url)
        poster, index = FilePoster(log_path), ListIndex(make_papers())
        barrier.wait(timeout=60)
        if mode == "send":
            summary = send(store, index, poster, DUE)
        else:
            summary = run_due(store, index, poster, DUE)
        results.put((summary.posted, summary.skipped, summary.failed))
    except Exception as exc:  # noqa: BLE001 — reported to the parent
        results.put(repr(exc))


@pytest.mark.parametrize(
    "modes", [("run",) * 4, ("run", "run", "send", "send")], ids=["four-clocks", "clocks-and-manual-sends"]
)
def test_processes_released_together_post_once_per_channel(db_url, tmp_path, modes):
    _prepare(db_url)
    log_path = tmp_path / "posts.log"
    got = run_together(_worker, [(db_url, log_path, m) for m in modes])
    assert all(isinstance(g, tuple) for g in got), got
    posts = FilePoster(log_path).parents()
    assert Counter(c for c, _ in posts) == {c: 1 for c in CHANNELS}
    assert len({m for _, m in posts}) == 1  # one paper for the date, agreed by all
    assert sum(g[0] for g in got) == len(CHANNELS)
    assert sum(g[2] for g in got) == 0
    store = Store(db_url)
    assert {store.get_delivery("T1", c, DAY).state for c in CHANNELS} == {State.POSTED}
    store.close()


def _doomed(url, log_path, reached, before):
    store = Store(url)
    poster = FilePoster(log_path, reached=reached, block_before=before, block_after=not before)
    run_due(store, ListIndex(make_papers()), poster, DUE)


@pytest.mark.parametrize("before", [True, False], ids=["killed-before-post", "killed-after-post"])
def test_sigkill_between_claim_and_record_never_posts_twice(db_url, tmp_path, before):
    store = Store(db_url)
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", DUE - timedelta(days=1))
    store.close()
    log_path = tmp_path / "posts.log"
    reached = CTX.Event()
    proc = CTX.Process(target=_doomed, args=(db_url, log_path, reached, before))
    proc.start()
    assert reached.wait(timeout=60), "the child never reached the poster"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL

    restarted = Store(db_url)
    claim = restarted.get_delivery("T1", "C1", DAY)
    assert (claim.state, claim.message_ts) == (State.CLAIMED, None)
    poster, index = FilePoster(log_path), ListIndex(make_papers())
    for minutes in (1, 5, 30, 300):  # the restarted clock ticks on through the day
        run_due(restarted, index, poster, DUE + timedelta(minutes=minutes))
    send(restarted, index, poster, DUE + timedelta(hours=6))  # and an operator tries too
    posts = poster.parents()
    final = restarted.get_delivery("T1", "C1", DAY)
    # before: nothing reached the channel, its whole history says so → posted once, late;
    # after: the post is in the channel → found, recorded, not repeated
    assert len(posts) == 1 and final.state == State.POSTED
    assert final.message_ts == poster.lines()[0][2]
    run_due(restarted, index, poster, DUE + timedelta(days=1))  # next day is normal again
    assert [c for c, m in poster.parents() if "2026-12-02" in m] == ["C1"]
    restarted.close()
