"""A CPU-time budget for one request's search work, checked as the work runs
(docs/architecture.md "Work slots and the CPU budget").

The service opens a budget around each index call (``with limit(0.5): ...``);
the search engine's scoring loop asks ``exhausted()`` after each block of
postings and stops there, returning what it has scored so far (the page then
says "results may be incomplete"). CPU time of the calling thread
(``time.thread_time``), so waiting for the GIL or for I/O does not count: the
budget bounds the work itself, whatever the input. Leaf module: the search
package reads it, the service sets it; the budget travels in a ``ContextVar``,
so nothing between them changes its signature.
"""

from __future__ import annotations

import contextlib
import time
from contextvars import ContextVar
from typing import Iterator


class Budget:
    """``seconds`` of this thread's CPU time, counted from creation."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.thread_time()

    def spent(self) -> float:
        """CPU seconds used so far by this thread since the budget began."""
        return time.thread_time() - self.started

    def exhausted(self) -> bool:
        """True once more than ``seconds`` were used."""
        return self.spent() > self.seconds


_current: ContextVar[Budget | None] = ContextVar("paperbot_budget", default=None)


@contextlib.contextmanager
def limit(seconds: float) -> Iterator[Budget]:
    """Run the block under a budget of ``seconds`` CPU seconds (nested: the inner one counts)."""
    token = _current.set(Budget(seconds))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def exhausted() -> bool:
    """True when the current budget (if any) is used up; False without one."""
    budget = _current.get()
    return budget is not None and budget.exhausted()
