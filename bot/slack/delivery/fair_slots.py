"""Fair work slots: how many listeners run the service at once, shared fairly
between users (docs/architecture.md "Work slots and the CPU budget").

Search and rendering are CPU work; a few slots (``bot.slack.app.WORK_SLOTS``)
keep the acks fast. A plain semaphore serves waiters in arrival order, so one
user's flood of slow queries delays everyone behind it. ``FairSlots`` grants
a free slot to the waiting user who holds the fewest slots, ties going to the
user served least recently (a user never served goes first). One user holds
at most ``count - 1`` slots (``per_user``; all of them when there is only one),
so with two or more slots one is always left for somebody else: another user's
request against one user's flood starts at once instead of waiting for a
running query to finish. Against a flood from many users it waits at most for
the slots already running — each bounded by the search's CPU budget
(``bot.core.budget``) — and its turn among the users queued before it. Search is
pure-Python work under one GIL, so one user's throughput barely changes with
the cap (benchmarks/results/fairness_100k.txt).

A request may say it is *quick* (``quick(text)``: a few plain words, no
prefix ``*`` and no ``OR`` — the shapes whose cost does not grow with the
index, docs/search.md "Query syntax"): among users holding as many slots, a
quick request goes before a slow one, so against a flood from many users a
short search waits for the slots already running, not for every slow query
queued before it. A slow request waiting longer than ``STARVE_S`` counts as
quick, so a stream of quick ones cannot hold it back for ever.

A slot is not granted while requests are being acknowledged (``acks``, an
``AckWindow``, at most ``ACK_YIELD_S`` per run of acks): a burst's acks run before
its searches start — the ack window, below.

``outside()`` gives the calling thread's slot back while it waits on something
slow that is not CPU work (a Web API call such as a channel confirmation) and
takes a slot again afterwards, through the same fair queue.

**The ack window.** work slots wait, briefly, while requests are being acknowledged.

An ack (Bolt's dispatch on the request's thread: the intake, the journal's claim, the
listener's ``ack()``) needs about 1 ms of CPU, but it takes the GIL a dozen times — every
socket read, every SQLite statement, every lock gives it back — and while a search runs on
a work slot each of those takes can wait up to the interpreter's switch interval (5 ms,
https://docs.python.org/3/library/sys.html#sys.setswitchinterval). Fifty commands arriving
together start fifty searches right behind their acks, so the later acks wait behind the
earlier commands' searches. Here a work slot is not granted while an ack is in flight
(``FairSlots.acquire`` calls ``wait_for_acks`` first), so the acks of a burst run first and
its searches right after; already running searches are not paused.

The wait is bounded per run of acks, not per grant: a slot waits at most ``ACK_YIELD_S``
from the moment the acks now in flight began to overlap (the first of them), and a new run
opens a new window only ``ACK_YIELD_PERIOD_S`` after the last window opened, so work is held
back at most 0.3 s in any second — a flood, where some ack is always in flight or runs follow
each other closely, slows work by a bounded share and never starves it.

Measured with ``benchmarks/http_bench.py`` (50 concurrent commands x 3 rounds, load average
5-6, four runs each way, interleaved): ack p95 219 / 678 / 290 / 227 ms with the window,
580 / 635 / 481 / 369 ms without (docs/architecture.md "Acks never wait behind work").
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading
import time
from collections import Counter, OrderedDict, deque
from typing import Callable, Iterator

#: A slow request waiting longer than this (seconds) is served as a quick one.
STARVE_S = 10.0
#: ``quick``: at most this many words and characters.
QUICK_WORDS = 4
QUICK_CHARS = 60


def quick(text: str) -> bool:
    """Whether a command or mention text looks cheap to answer: at most
    ``QUICK_WORDS`` words and ``QUICK_CHARS`` characters, with no prefix
    wildcard (``*``) and no ``OR`` ("search attention", "show p7k2").

    Args:
        text: the request's text as typed.
    """
    words = text.split()
    return len(text) <= QUICK_CHARS and len(words) <= QUICK_WORDS and "*" not in text and "OR" not in words


class FairSlots:
    """``count`` slots, granted fairly per user.

    Use ``with slots(user_id): ...`` around the CPU work of one request.

    Args:
        count: slots (≥ 1).
        per_user: most slots one user may hold at once (default ``count - 1``,
            at least 1).
        acks: the acks a slot waits for before it is granted (default a window of
            its own, ``AckWindow()``: ``bot.slack.app.build_app`` counts the app's
            dispatches in it).

    Raises:
        ValueError: ``count`` or ``per_user`` below 1.

    Attributes:
        acks: the ``AckWindow`` (module docstring).
    """

    def __init__(self, count: int, per_user: int | None = None, acks: AckWindow | None = None) -> None:
        if count < 1:
            raise ValueError("count must be at least 1")
        self.per_user = max(1, count - 1) if per_user is None else per_user
        if self.per_user < 1:
            raise ValueError("per_user must be at least 1")
        self.acks = acks or AckWindow()
        self._free = count
        self._lock = threading.Lock()
        # user -> waiters: (woken when granted, quick, time.monotonic() when it began to wait)
        self._waiting: OrderedDict[str, deque[tuple[threading.Event, bool, float]]] = OrderedDict()
        self._held: Counter[str] = Counter()
        self._served: dict[str, int] = {}  # user -> when last granted (a counter)
        self._clock = itertools.count(1)
        self._local = threading.local()

    def _grant(self, user: str) -> None:
        """Give ``user`` a slot (lock held)."""
        self._free -= 1
        self._held[user] += 1
        self._served[user] = next(self._clock)
        if len(self._served) > 10_000:  # forget long-gone users
            for old in list(self._served)[:5_000]:
                del self._served[old]

    def _hand_over(self) -> None:
        """Give each free slot to the next waiter below ``per_user`` and wake that one only (lock held)."""
        starved = time.monotonic() - STARVE_S

        def rank(u: str) -> tuple[int, bool, int]:
            _, fast, since = self._waiting[u][0]
            return self._held[u], not (fast or since < starved), self._served.get(u, 0)

        while self._free > 0:
            allowed = [u for u in self._waiting if self._held[u] < self.per_user]
            if not allowed:
                return
            user = min(allowed, key=rank)
            queue = self._waiting[user]
            woken = queue.popleft()[0]
            if not queue:
                del self._waiting[user]
            self._grant(user)
            woken.set()

    def acquire(self, user: str, fast: bool = False) -> None:
        """Wait for a slot for ``user`` ("" for an unknown user: one shared
        queue); ``fast``: the request is quick (see ``quick``).

        Args:
            user: the Slack user id the work is for ("" when unknown).
            fast: the request is quick (``quick``).
        """
        self.acks.wait_for_acks()  # the acks in flight first (bounded, ACK_YIELD_S)
        woken = threading.Event()
        with self._lock:
            self._waiting.setdefault(user, deque()).append((woken, fast, time.monotonic()))
            self._hand_over()  # grants it now when a slot is free for us
        woken.wait()  # set by whoever granted us the slot
        self._local.user = user

    def release(self, user: str) -> None:
        """Give back one of ``user``'s slots."""
        with self._lock:
            self._held[user] -= 1
            if self._held[user] <= 0:
                del self._held[user]
            self._free += 1
            self._hand_over()
        self._local.user = None

    @contextlib.contextmanager
    def __call__(self, user: str, fast: bool = False) -> Iterator[None]:
        """Hold a slot for ``user`` during the block (``fast``: see ``acquire``)."""
        self.acquire(user, fast)
        try:
            yield
        finally:
            self.release(user)

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """Give this thread's slot back during the block (a no-op when it holds none)."""
        user = getattr(self._local, "user", None)
        if user is None:
            yield
            return
        self.release(user)
        try:
            yield
        finally:
            self.acquire(user, True)  # its turn was taken once; what is left is short

    def waiting(self) -> int:
        """Requests waiting for a slot now (for logs and tests)."""
        with self._lock:
            return sum(len(q) for q in self._waiting.values())


#: A new window of ``ACK_YIELD_S`` opens at most once this often (seconds).
ACK_YIELD_PERIOD_S = 1.0
#: The most a work slot waits for acks in flight, seconds from the first ack of the run.
#: A burst of 50 commands is acknowledged in ~0.1-0.3 s on 2 cores; the answers Slack
#: waits for (``response_url``, 30 minutes; a ``trigger_id``, 3 s) are not at risk from this.
ACK_YIELD_S = 0.3


class AckWindow:
    """Counts the requests being acknowledged; work waits for them (module docstring).

    Args:
        yield_s: the most ``wait_for_acks`` waits, from the start of the run of acks
            in flight (default ``ACK_YIELD_S``); 0 turns the window off.
        period_s: a run of acks opens a new window only this long after the last one
            opened (default ``ACK_YIELD_PERIOD_S``).
        clock: seconds, monotonic (default ``time.monotonic``).
    """

    def __init__(
        self,
        yield_s: float = ACK_YIELD_S,
        period_s: float = ACK_YIELD_PERIOD_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.yield_s, self.period_s, self._clock = yield_s, period_s, clock
        self._cond = threading.Condition()
        self._in_flight = 0
        self._since = -math.inf  # time.monotonic() when the current window opened
        self._mine = threading.local()  # .acking: this thread is inside ``acking``

    @contextlib.contextmanager
    def acking(self) -> Iterator[None]:
        """Count the block as an ack in flight (``bot.slack.app.PaperbotApp.dispatch``)."""
        with self._cond:
            now = self._clock()
            if self._in_flight == 0 and now - self._since >= self.period_s:
                self._since = now  # a new window; within the period the last one's end stands
            self._in_flight += 1
        outer, self._mine.acking = getattr(self._mine, "acking", False), True
        try:
            yield
        finally:
            self._mine.acking = outer
            with self._cond:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._cond.notify_all()

    def wait_for_acks(self) -> float:
        """Wait until no ack is in flight, or ``yield_s`` after the window opened;
        returns the seconds waited (0.0 at once when none is in flight, or when the
        calling thread is itself acknowledging: work run inside an ack waits for no one)."""
        started = time.monotonic()
        if getattr(self._mine, "acking", False):
            return 0.0
        with self._cond:
            while self._in_flight > 0:
                left = self._since + self.yield_s - self._clock()
                if left <= 0:
                    break
                self._cond.wait(left)
        return time.monotonic() - started

    def in_flight(self) -> int:
        """Requests being acknowledged now (for tests and logs)."""
        with self._cond:
            return self._in_flight
