"""The work queue (``bot.slack.delivery.work_queue``): places per user and in all,
a fair order (the waiting user with the fewest jobs running, then the one served
least recently — not the oldest job), one "told" per user and minute, places
given back, a pool that was shut down."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.slack.delivery.intake import asker
from bot.slack.delivery.work_queue import TOLD_EVERY_S, WorkQueue


class Recorder:
    """Jobs that record their name when they run; ``gate`` holds the first one."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.gate = threading.Event()
        self.started = threading.Event()

    def job(self, name: str, hold: bool = False):
        def run() -> None:
            if hold:
                self.started.set()
                self.gate.wait(30)
            self.ran.append(name)

        return run


def test_a_free_thread_takes_the_newcomer_before_a_backlog() -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    queue, rec = WorkQueue(pool, per_user=8), Recorder()
    assert queue.submit("U0A", rec.job("a0", hold=True))
    assert rec.started.wait(10)  # the one thread is busy with a0
    for name in ("a1", "a2", "a3"):
        assert queue.submit("U0A", rec.job(name))
    assert queue.submit("U0B", rec.job("b1"))  # arrives last ...
    assert queue.submit("U0C", rec.job("c1"))
    rec.gate.set()
    pool.shutdown(wait=True)
    assert rec.ran == ["a0", "b1", "c1", "a1", "a2", "a3"]  # ... runs first: never served before


def test_places_are_capped_per_user_and_in_all() -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    queue, rec = WorkQueue(pool, per_user=2, total=3), Recorder()
    assert queue.submit("U0A", rec.job("a0", hold=True))
    assert queue.submit("U0A", rec.job("a1"))
    assert queue.submit("U0A", rec.job("a2")) is False  # U0A has 2
    assert queue.reserve("U0A") is None
    assert queue.reserve("U0A", always=True) is not None  # a retake is never refused ...
    assert queue.submit("U0B", rec.job("b1")) is False  # ... and counts: 4 pending of 3
    assert queue.pending("U0A") == 3 and queue.pending() == 3
    rec.gate.set()
    pool.shutdown(wait=True)
    assert rec.ran == ["a0", "a1"]


def test_a_place_not_used_is_given_back_once() -> None:
    queue = WorkQueue(ThreadPoolExecutor(max_workers=1), per_user=1)
    ticket = queue.reserve("U0A")
    assert ticket is not None and queue.reserve("U0A") is None
    ticket.cancel()
    ticket.cancel()  # twice: still one place back
    assert queue.pending("U0A") == 0
    again = queue.reserve("U0A")
    assert again is not None
    again.submit(lambda: None)
    again.cancel()  # used: nothing to give back (the job gives it back when it ends)
    with pytest.raises(RuntimeError):
        again.submit(lambda: None)


def test_a_user_is_told_once_a_minute() -> None:
    queue = WorkQueue(ThreadPoolExecutor(max_workers=1))
    assert queue.told("U0A", now=100.0) is True
    assert queue.told("U0A", now=100.0 + TOLD_EVERY_S - 1) is False
    assert queue.told("U0B", now=101.0) is True  # per user
    assert queue.told("U0A", now=100.0 + TOLD_EVERY_S) is True


def test_a_failing_job_gives_its_place_back_and_the_thread_goes_on(caplog) -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    queue = WorkQueue(pool, per_user=1)

    def broken() -> None:
        raise ValueError("boom")

    assert queue.submit("U0A", broken)
    pool.shutdown(wait=True)
    assert queue.pending("U0A") == 0 and "a queued job of U0A failed" in caplog.text


def test_a_pool_that_was_shut_down_runs_nothing_and_keeps_no_place(caplog) -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    pool.shutdown()
    queue = WorkQueue(pool)
    assert queue.submit("U0A", lambda: None) is True
    assert queue.pending() == 0 and "not run" in caplog.text


@pytest.mark.parametrize(
    "body,expected",
    [
        ({"command": "/paper", "user_id": "U1"}, ("U1", "/paper")),
        ({"type": "event_callback", "event": {"type": "app_mention", "user": "U2"}}, ("U2", "app_mention")),
        ({"type": "event_callback", "event": {"type": "tokens_revoked"}}, ("", "tokens_revoked")),
        ({"type": "event_callback", "event": "not an object"}, ("", "request")),
        ({"type": "block_actions", "user": {"id": "U3"}}, ("U3", "block_actions")),
        ({"type": "block_actions", "user": "U4"}, ("U4", "block_actions")),  # a shape only Socket Mode lets in
        ({"type": "view_submission", "user": None}, ("", "view_submission")),
        ({}, ("", "request")),
    ],
)
def test_asker_names_whose_work_a_request_is(body, expected) -> None:
    assert asker(body) == expected
