"""Direct messages to the bot (``message.im``): answered like a mention, in the DM.

A DM is read exactly as ``@paperbot …`` (``bot.slack.listeners.common.answer_message``:
tokens stripped, entities decoded once, ``service.mention``), with the same
idempotency check (``event:<event_id>`` and ``msg:<team>:<channel>:<ts>``),
so a Slack retry or an edit never gets a second answer. Only plain user
messages are answered: the bot's own and other bots' messages (``bot_id``,
subtype ``bot_message``), edits (``message_changed``), deletions and other
subtypes are ignored (``bot.slack.delivery.event_keys.should_answer``), and so is every message
outside a DM (``channel_type`` other than "im").

Unlike a mention, the answer is a plain message in the DM — threaded only
when the DM message itself was in a thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from slack_bolt import App

from bot.core.ports import Message
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.poster import SlackPoster
from bot.slack.listeners.common import message_listener

if TYPE_CHECKING:
    from bot.service.service import Service


class _InThreadOnlyIf:
    """A poster that threads the answer under ``thread_ts`` (None: top level).

    ``answer_message`` replies in the event's thread, or under the message
    itself; in a DM the message should only be threaded when it was in one.
    """

    def __init__(self, poster: SlackPoster, thread_ts: str | None) -> None:
        self._poster = poster
        self._thread_ts = thread_ts

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        """Post in ``channel_id``, ignoring ``thread_ts`` for the one fixed at creation."""
        return self._poster.post(channel_id, message, thread_ts=self._thread_ts)

    def replied_in_thread(self, channel_id: str, thread_ts: str, after_ts: str) -> bool | None:
        """Whether the bot already answered there after ``after_ts``: in the DM's
        thread when it has one, else anywhere in the DM (the answer is top level)."""
        if self._thread_ts is not None:
            return self._poster.replied_in_thread(channel_id, self._thread_ts, after_ts)
        return self._poster.replied_in_channel(channel_id, after_ts)


def register(app: App, service: "Service", *, seen: Callable[..., bool], slots: FairSlots | None = None) -> None:
    """Register the ``message`` listener that answers DMs.

    Args:
        app: the Bolt app.
        service: its ``mention(text, ctx)`` answers.
        seen: the idempotency check shared with mentions (see
            ``bot.slack.listeners.mention.register``).
        slots: bounds concurrent service calls (``bot.slack.app.WORK_SLOTS``).
    """

    answers = message_listener(
        service,
        seen=seen,
        slots=slots,
        wants=lambda event: event.get("channel_type") == "im",
        poster_for=lambda client, event: _InThreadOnlyIf(SlackPoster(client), event.get("thread_ts")),
    )
    app.event("message")(answers)
