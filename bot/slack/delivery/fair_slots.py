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
``bot.slack.delivery.ack_window.AckWindow``, at most ``ACK_YIELD_S`` per run of
acks): a burst's acks run before its searches start.

``outside()`` gives the calling thread's slot back while it waits on something
slow that is not CPU work (a Web API call such as a channel confirmation) and
takes a slot again afterwards, through the same fair queue.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import Counter, OrderedDict, deque
from typing import Iterator

from bot.slack.delivery.ack_window import AckWindow

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
        self.acks.wait_for_acks()  # the acks in flight first (bounded, ack_window.ACK_YIELD_S)
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
