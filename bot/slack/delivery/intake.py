"""The first global middleware: who asks, and is there room for their work?

Every request that reaches the listeners gets a place in the listener work
queue (``bot.slack.delivery.work_queue``) *before* it is journaled
(``bot.slack.delivery.journal``) or acknowledged; the listener's ack part hands
its job to that place (``later``) and returns, so the ack never waits for work
(docs/architecture.md "Acks never wait behind work"). A user who already has
``USER_PENDING`` jobs pending is refused here — at once, with no database
write, never queued:

=====================  =====================================================
request                answer when refused
=====================  =====================================================
``/paper``             200 with an ephemeral ``BUSY`` (the command's own answer)
``view_submission``    200, ``response_action: update`` to a modal saying ``BUSY``
a click, a shortcut    200; ``BUSY`` through its ``response_url`` when it has one
a mention, a DM        200; ``BUSY`` to the user (ephemeral, except in a DM)
any other event        200, dropped (``link_shared``, ``app_home_opened`` …)
=====================  =====================================================

Slack delivers nothing again after a 200 (docs/platform-facts.md "Slack timing
and retries"), so a refused event is dropped for good. The first refusal of a
user in a minute is logged (one WARNING) and answered with ``BUSY`` where an
answer is expected; later ones in that minute are refused silently
(``WorkQueue.told``), so a flood costs one line and one notice per user and
minute. Work the journal takes again after a crash (``FORCED`` in the request's
context) is never refused: it was acknowledged already.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from slack_bolt import BoltResponse
from slack_sdk import WebClient

from bot.core.ports import Message
from bot.core.replies import EPHEMERAL
from bot.slack.delivery.modals import message_modal
from bot.slack.delivery.poster import SlackPoster
from bot.slack.delivery.response_url import post_json
from bot.slack.delivery.work_queue import Ticket, WorkQueue

log = logging.getLogger(__name__)

#: ``context[TICKET]``: the request's place in the work queue (``later`` uses it).
TICKET = "paperbot_work_ticket"
#: ``context[FORCED]`` True: work the journal takes again; never refused.
FORCED = "paperbot_intake_forced"
#: What a refused user is told.
BUSY = "I'm still working on your earlier requests, so I skipped this one. Please try again in a minute."


def asker(body: Mapping[str, Any]) -> tuple[str, str]:
    """``(user id, what)`` of a Slack request: the user whose work it is ("" when
    it names none) and what it is ("/paper", "app_mention", "block_actions" …)."""
    if body.get("type") == "event_callback":
        event = body.get("event") if isinstance(body.get("event"), Mapping) else {}
        user, what = event.get("user"), event.get("type")
    elif body.get("command"):
        user, what = body.get("user_id"), body.get("command")
    else:
        who = body.get("user")
        user, what = (who.get("id") if isinstance(who, Mapping) else who), body.get("type")
    return (user if isinstance(user, str) else ""), (what if isinstance(what, str) and what else "request")


def make_intake(queue: WorkQueue) -> Callable[..., Any]:
    """The Bolt global middleware (``body, context, client, next``) over ``queue``.

    Returns Bolt's ``next()`` result, or a ``BoltResponse`` for a refused request
    (module table). Bolt's ``next()`` only marks the chain to go on, so the place
    a request did not use (a duplicate, an event the listener ignores) is given
    back when its dispatch ends (``release``, called by ``bot.slack.app.PaperbotApp``).
    """

    def intake(body: dict[str, Any], context: dict[str, Any], client: WebClient, next: Callable[[], Any]):
        user, what = asker(body)
        ticket = queue.reserve(user, always=bool(context.get(FORCED)))
        if ticket is None:
            return _refuse(queue, body, client, user, what)
        context[TICKET] = ticket
        return next()

    return intake


def release(context: Mapping[str, Any]) -> None:
    """Give back the request's place in the work queue unless its listener used it."""
    ticket: Ticket | None = context.get(TICKET)
    if ticket is not None:
        ticket.cancel()


def later(context: Mapping[str, Any] | None, job: Callable[[], None]) -> None:
    """Hand ``job`` — the work a listener's ack promised — to the request's place
    in the work queue. Without one (a listener called directly, as
    ``benchmarks/search_path.py`` does) the job runs now, on this thread.

    Args:
        context: Bolt's request context (its ``TICKET``: the place the intake reserved).
        job: the listener's work after its ack, a callable of no arguments.
    """
    ticket: Ticket | None = (context or {}).get(TICKET)
    if ticket is None:
        job()
        return
    ticket.submit(job)


def _refuse(queue: WorkQueue, body: dict[str, Any], client: WebClient, user: str, what: str) -> BoltResponse:
    """The answer to a refused request (module table); logs and notifies once a minute per user."""
    kind = body.get("type")
    if queue.told(user):
        log.warning(
            "busy: %s has %d requests pending (at most %d); refused their %s, and refuse more of theirs "
            "this minute without a line",
            user or "a request without a user",
            queue.pending(user),
            queue.per_user,
            what,
        )
        notice = _notice(body, client, user)
        if notice is not None:
            queue.reserve(user, always=True).submit(notice)  # type: ignore[union-attr]
    if body.get("command"):
        return BoltResponse(status=200, body={"response_type": EPHEMERAL, "text": BUSY})
    if kind == "view_submission":
        return BoltResponse(status=200, body={"response_action": "update", "view": message_modal(Message(text=BUSY))})
    return BoltResponse(status=200, body="")


def _notice(body: dict[str, Any], client: WebClient, user: str) -> Callable[[], None] | None:
    """The job that tells ``user`` they are busy, where they expect an answer: a click or
    shortcut with a ``response_url``, a mention or a DM; None elsewhere."""
    url = body.get("response_url")
    if body.get("type") in ("block_actions", "message_action") and isinstance(url, str) and url:
        said = {"response_type": EPHEMERAL, "replace_original": False, "text": BUSY}
        return lambda: _quietly(lambda: post_json(url, said))
    event = body.get("event") if body.get("type") == "event_callback" else None
    if not isinstance(event, Mapping) or event.get("type") not in ("app_mention", "message") or not user:
        return None
    channel, thread = event.get("channel"), event.get("thread_ts")
    if not isinstance(channel, str) or not channel:
        return None
    if event.get("type") == "message" and event.get("channel_type") != "im":
        return None
    poster = SlackPoster(client)
    if channel.startswith("D"):
        return lambda: _quietly(lambda: poster.post(channel, Message(text=BUSY), thread_ts=thread))
    # in the thread the mention was in, else beside it: Slack shows no ephemeral message
    # in a thread without replies (docs/slack-rules.md [ephemeral-thread])
    return lambda: _quietly(lambda: poster.post_ephemeral(channel, user, Message(text=BUSY), thread_ts=thread))


def _quietly(send: Callable[[], Any]) -> None:
    """Run one "busy" notice; a failure is a line in the log, nothing more."""
    try:
        send()
    except Exception as exc:  # noqa: BLE001 — the notice is a courtesy
        log.info("the busy notice was not delivered (%s)", type(exc).__name__)
