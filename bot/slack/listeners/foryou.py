"""The buttons on papers picked for a reader (issue 22): *More like this*, *Not for me*, and
the pages of ``/paper foryou``.

====================  ==============  ===========================================
action id             value           answer
====================  ==============  ===========================================
``rec_more``          ``{"id"[,"o"]}``  ``Service.record_signal(…, "more")``, then in place
``rec_not_for_me``    ``{"id"[,"o"]}``  ``Service.record_signal(…, "not_for_me")``, then in place
``foryou_page*``      ``{"o"}``         ``recommendations.for_you`` → that page, replacing it
====================  ==============  ===========================================

"In place": in the Home tab the tab is published again (its "For you" trained anew); on a
``/paper foryou`` page (the value's ``o``) the page is drawn again from that offset — the
clicked paper has left it (a positive or a negative now) — with "Noted …" under it; on a
message others see (a feed's post) the clicker alone gets the note
(docs/slack-rules.md [replace-original]). The service's work holds a fair work slot
(training a model is CPU work); the Slack calls do not.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from slack_bolt import App, Respond
from slack_sdk import WebClient

from bot.core.replies import ErrorReply, NoticeReply
from bot.render import render
from bot.render.foryou import ACTION_FORYOU_PAGE, ACTION_FORYOU_PREVIOUS, ACTION_MORE, ACTION_NOT_FOR_ME
from bot.service.recommendations import FORYOU_MAX, MORE, NOT_FOR_ME
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY
from bot.slack.listeners.clicks import (
    EXAMPLE,
    BadValue,
    Click,
    answer,
    click_listener,
    on_public_message,
    paper_id,
    read_value,
)
from bot.slack.listeners.common import publish_home

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: The signal each feedback button records.
KINDS = {ACTION_MORE: MORE, ACTION_NOT_FOR_ME: NOT_FOR_ME}


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the feedback buttons and the page buttons of ``/paper foryou``.

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works.
    """
    for action_id in KINDS:
        app.action(action_id)(make_feedback_listener(service, action_id, slots))
    for action_id in (ACTION_FORYOU_PAGE, ACTION_FORYOU_PREVIOUS):
        app.action(action_id)(make_page_listener(service, slots))


def page_offset(value: dict[str, Any]) -> int | None:
    """The ``o`` of a value (a ``/paper foryou`` page), None without one.

    Raises:
        BadValue: ``o`` is not an integer in 0..``FORYOU_MAX``.
    """
    if "o" not in value:
        return None
    o = value["o"]
    if isinstance(o, bool) or not isinstance(o, int) or not 0 <= o <= FORYOU_MAX:
        raise BadValue()
    return o


def _in_home(body: dict[str, Any]) -> bool:
    return (body.get("view") or {}).get("type") == "home"


def make_feedback_listener(service: "Service", action_id: str, slots: FairSlots):
    """The listener of *More like this* or *Not for me* (Bolt arguments ``ack, body, action,
    respond, client, context``): ``ack()``, then record and answer in place as a job.

    Args:
        service: the ``Service`` that answers (``record_signal``, ``recommendations``).
        action_id: ``ACTION_MORE`` or ``ACTION_NOT_FOR_ME``.
        slots: the fair work slots held while the service works.
    """
    kind = KINDS[action_id]

    def feedback(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        swap = False
        try:
            value = read_value(action)
            pid, offset = paper_id(value), page_offset(value)
            paper = service.index.get(pid)
            if paper is None or not click.user_id:
                raise BadValue("That paper is no longer in the index.")
            service.record_signal(click.team_id, click.user_id, pid, kind)
            noted = f"Noted: {'more papers like' if kind == MORE else 'fewer papers like'} “{paper.title[:80]}”."
            if _in_home(body):
                publish_home(service, client, click.team_id, click.user_id, slots=slots)
                return
            if offset is not None and body.get("response_url") and not on_public_message(body):
                with slots(click.user_id):
                    message = render(replace(service.recommendations.for_you(click.context, offset), note=noted))
                swap = True
            else:
                message = render(NoticeReply(text=noted))
        except BadValue as bad:
            message = render(ErrorReply(message=bad.message, example="/paper foryou"))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("%s failed (team %s, user %s)", action_id, click.team_id, click.user_id)
            message = render(NoticeReply(text=SORRY))
        answer(body, respond, client, message, replace_original=swap)

    return click_listener(feedback)


def make_page_listener(service: "Service", slots: FairSlots):
    """The listener of *More picks ›* / *‹ Previous*: that page of ``/paper foryou``, in place.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works.
    """

    def page(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        try:
            offset = page_offset(read_value(action)) or 0
            with slots(click.user_id or ""):
                message = render(service.recommendations.for_you(click.context, offset))
        except BadValue as bad:
            message = render(ErrorReply(message=bad.message, example=EXAMPLE))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("foryou page failed (team %s, user %s)", click.team_id, click.user_id)
            message = render(NoticeReply(text=SORRY))
        answer(body, respond, client, message, replace_original=True)

    return click_listener(page)
