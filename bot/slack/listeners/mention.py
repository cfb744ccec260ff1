"""The ``app_mention`` listener: answer ``@paperbot …`` once, in the message's thread.

Events are acked by Bolt before the listener runs (an auto-ack,
docs/platform-facts.md "Bolt"), so the work here never races the 3 s limit. A
Slack retry and an edit are recognised by the event's two keys, claimed
together (``bot.slack.delivery.event_keys``), so neither ever produces a second
reply, and concurrent duplicates give exactly one (docs/interfaces.md
"Mentions and direct messages"). The answer itself is
``bot.slack.listeners.common.answer_message``, shared with DMs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from slack_bolt import App

from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.listeners.common import message_listener

if TYPE_CHECKING:
    from bot.service.service import Service


def register(app: App, service: "Service", *, seen: Callable[..., bool], slots: FairSlots | None = None) -> None:
    """Register the ``app_mention`` listener on ``app``.

    Args:
        app: the Bolt app.
        service: its ``mention(text: str, ctx: Context) -> Reply`` answers.
        seen: ``seen(*keys) -> bool``, True when any key was handled before;
            otherwise records all of them — atomically, as one claim (any
            number of duplicates may race). Asked only for work the journal
            does not keep (``bot.slack.delivery.journal_context.reply_guard``).
        slots: bounds concurrent service calls (``bot.slack.app.WORK_SLOTS``).
    """
    app.event("app_mention")(message_listener(service, seen=seen, slots=slots or FairSlots(1_000)))
