"""The ``/paper`` slash command listener: ack, decode, ask the service, respond.

One listener for every sub-command (the service parses the text, docs/interfaces.md
"/paper slash command"). The flow reads like a sentence: ``ack()`` with no body at
once (Slack's 3 s limit, docs/platform-facts.md), on the request's own thread; the
rest is a job in the work queue (``bot.slack.delivery.intake.later``): decode the
text once, call ``service.command``, render, ``respond()`` through the command's
``response_url`` (usable 5 times in 30 min). Every failure after the ack
becomes a short polite ephemeral message and a log line — never a
traceback in Slack, and never an exception escaping the listener (Bolt then
turns an already-acked request into a 404, docs/platform-facts.md "Bolt").
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.models import Context
from bot.core.ports import Message
from bot.render import render
from bot.slack.delivery.fair_slots import FairSlots, quick
from bot.slack.delivery.fallback import SORRY
from bot.slack.delivery.intake import later
from bot.slack.delivery.journal_context import NotMine, RetryLater, fence, settled
from bot.slack.delivery.response_url import respond_or_plain
from bot.slack.listeners.common import user_time_zone
from bot.slack.transport.incoming_text import command_text, first_word

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

COMMAND = "/paper"


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the ``/paper`` listener on ``app``.

    Args:
        app: the Bolt app.
        service: its ``command(text: str, ctx: Context) -> Reply`` answers.
        slots: bounds how many listeners run the service at once (see
            ``bot.slack.app.WORK_SLOTS``); the ack never waits for it.
    """
    app.command(COMMAND)(make_listener(service, slots))


def make_listener(service: "Service", slots: FairSlots) -> Callable[..., None]:
    """The ``/paper`` listener bound to ``service`` (callable directly in tests).

    Args:
        service: answers ``command(text, ctx)``.
        slots: held while the service and the renderer run.

    Returns:
        Callable: ``listener(ack, command, respond, client, context)`` with
        Bolt's argument names; it acks and queues the answer (without a work
        ticket in ``context`` the answer runs before it returns).
    """

    def paper_command(
        ack: Ack, command: dict[str, Any], respond: Respond, client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        ack()
        later(context, lambda: answer(command, respond, client, context))

    def answer(command: dict[str, Any], respond: Respond, client: WebClient, context: dict[str, Any] | None) -> None:
        with settled(context):  # the journal row (bot.slack.delivery.journal): done, or tried again later
            try:
                text = command_text(command.get("text", ""))
                ctx = command_context(command, client, text)
                with slots(ctx.user_id, quick(text)):
                    message = render(service.command(text, ctx))
            except Exception:  # noqa: BLE001 — after ack nothing may escape (see module doc)
                log.exception(
                    "/paper failed (team %s, channel %s, user %s)",
                    command.get("team_id"),
                    command.get("channel_id"),
                    command.get("user_id"),
                )
                message = Message(text=SORRY)
            send(respond, message, ready=lambda: fence(context))

    return paper_command


def command_context(command: dict[str, Any], client: WebClient, text: str) -> Context:
    """Who asked and where; the user's time zone only for ``subscribe``.

    Args:
        command: the slash-command payload (``team_id``, ``channel_id``,
            ``user_id``, ``channel_name``).
        client: Web API client for ``users.info`` (scope ``users:read``).
        text: the decoded command text.

    Returns:
        Context: ``user_tz`` is the user's IANA zone (``users.info`` →
        ``user.tz``) when the first word is "subscribe" ("" when the lookup
        fails: the service falls back to ``PAPERBOT_DEFAULT_TZ`` and says so),
        else None.
    """
    user_id = command.get("user_id", "")
    tz = user_time_zone(client, user_id) if first_word(text) == "subscribe" else None
    return Context(
        team_id=command.get("team_id", ""),
        channel_id=command.get("channel_id", ""),
        user_id=user_id,
        user_tz=tz,
        channel_name=command.get("channel_name"),
    )


def send(respond: Respond, message: Message, ready: Callable[[], None] | None = None) -> None:
    """Post ``message`` through the command's ``response_url``.

    ``response_type`` follows ``message.visibility`` ("ephemeral" or
    "in_channel"); unfurls are off. ``message.thread`` is not sent: a
    ``response_url`` reply has no ``ts`` to thread under. ``respond()`` does
    not raise on HTTP errors, so its status is checked: a refused body is sent
    again as plain text (``bot.slack.delivery.response_url.respond_or_plain``).

    Args:
        respond: Bolt's ``respond`` for the command.
        message: the rendered reply.
        ready: called right before the request is written (the journal's "going out" mark).

    Raises:
        RetryLater: the ``response_url`` answered HTTP 5xx or could not be
            reached; the journal sends the reply again later (the URL stays
            valid 30 minutes). A connection that dropped after the body was
            sent is logged and not retried: Slack may have shown it.
    """
    try:
        delivered = respond_or_plain(respond, message, ready=ready, response_type=message.visibility)
    except NotMine:
        raise
    except (ConnectionError, TimeoutError) as exc:
        # the body went out and the line dropped: Slack may have shown it — never twice
        log.warning(
            "respond() lost the connection after sending (%s); the reply may or may not "
            "have arrived, not sending it again",
            type(exc).__name__,
        )
        return
    except Exception as exc:  # noqa: BLE001 — network errors: nothing else to tell the user through
        log.warning("respond() to the response_url failed: %s", type(exc).__name__)
        delivered = False
    if not delivered:
        raise RetryLater("response_url")
