"""The two values the journal middleware (``bot.slack.journal``) leaves in a
Bolt request's ``context`` for the listener: how to mark the work done, and
whether this is a retake of work a crashed or slow owner left (then a mention
reply is posted only when the thread shows none yet; docs/interfaces.md
"Mentions and direct messages"). Plain keys and two helpers, so every listener module can use
them without importing the journal.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

#: ``context[DONE]()`` marks the journal row answered (set only for journaled work).
DONE = "paperbot_journal_done"
#: ``context[RETAKEN]`` is True when this attempt took over an expired claim.
RETAKEN = "paperbot_journal_retaken"


def journaled(context: Mapping[str, Any] | None) -> bool:
    """True when the journal middleware claimed this request for this process."""
    return bool(context) and DONE in context


def finish(context: Mapping[str, Any] | None) -> None:
    """Mark the request's journal row done (no-op for work the journal does not keep)."""
    done: Callable[[], None] | None = (context or {}).get(DONE)
    if done is not None:
        done()
