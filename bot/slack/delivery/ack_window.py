"""The ack window: work slots wait, briefly, while requests are being acknowledged.

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
import math
import threading
import time
from typing import Callable, Iterator

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
