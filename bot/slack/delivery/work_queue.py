"""The work a listener promised in its ack, queued per user and run fairly on the
listener pool (docs/architecture.md "Acks never wait behind work").

Bolt runs each listener's ack part on the thread that received the request
(``process_before_response=True``, ``bot.slack.app.build_app``); everything slow
the ack promised — a search, a post, a modal — is a *job* handed to this queue,
which runs it on the listener pool. So no ack ever stands in a queue behind
somebody's work. The queue itself is bounded and fair:

- **Bounded.** A user has at most ``USER_PENDING`` jobs reserved, queued or
  running; everyone together at most ``PENDING_MAX``. A place is reserved
  (``reserve``) before the request is journaled or acknowledged
  (``bot.slack.delivery.intake``), so a request past the cap is refused at
  once, costs no database write and is never queued. ``told`` says when a user
  was last told (one log line, one "busy" notice) so a flood yields one line
  per user and minute, not one per request.
- **Fair.** When a pool thread is free it runs the job of the waiting user who
  has the fewest jobs running, ties going to the user served least recently —
  not the oldest job — so one user's backlog never stands in front of another
  user's first request. Every accepted job is one task on the executor and each
  task runs whichever job is fairest when it starts, so the executor's own
  first-in-first-out order does not matter, and ``executor.shutdown(wait=True)``
  waits for every job accepted so far (the tests' ``drain``).

Inside a job, the CPU work still waits for a work slot
(``bot.slack.delivery.fair_slots.FairSlots``): the queue decides which job gets
a thread, the slots which thread gets the CPU.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import Counter, OrderedDict, deque
from concurrent.futures import Executor
from typing import Callable

log = logging.getLogger(__name__)

#: Jobs one user may have reserved, queued or running. A person types or clicks
#: a few requests at a time; past this many their requests are refused ("busy").
USER_PENDING = 8
#: Jobs of all users together (64 listener threads, 8 deep).
PENDING_MAX = 512
#: Seconds between two "busy" log lines (and notices) about the same user.
TOLD_EVERY_S = 60.0
#: Users remembered in ``told`` before the oldest are forgotten.
TOLD_MAX = 10_000


class Ticket:
    """One place reserved in a ``WorkQueue`` for one request's job.

    ``submit(job)`` hands the job over; ``cancel()`` gives the place back when the
    request turned out to need none (a duplicate, an event we ignore). Used by
    one thread (the request's), so it needs no lock.

    Args:
        queue: the work queue that granted the place.
        user: whose place it is (a Slack user id, "" for none).

    Attributes:
        user: the Slack user id the place counts against ("" when none).
    """

    def __init__(self, queue: "WorkQueue", user: str) -> None:
        self._queue = queue
        self.user = user
        self._open = True

    def submit(self, job: Callable[[], None]) -> None:
        """Queue ``job`` in this place (once).

        Raises:
            RuntimeError: the ticket was used or cancelled already.
        """
        if not self._open:
            raise RuntimeError("a work ticket is used once")
        self._open = False
        self._queue._enqueue(self.user, job)

    def cancel(self) -> None:
        """Give the place back unless a job was submitted (safe to call twice)."""
        if self._open:
            self._open = False
            self._queue._release(self.user)


class WorkQueue:
    """Per-user bounded, fair queue of jobs in front of ``executor``.

    Args:
        executor: runs the jobs (the listener pool; its thread count bounds how
            many run at once).
        per_user: most jobs one user may have pending (default ``USER_PENDING``).
        total: most jobs pending in all (default ``PENDING_MAX``).

    Raises:
        ValueError: ``per_user`` or ``total`` below 1.
    """

    def __init__(self, executor: Executor, *, per_user: int = USER_PENDING, total: int = PENDING_MAX) -> None:
        if per_user < 1 or total < 1:
            raise ValueError("per_user and total must be at least 1")
        self._executor = executor
        self.per_user, self.total = per_user, total
        self._lock = threading.Lock()
        self._pending: Counter[str] = Counter()  # reserved + queued + running, per user
        self._running: Counter[str] = Counter()
        self._queued: OrderedDict[str, deque[Callable[[], None]]] = OrderedDict()
        self._served: dict[str, int] = {}  # user -> when last given a thread (a counter)
        self._clock = itertools.count(1)
        self._told: OrderedDict[str, float] = OrderedDict()

    # ------------------------------------------------------------ places
    def reserve(self, user: str, *, always: bool = False) -> Ticket | None:
        """A place for one job of ``user``, or None when the user (or everyone)
        is at the cap.

        Args:
            user: the Slack user id ("" for a request without one: one shared place).
            always: never refuse (work already acknowledged, taken again by the journal).
        """
        with self._lock:
            if not always and (self._pending[user] >= self.per_user or sum(self._pending.values()) >= self.total):
                return None
            self._pending[user] += 1
        return Ticket(self, user)

    def submit(self, user: str, job: Callable[[], None]) -> bool:
        """``reserve`` and queue ``job`` at once; False (nothing queued) at the cap.

        Args:
            user: whose work it is (a Slack user id).
            job: the work, a callable of no arguments.
        """
        ticket = self.reserve(user)
        if ticket is None:
            return False
        ticket.submit(job)
        return True

    def pending(self, user: str | None = None) -> int:
        """Jobs reserved, queued or running: of ``user``, or of everyone."""
        with self._lock:
            return self._pending[user] if user is not None else sum(self._pending.values())

    def told(self, user: str, now: float | None = None) -> bool:
        """True at most once per ``TOLD_EVERY_S`` for ``user``: whether to log
        (and answer "busy" to) this refusal, the first of its minute.

        Args:
            user: whose request was refused (a Slack user id).
            now: ``time.monotonic()`` seconds (default: now).
        """
        at = time.monotonic() if now is None else now
        with self._lock:
            last = self._told.get(user)
            if last is not None and at - last < TOLD_EVERY_S:
                return False
            self._told[user] = at
            self._told.move_to_end(user)
            while len(self._told) > TOLD_MAX:
                self._told.popitem(last=False)
            return True

    # ------------------------------------------------------------ running
    def _enqueue(self, user: str, job: Callable[[], None]) -> None:
        with self._lock:
            self._queued.setdefault(user, deque()).append(job)
        try:
            self._executor.submit(self._run_next)
        except RuntimeError:  # the pool was shut down (the process is stopping)
            with self._lock:
                queue = self._queued.get(user)
                if queue and job in queue:
                    queue.remove(job)
                    if not queue:
                        del self._queued[user]
            self._release(user)
            log.warning("the listener pool is shut down; a job of %s was not run", user or "an unknown user")

    def _release(self, user: str) -> None:
        with self._lock:
            self._pending[user] -= 1
            if self._pending[user] <= 0:
                del self._pending[user]

    def _take(self) -> tuple[str, Callable[[], None]] | None:
        """The fairest queued job (lock held): fewest running, then least recently served."""
        if not self._queued:
            return None
        user = min(self._queued, key=lambda u: (self._running[u], self._served.get(u, 0)))
        queue = self._queued[user]
        job = queue.popleft()
        if not queue:
            del self._queued[user]
        self._running[user] += 1
        self._served[user] = next(self._clock)
        if len(self._served) > TOLD_MAX:  # forget long-gone users
            for old in list(self._served)[: TOLD_MAX // 2]:
                del self._served[old]
        return user, job

    def _run_next(self) -> None:
        with self._lock:
            taken = self._take()
        if taken is None:  # cannot happen: one task per accepted job
            return
        user, job = taken
        try:
            job()
        except Exception:  # noqa: BLE001 — a job's own errors are its to report; keep the thread
            log.exception("a queued job of %s failed", user or "an unknown user")
        finally:
            with self._lock:
                self._running[user] -= 1
                if self._running[user] <= 0:
                    del self._running[user]
            self._release(user)
