"""The work a listener promised in its ack, queued per user and run fairly on the
listener pool (docs/architecture.md "Acks never wait behind work").

Bolt runs each listener's ack part on the thread that received the request
(``process_before_response=True``, ``bot.slack.app.build_app``); everything slow
the ack promised — a search, a post, a modal — is a *job* handed to this queue,
which runs it on the listener pool. So no ack ever stands in a queue behind
somebody's work. The queue itself is bounded, fair and never late:

- **Bounded.** A user has at most ``USER_PENDING`` jobs reserved, queued or
  running; everyone together at most ``PENDING_MAX``. A place is reserved
  (``place``) before the request is journaled or acknowledged
  (``bot.slack.delivery.intake``), so a request past a cap is refused at once,
  costs no database write and is never queued. ``told`` says when a user was
  last told (one log line, one "busy" notice) so a flood yields one line per
  user and minute, not one per request.
- **Room for the light.** The shared cap never refuses a user with fewer than
  ``LIGHT`` jobs pending while somebody with at least two more has one queued:
  that user's newest queued job is dropped instead (answered "busy"), so a
  flood from many users refuses the heaviest of them first, never a person
  with nothing pending.
- **Never late.** A place remembers when its request came in and how long its
  job may wait (``stale_after``, chosen per kind by the intake); a job that
  waited longer is not run — it is answered "busy" (its ``shed`` callback) —
  so a backlog costs the people in it a quick refusal, not answers half a
  minute late, and a modal is never opened with an expired ``trigger_id``.
  Drops are one WARNING line a minute, with a count.
- **Fair.** When a pool thread is free it runs the job of the waiting user who
  has the fewest jobs running, ties going to the user served least recently —
  not the oldest job — so one user's backlog never stands in front of another
  user's first request. Every accepted job is one task on the executor and each
  task runs whichever job is fairest when it starts (or a dropped job's "busy"
  notice, first), so the executor's own first-in-first-out order does not
  matter, and ``executor.shutdown(wait=True)`` waits for every job accepted so
  far (the tests' ``drain``).
- **Copies ride free.** A place may name the request's keys (an event's
  ``event:<id>`` and ``msg:<team>:<channel>:<ts>``); a request whose key a
  place holds already — a Slack retry racing the original, the same message
  under a new event id — is let in past the caps: the journal drops it as a
  duplicate at once and its place is given back.

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
from typing import Callable, Iterable

log = logging.getLogger(__name__)

#: Jobs one user may have reserved, queued or running. A person types or clicks
#: a few requests at a time; past this many their requests are refused ("busy").
USER_PENDING = 8
#: Jobs of all users together (64 listener threads, 8 deep).
PENDING_MAX = 512
#: A user with fewer jobs pending than this is not refused by the shared cap while
#: a heavier user (``LIGHT`` more) has a job queued: that job is dropped instead.
LIGHT = 2
#: Seconds between two "busy" log lines (and notices) about the same user.
TOLD_EVERY_S = 60.0
#: Seconds between two lines about dropped jobs (each with the count since the last).
DROPS_EVERY_S = 60.0
#: Users remembered in ``told`` before the oldest are forgotten.
TOLD_MAX = 10_000
#: ``place``'s refusals: which cap was reached.
USER_CAP = "user"
SHARED_CAP = "shared"

_current = threading.local()  # .ticket: the place of the job this pool thread runs


def waited() -> float | None:
    """Seconds the job running on this thread has waited since its request came in
    (None outside a queued job): a job past ``trigger_id``'s life skips ``views.open``."""
    ticket: Ticket | None = getattr(_current, "ticket", None)
    return None if ticket is None else ticket.waited()


class Ticket:
    """One place reserved in a ``WorkQueue`` for one request's job.

    ``submit(job)`` hands the job over; ``cancel()`` gives the place back when the
    request turned out to need none (a duplicate, an event we ignore). Used by
    one thread (the request's), so it needs no lock.

    Args:
        queue: the work queue that granted the place.
        user: whose place it is (a Slack user id, "" for none).
        keys: the request's idempotency keys (copies of it ride free), or none.
        stale_after: seconds after ``received`` past which the job is not run
            (None: always run).

    Attributes:
        user: the Slack user id the place counts against ("" when none).
        received: ``time.monotonic()`` when the place was reserved.
        stale_after: seconds the job may wait, or None.
        notice: set by the intake: the job that tells the user "busy" when this
            one is dropped (None: nothing to tell).
    """

    def __init__(
        self, queue: "WorkQueue", user: str, keys: tuple[str, ...] = (), stale_after: float | None = None
    ) -> None:
        self._queue = queue
        self.user, self.keys = user, keys
        self.received, self.stale_after = time.monotonic(), stale_after
        self.notice: Callable[[], None] | None = None
        self._open = True

    def submit(self, job: Callable[[], None], shed: Callable[[], None] | None = None) -> None:
        """Queue ``job`` in this place (once); ``shed`` runs instead when it is dropped.

        Args:
            job: the work, a callable of no arguments.
            shed: what to do instead of a dropped job (tell the user, end its journal row).

        Raises:
            RuntimeError: the ticket was used or cancelled already.
        """
        if not self._open:
            raise RuntimeError("a work ticket is used once")
        self._open = False
        self._queue._enqueue(_Job(self, job, shed))

    def cancel(self) -> None:
        """Give the place back unless a job was submitted (safe to call twice)."""
        if self._open:
            self._open = False
            self._queue._release(self)

    def waited(self, now: float | None = None) -> float:
        """Seconds since the place was reserved (``now``: ``time.monotonic()``, default now)."""
        return (time.monotonic() if now is None else now) - self.received


class _Job:
    """A submitted job, its place and what runs instead when it is dropped."""

    __slots__ = ("ticket", "run", "shed")

    def __init__(self, ticket: Ticket, run: Callable[[], None], shed: Callable[[], None] | None) -> None:
        self.ticket, self.run, self.shed = ticket, run, shed

    def stale(self, now: float) -> bool:
        limit = self.ticket.stale_after
        return limit is not None and self.ticket.waited(now) > limit


class WorkQueue:
    """Per-user bounded, fair queue of jobs in front of ``executor``.

    Args:
        executor: runs the jobs (the listener pool; its thread count bounds how
            many run at once).
        per_user: most jobs one user may have pending (default: ``USER_PENDING`` now).
        total: most jobs pending in all (default: ``PENDING_MAX`` now).

    Raises:
        ValueError: ``per_user`` or ``total`` below 1.
    """

    def __init__(self, executor: Executor, *, per_user: int | None = None, total: int | None = None) -> None:
        per_user = USER_PENDING if per_user is None else per_user
        total = PENDING_MAX if total is None else total
        if per_user < 1 or total < 1:
            raise ValueError("per_user and total must be at least 1")
        self._executor = executor
        self.per_user, self.total = per_user, total
        self._lock = threading.Lock()
        self._pending: Counter[str] = Counter()  # reserved + queued + running, per user
        self._all = 0  # sum of _pending
        self._keys: Counter[str] = Counter()  # idempotency keys of the places held
        self._running: Counter[str] = Counter()
        self._queued: OrderedDict[str, deque[_Job]] = OrderedDict()
        self._asides: deque[Callable[[], None]] = deque()  # notices, run before any job
        self._served: dict[str, int] = {}  # user -> when last given a thread (a counter)
        self._clock = itertools.count(1)
        self._told: OrderedDict[str, float] = OrderedDict()
        self._drops: Counter[str] = Counter()  # why, since the last line
        self._drops_told = -DROPS_EVERY_S

    # ------------------------------------------------------------ places
    def place(
        self, user: str, *, always: bool = False, keys: Iterable[str] = (), stale_after: float | None = None
    ) -> Ticket | str:
        """A place for one job of ``user``, or the cap that refused it (``USER_CAP``,
        ``SHARED_CAP``). A user below ``LIGHT`` pending is let in past the shared cap
        when the newest queued job of a user with ``LIGHT`` more can be dropped for it.

        Args:
            user: the Slack user id ("" for a request without one: one shared place).
            always: never refuse (work already acknowledged, taken again by the journal).
            keys: the request's idempotency keys; one a place holds already lets it in.
            stale_after: seconds the job may wait before it is dropped (None: never).
        """
        keys = tuple(keys)
        shed: _Job | None = None
        with self._lock:
            if not always and not any(self._keys[k] for k in keys):
                mine = self._pending[user]
                if mine >= self.per_user:
                    return USER_CAP
                if self._all >= self.total:
                    shed = self._heaviest_newest(mine) if mine < LIGHT else None
                    if shed is None:
                        return SHARED_CAP
            self._pending[user] += 1
            self._all += 1
            self._keys.update(keys)
        if shed is not None:
            if shed.shed is not None:
                with self._lock:  # the dropped job's own task, still on the pool, runs it
                    self._asides.append(shed.shed)
            self._dropped("shed")
        return Ticket(self, user, keys, stale_after)

    def reserve(self, user: str, *, always: bool = False) -> Ticket | None:
        """``place`` for ``user``; None when a cap refused it.

        Args:
            user: the Slack user id ("" for a request without one: one shared place).
            always: never refuse (work already acknowledged, taken again by the journal).
        """
        granted = self.place(user, always=always)
        return granted if isinstance(granted, Ticket) else None

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

    def aside(self, notice: Callable[[], None]) -> None:
        """Run ``notice`` (a short Slack call: a "busy" notice) on the pool before any
        queued job; it holds no place. Nothing happens when the pool is shut down."""
        with self._lock:
            self._asides.append(notice)
        try:
            self._executor.submit(self._run_next)
        except RuntimeError:
            with self._lock:
                if notice in self._asides:
                    self._asides.remove(notice)

    def pending(self, user: str | None = None) -> int:
        """Jobs reserved, queued or running: of ``user``, or of everyone."""
        with self._lock:
            return self._pending[user] if user is not None else self._all

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
    def _enqueue(self, job: _Job) -> None:
        user = job.ticket.user
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
            self._release(job.ticket)
            log.warning("the listener pool is shut down; a job of %s was not run", user or "an unknown user")

    def _release(self, ticket: Ticket) -> None:
        with self._lock:
            self._release_locked(ticket)

    def _release_locked(self, ticket: Ticket) -> None:
        user = ticket.user
        self._pending[user] -= 1
        self._all -= 1
        if self._pending[user] <= 0:
            del self._pending[user]
        self._keys.subtract(ticket.keys)
        for key in ticket.keys:
            if self._keys[key] <= 0:
                del self._keys[key]

    def _heaviest_newest(self, mine: int) -> _Job | None:
        """Take out the newest queued job of the user with the most jobs pending, when
        they have at least ``mine + LIGHT`` (lock held); its place is given back."""
        if not self._queued:
            return None
        user = max(self._queued, key=lambda u: self._pending[u])
        if self._pending[user] < mine + LIGHT:
            return None
        queue = self._queued[user]
        job = queue.pop()
        if not queue:
            del self._queued[user]
        self._release_locked(job.ticket)
        return job

    def _dropped(self, why: str) -> None:
        """Count a job not run (``why``: "stale" or "shed"); one WARNING line a minute with the counts."""
        now = time.monotonic()
        with self._lock:
            self._drops[why] += 1
            if now - self._drops_told < DROPS_EVERY_S:
                return
            self._drops_told, counts = now, dict(self._drops)
            self._drops.clear()
        log.warning(
            "work queue: dropped %d job(s) that waited past their bound and %d queued job(s) of the heaviest "
            "users to make room for lighter ones (since the last such line); each was answered busy where "
            "an answer was due",
            counts.get("stale", 0),
            counts.get("shed", 0),
        )

    def _take(self) -> tuple[str, _Job] | None:
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
            aside = self._asides.popleft() if self._asides else None
            taken = None if aside is not None else self._take()
        if aside is not None:
            _run(aside, "a busy notice")
            return
        if taken is None:  # a job dropped to make room: its task has nothing left to run
            return
        user, job = taken
        try:
            if job.stale(time.monotonic()):
                self._dropped("stale")
                if job.shed is not None:
                    _run(job.shed, "a busy notice")
            else:
                _current.ticket = job.ticket
                _run(job.run, f"a queued job of {user or 'an unknown user'}")
        finally:
            _current.ticket = None
            with self._lock:
                self._running[user] -= 1
                if self._running[user] <= 0:
                    del self._running[user]
            self._release(job.ticket)


def _run(job: Callable[[], None], what: str) -> None:
    """Run ``job``; its errors are its own to report (one line with the traceback), the thread goes on."""
    try:
        job()
    except Exception:  # noqa: BLE001 — keep the pool thread
        log.exception("%s failed", what)
