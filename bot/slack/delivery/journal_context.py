"""The values the journal middleware (``bot.slack.delivery.journal``) leaves in a
Bolt request's ``context`` for the listener: how to mark the work done, how to
hand it back for a later attempt when the reply could not be delivered this
time (a transient Slack error), and whether this is a retake of work a crashed
or slow owner left (then a mention reply is posted only when the thread shows
none yet; docs/architecture.md "Idempotency and the journal"). Plain keys and
helpers, so every listener module can use them without importing the journal:
``settled`` around a listener, ``fence`` right before a reply is written, and
``reply_guard`` — the duplicate check and the poster a mention is answered with.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable, Iterator, Mapping

from bot.slack.delivery.event_keys import idempotency_keys

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


def fence(context: Mapping[str, Any] | None) -> None:
    """The fencing check right before a reply is written: renew the journal
    claim and mark the reply as going out (``still_mine``).

    Raises:
        NotMine: this process stalled past its lease and another took the work over.
    """
    if not still_mine(context):
        raise NotMine()


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


# ---------------------------------------------------------------- a mention's reply
def reply_guard(
    context: Mapping[str, Any] | None,
    seen: Callable[..., bool],
    poster: Any,
    body: dict[str, Any],
    event: dict[str, Any],
) -> tuple[Callable[..., bool], Any]:
    """The one duplicate check and the poster a mention or DM is answered with
    (``bot.slack.listeners.common.answer_message``).

    Work the journal middleware claimed needs no second claim of its keys: its
    check is False, except for a retake whose reply may be out (``RETAKEN``),
    where it reads the thread (``poster.replied_in_thread``) and says True when
    a reply of ours is there or the thread cannot be read (logged: a possible
    loss rather than a possible double). Its poster renews the claim right
    before it posts (``fence``) and holds back an ephemeral reply of such a
    retake, which cannot be looked up (logged). Work the journal does not keep
    (no journal, or the transport gave no context) keeps ``seen`` and ``poster``.

    Args:
        context: the request's Bolt ``context``.
        seen: ``seen(*keys) -> bool``, the claim of the event's keys without a journal.
        poster: posts the reply (``SlackPoster`` or a wrapper with its methods).
        body: the Events API envelope (``event_id``, ``team_id``).
        event: ``body["event"]`` (``channel``, ``ts``, ``thread_ts``).

    Returns:
        tuple: ``(check, poster)``; ``check(*keys)`` is True for a duplicate.
    """
    if not journaled(context):
        return seen, poster
    retaken = bool((context or {}).get(RETAKEN))
    label = " ".join(idempotency_keys(body, event))
    return (_ThreadCheck(poster, event) if retaken else _claimed), _Fenced(poster, context, retaken, label)


def _claimed(*keys: str) -> bool:
    """The check for work the journal claimed before the ack: not a duplicate."""
    return False


class _ThreadCheck:
    """A retake's duplicate check: does the thread already hold a reply of ours?"""

    def __init__(self, poster: Any, event: dict[str, Any]) -> None:
        self._poster, self._event = poster, event

    def __call__(self, *keys: str) -> bool:
        channel, ts = self._event["channel"], self._event["ts"]
        replied = self._poster.replied_in_thread(channel, self._event.get("thread_ts") or ts, after_ts=ts)
        if replied is False:
            return False
        log.warning(
            "%s: %s; not answering again",
            " ".join(keys),
            "already answered" if replied else "cannot read the thread to check",
        )
        return True


class _Fenced:
    """A poster for journaled work: ``fence`` before each post; an ephemeral
    reply of a retake whose reply may be out is held back (logged)."""

    def __init__(self, poster: Any, context: Mapping[str, Any] | None, retaken: bool, label: str) -> None:
        self._poster, self._context, self._retaken, self._label = poster, context, retaken, label

    def post(self, channel_id: str, message: Any, thread_ts: str | None = None) -> str:
        """``fence``, then the wrapped poster's ``post``."""
        fence(self._context)
        return self._poster.post(channel_id, message, thread_ts=thread_ts)

    def post_ephemeral(self, channel_id: str, user_id: str, message: Any, thread_ts: str | None = None) -> None:
        """Nothing for a retake whose reply may be out; else ``fence``, then the wrapped ``post_ephemeral``."""
        if self._retaken:
            log.warning(
                "%s: an ephemeral reply may have gone out already and cannot be looked up; not answering again",
                self._label,
            )
            return
        fence(self._context)
        self._poster.post_ephemeral(channel_id, user_id, message, thread_ts=thread_ts)
