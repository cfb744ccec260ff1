"""The values the journal middleware (``bot.slack.delivery.journal``) leaves in a
Bolt request's ``context`` for the listener: how to mark the work done, how to
hand it back for a later attempt when the reply could not be delivered this
time (a transient Slack error), and whether this is a retake of work a crashed
or slow owner left (then a mention reply is posted only when the thread shows
none yet; docs/architecture.md "Idempotency and the journal"). Plain keys and
helpers, so every listener module can use them without importing the journal.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable, Iterator, Mapping

log = logging.getLogger(__name__)

#: ``context[DONE]()`` marks the journal row answered (set only for journaled work).
DONE = "paperbot_journal_done"
#: ``context[RETAKEN]`` is True when this attempt took over an expired claim
#: whose reply may already be out (the earlier owner had started posting it).
RETAKEN = "paperbot_journal_retaken"
#: ``context[RETRY](reason)`` leaves the journal row pending for a later attempt.
RETRY = "paperbot_journal_retry"
#: ``context[STILL_MINE]()`` renews this process's lease; False once another process took it over.
STILL_MINE = "paperbot_journal_still_mine"


class NotMine(Exception):
    """This process lost its claim (it stalled past its lease and another process
    took the work over): it must not post, nor mark the row done."""


class RetryLater(Exception):
    """The reply could not be delivered for a reason that may pass (HTTP 5xx,
    ``internal_error``, a dropped connection): the work should be tried again.

    Args:
        reason: a short code for the log ("chat.postMessage internal_error").
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def still_mine(context: Mapping[str, Any] | None) -> bool:
    """Renew the claim right before posting (fencing): True while this process
    still owns the work, or for work the journal does not keep; False when its
    lease expired and another process took over (docs/architecture.md
    "Idempotency and the journal")."""
    check: Callable[[], bool] | None = (context or {}).get(STILL_MINE)
    return True if check is None else check()


def journaled(context: Mapping[str, Any] | None) -> bool:
    """True when the journal middleware claimed this request for this process."""
    return bool(context) and DONE in context


def finish(context: Mapping[str, Any] | None) -> None:
    """Mark the request's journal row done (no-op for work the journal does not keep)."""
    done: Callable[[], None] | None = (context or {}).get(DONE)
    if done is not None:
        done()


@contextlib.contextmanager
def settled(context: Mapping[str, Any] | None) -> Iterator[None]:
    """Mark the journal row done when the block ends — unless it raised
    ``RetryLater``: then the row stays pending and the journal tries again
    after a pause (``bot.slack.delivery.journal.RETRY_AFTER_S``). Work the journal does
    not keep is logged as not delivered. Any other exception marks the row
    done and propagates (listeners catch their own errors first).
    """
    try:
        yield
    except NotMine:
        log.warning("another process took this work over while I was slow; not answering it")
        return
    except RetryLater as exc:
        again: Callable[[str], None] | None = (context or {}).get(RETRY)
        if again is not None:
            again(exc.reason)
            return
        log.warning("reply not delivered (%s); not journaled, so not tried again", exc.reason)
    except BaseException:
        finish(context)
        raise
    finish(context)
