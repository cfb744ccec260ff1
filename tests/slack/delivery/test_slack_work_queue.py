"""The work queue (``bot.slack.delivery.work_queue``): places per user and in all,
a fair order (the waiting user with the fewest jobs running, then the one served
least recently — not the oldest job), one "told" per user and minute, places
given back, a pool that was shut down."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.slack.delivery.intake import asker
from bot.slack.delivery.work_queue import SHARED_CAP, TOLD_EVERY_S, USER_CAP, Ticket, WorkQueue


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
    assert queue.place("U0A") == USER_CAP
    assert queue.reserve("U0A", always=True) is not None  # a retake is never refused ...
    assert queue.submit("U0B", rec.job("b1")) is True  # ... and counts (4 of 3), but U0B has none: a1 goes
    assert queue.place("U0C") == SHARED_CAP  # nobody LIGHT heavier with a job queued
    assert queue.pending("U0A") == 2 and queue.pending() == 3
    rec.gate.set()
    pool.shutdown(wait=True)
    assert rec.ran == ["a0", "b1"]


def test_the_shared_cap_drops_the_heaviest_users_newest_job_for_a_light_user(caplog) -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    queue, rec = WorkQueue(pool, per_user=8, total=5), Recorder()
    told: list[str] = []
    assert queue.submit("U0A", rec.job("a0", hold=True))
    assert rec.started.wait(10)
    for name in ("a1", "a2"):
        queue.reserve("U0A").submit(rec.job(name), shed=lambda name=name: told.append(name))  # type: ignore[union-attr]
    for user, name in (("U0B", "b1"), ("U0C", "c1")):
        assert queue.submit(user, rec.job(name))
    # five pending: U0A 3 (a0 running), U0B 1, U0C 1; U0D has none ...
    ticket = queue.place("U0D")
    assert isinstance(ticket, Ticket)  # ... and gets U0A's newest queued job's place
    ticket.submit(rec.job("d1"))
    assert queue.pending("U0A") == 2 and queue.pending() == 5
    assert queue.place("U0B") == SHARED_CAP  # U0B has 1: U0A (2) is not LIGHT heavier
    rec.gate.set()
    pool.shutdown(wait=True)
    assert told == ["a2"] and "a2" not in rec.ran and sorted(rec.ran) == ["a0", "a1", "b1", "c1", "d1"]
    assert "1 queued job(s) of the heaviest users" in caplog.text


def test_a_job_that_waited_past_its_bound_is_not_run(caplog) -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    queue, rec = WorkQueue(pool), Recorder()
    told: list[str] = []
    assert queue.submit("U0A", rec.job("a0", hold=True))
    assert rec.started.wait(10)
    late = queue.place("U0B", stale_after=0.0)
    patient = queue.place("U0C", stale_after=None)
    assert isinstance(late, Ticket) and isinstance(patient, Ticket)
    late.submit(rec.job("b1"), shed=lambda: told.append("b1"))
    patient.submit(rec.job("c1"), shed=lambda: told.append("c1"))
    rec.gate.set()
    pool.shutdown(wait=True)
    assert rec.ran == ["a0", "c1"] and told == ["b1"] and queue.pending() == 0
    assert "dropped 1 job(s) that waited past their bound" in caplog.text


def test_a_copy_of_a_request_whose_place_is_held_is_let_in_past_the_caps() -> None:
    queue = WorkQueue(ThreadPoolExecutor(max_workers=1), per_user=1, total=1)
    first = queue.place("U0A", keys=["event:Ev1", "msg:T:C:1.0"])
    assert isinstance(first, Ticket)
    assert queue.place("U0A", keys=["event:Ev2"]) == USER_CAP  # another event: the cap holds
    retry = queue.place("U0A", keys=["event:Ev1", "msg:T:C:1.0"])
    edit = queue.place("U0A", keys=["event:Ev3", "msg:T:C:1.0"])  # same message, new event id
    assert isinstance(retry, Ticket) and isinstance(edit, Ticket)
    for ticket in (retry, edit, first):
        ticket.cancel()
    assert queue.pending() == 0 and queue.place("U0B", keys=["event:Ev9"]) is not None
    assert queue.place("U0A", keys=["event:Ev1"]) == SHARED_CAP  # its place was given back


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
