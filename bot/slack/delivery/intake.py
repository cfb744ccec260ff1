"""The first global middleware: who asks, and is there room for their work?

Every request that reaches the listeners gets a place in the listener work
queue (``bot.slack.delivery.work_queue``) *before* it is journaled
(``bot.slack.delivery.journal``) or acknowledged; the listener's ack part hands
its job to that place (``later``) and returns, so the ack never waits for work
(docs/architecture.md "Acks never wait behind work"). A user who already has
``USER_PENDING`` jobs pending, or anyone when all users together have
``PENDING_MAX`` and nobody heavier has a job to give up (``WorkQueue.place``), is
refused here — at once, with no database write, never queued:

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
user in a minute is logged (one WARNING naming the cap that refused), and the
first of their refusals in a minute that expects an answer (a mention, a click —
not a ``link_shared``) is answered with ``BUSY``; the others in that minute are
refused silently (``WorkQueue.told``), so a flood costs one line and one notice
per user and minute. Work the journal takes again after a crash
(``FORCED`` in the request's context) is never refused: it was acknowledged
already. A Slack retry (``X-Slack-Retry-Num`` ≥ 1) is never told "busy", and a
copy of an event whose place is held here (same ``event_id`` or same message)
is let in past the caps — the journal drops it as a duplicate.

A job is not run late (``stale_after``): one that waited more than
``TRIGGER_WAIT_S`` for a global shortcut (its only work is ``views.open`` with a
``trigger_id``, which Slack lets live 3 s, docs/platform-facts.md "Link unfurls
and shortcuts"), or more than ``ANSWER_WAIT_S`` for a command, a click, a message
shortcut, a view submission, a mention, a DM, an unfurl or the App Home, is
dropped: where an answer is due the user is told ``BUSY`` — every time: the ack
promised an answer, and the user's own cap bounds how many — (a command through
its ``response_url``, a view submission in its modal) and its journal row is
ended. Reactions, welcomes and uninstalls are never dropped: they are short
records nobody would send again.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from slack_bolt import BoltRequest, BoltResponse
from slack_sdk import WebClient

from bot.core.ports import Message
from bot.core.replies import EPHEMERAL
from bot.slack.delivery.event_keys import idempotency_keys
from bot.slack.delivery.journal_context import finish
from bot.slack.delivery.modals import message_modal
from bot.slack.delivery.poster import SlackPoster
from bot.slack.delivery.response_url import post_json
from bot.slack.delivery.work_queue import USER_CAP, Ticket, WorkQueue

log = logging.getLogger(__name__)

#: ``context[TICKET]``: the request's place in the work queue (``later`` uses it).
TICKET = "paperbot_work_ticket"
#: ``context[FORCED]`` True: work the journal takes again; never refused.
FORCED = "paperbot_intake_forced"
#: What a refused user is told.
BUSY = "I'm still working on your earlier requests, so I skipped this one. Please try again in a minute."
#: Seconds a global shortcut's job (``views.open`` with its ``trigger_id``) may wait:
#: a ``trigger_id`` expires 3 s after Slack sends it
#: (docs/platform-facts.md "Link unfurls and shortcuts"), and
#: the call itself takes a moment.
TRIGGER_WAIT_S = 2.5
#: Seconds any other answered job may wait before it is answered ``BUSY`` instead.
ANSWER_WAIT_S = 15.0
#: Event types whose job is dropped after ``ANSWER_WAIT_S`` (the rest are never dropped).
ANSWERED_EVENTS = frozenset({"app_mention", "message", "link_shared", "app_home_opened"})
#: Interaction payload types whose job is dropped after ``ANSWER_WAIT_S``.
ANSWERED_PAYLOADS = frozenset({"block_actions", "message_action", "view_submission"})


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
    """The Bolt global middleware (``body, context, client, request, next``) over ``queue``.

    Returns Bolt's ``next()`` result, or a ``BoltResponse`` for a refused request
    (module table). Bolt's ``next()`` only marks the chain to go on, so the place
    a request did not use (a duplicate, an event the listener ignores) is given
    back when its dispatch ends (``release``, called by ``bot.slack.app.PaperbotApp``).
    """

    def intake(
        body: dict[str, Any], context: dict[str, Any], client: WebClient, request: BoltRequest, next: Callable[[], Any]
    ):
        user, what = asker(body)
        forced = bool(context.get(FORCED))
        granted = queue.place(user, always=forced, keys=_keys(body), stale_after=None if forced else stale_after(body))
        if not isinstance(granted, Ticket):
            return _refuse(queue, body, client, (user, what), granted, retried(request))
        granted.notice = _notice(body, client, user, acked=True)
        context[TICKET] = granted
        return next()

    return intake


def stale_after(body: Mapping[str, Any]) -> float | None:
    """Seconds a request's job may wait before it is dropped (module doc), or None: never."""
    kind = body.get("type")
    if kind == "shortcut":
        return TRIGGER_WAIT_S
    if body.get("command") or kind in ANSWERED_PAYLOADS:
        return ANSWER_WAIT_S
    event = body.get("event") if kind == "event_callback" else None
    return ANSWER_WAIT_S if isinstance(event, Mapping) and event.get("type") in ANSWERED_EVENTS else None


def retried(request: BoltRequest | None) -> int:
    """Slack's ``X-Slack-Retry-Num`` of the request (0 for a first delivery or none;
    Socket Mode's ``retry_attempt`` arrives as the same header, bot.slack.transport.socket_mode)."""
    values = (request.headers.get("x-slack-retry-num") if request is not None else None) or ["0"]
    first = str(values[0]).strip()
    return int(first) if first.isdigit() else 0


def _keys(body: Mapping[str, Any]) -> list[str]:
    """An event's idempotency keys (``event:<id>``, ``msg:<team>:<channel>:<ts>``); none for the rest."""
    event = body.get("event") if body.get("type") == "event_callback" else None
    return idempotency_keys(dict(body), dict(event)) if isinstance(event, Mapping) else []


def release(context: Mapping[str, Any]) -> None:
    """Give back the request's place in the work queue unless its listener used it."""
    ticket: Ticket | None = context.get(TICKET)
    if ticket is not None:
        ticket.cancel()


def later(context: Mapping[str, Any] | None, job: Callable[[], None]) -> None:
    """Hand ``job`` — the work a listener's ack promised — to the request's place
    in the work queue. Without one (a listener called directly, as
    ``benchmarks/search_path.py`` does) the job runs now, on this thread. When the
    job waits past its bound it is dropped: the user is told ``BUSY`` and its
    journal row is ended.

    Args:
        context: Bolt's request context (its ``TICKET``: the place the intake reserved).
        job: the listener's work after its ack, a callable of no arguments.
    """
    ticket: Ticket | None = (context or {}).get(TICKET)
    if ticket is None:
        job()
        return

    def dropped() -> None:
        finish(context)
        if ticket.notice is not None:
            ticket.notice()

    ticket.submit(job, shed=dropped)


def _refuse(
    queue: WorkQueue, body: dict[str, Any], client: WebClient, who: tuple[str, str], cap: str, retry: int
) -> BoltResponse:
    """The answer to a refused request (module table); logs and notifies once a minute per
    user, naming the cap (``USER_CAP`` or the shared one); a Slack retry is never told."""
    user, what = who
    kind, name = body.get("type"), user or "a request without a user"
    if retry:
        if queue.told(f"retry {user}"):
            log.info("a Slack retry (%d) of a %s from %s found no room; acknowledged, not told busy", retry, what, user)
    elif queue.told(user):
        if cap == USER_CAP:
            why = f"{name} has {queue.pending(user)} requests pending (at most {queue.per_user} each)"
        else:
            why = (
                f"all users together have {queue.pending()} requests pending (at most {queue.total}), and "
                f"{name} has {queue.pending(user)}, with nobody much heavier to drop a job of"
            )
        log.warning("busy: %s; refused their %s, and refuse more of theirs this minute without a line", why, what)
    if not retry:  # told once a minute where an answer is expected — a link_shared before it takes no turn
        notice = _notice(body, client, user)
        if notice is not None and queue.told(f"notice {user}"):
            queue.aside(notice)
    if body.get("command"):
        return BoltResponse(status=200, body={"response_type": EPHEMERAL, "text": BUSY})
    if kind == "view_submission":
        return BoltResponse(status=200, body={"response_action": "update", "view": message_modal(Message(text=BUSY))})
    return BoltResponse(status=200, body="")


def _notice(body: dict[str, Any], client: WebClient, user: str, acked: bool = False) -> Callable[[], None] | None:
    """The job that tells ``user`` they are busy, where they expect an answer: a click or
    shortcut with a ``response_url``, a mention or a DM; once ``acked`` (the job was
    dropped after the ack) also a command (its ``response_url``) and a view submission
    (its modal, ``views.update``); None elsewhere.

    Args:
        body: the request's payload.
        client: the Web API client of the request.
        user: who asked.
        acked: the request was acknowledged already (its ack could not say "busy").
    """
    url = body.get("response_url")
    said = {"response_type": EPHEMERAL, "replace_original": False, "text": BUSY}
    if (body.get("type") in ("block_actions", "message_action") or (acked and body.get("command"))) and url:
        return lambda: _quietly(lambda: post_json(str(url), said))
    view = body.get("view") if acked and body.get("type") == "view_submission" else None
    if isinstance(view, Mapping) and isinstance(view.get("id"), str):
        modal = message_modal(Message(text=BUSY))
        return lambda: _quietly(lambda: client.views_update(view_id=view["id"], view=modal))
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
