"""Button clicks (``block_actions``): ack, read the button's value, ask the service, answer.

Every button rendered by ``bot.render`` carries what it needs in its
``value`` (compact JSON, ≤ 2,000 chars; a long query as the key of its row in the
shared store, ``bot.service.query_keys``), so any process can answer it (issue 5). Each listener reads like a
sentence: ``ack()`` at once (3 s limit, docs/platform-facts.md), parse the
value, call the service, render, answer through the click's
``response_url`` (5 uses in 30 min):

====================  ===================  ======================================
action id             value                answer
====================  ===================  ======================================
``paper_share``       ``{"id"[,"q","o"]}`` ``bot.slack.listeners.share`` (once per message and paper)
``paper_details``     ``{"id"}``           ``service.paper`` → a modal, else ephemeral
``paper_similar``     ``{"id"}``           ``service.similar`` → a modal, else ephemeral
``results_page*``     ``{"q"|"k","o",…}``  ``service.search`` → replaces the results
``paper_another``     ``{"id"}``           ``service.random_paper`` → a modal, else ephemeral
====================  ===================  ======================================

A click inside a view (the Home tab, a modal) has no ``response_url``: its
answer is shown in a modal (``bot.slack.listeners.clicks.answer``). A value that
is not what we render (bad JSON, not an object, wrong types, negative or
non-integer offset, over-long query or id) gets a polite ephemeral
explanation; any other failure a polite "sorry" — never an HTTP 500, never
a traceback in Slack (an exception after ``ack()`` would turn the request
into a 404, docs/platform-facts.md "Bolt").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import App, Respond
from slack_sdk import WebClient

from bot.core.ports import Message
from bot.core.replies import IN_CHANNEL, ErrorReply, PaperReply, PickListReply, Reply, SimilarReply
from bot.render import ACTION_ANOTHER, ACTION_DETAILS, ACTION_SIMILAR, PAGE_ACTIONS, render
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY, view_or_plain
from bot.slack.delivery.modals import message_modal
from bot.slack.listeners.clicks import (
    EXAMPLE,
    BadValue,
    Click,
    answer,
    click_listener,
    page_request,
    paper_id,
    read_value,
)

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Replies worth a modal when the click allows one (a notice or an error stays ephemeral).
MODAL_REPLIES = (PaperReply, SimilarReply, PickListReply)


# ---------------------------------------------------------------- the buttons
@dataclass(frozen=True)
class Button:
    """How one kind of button is answered.

    Attributes:
        answer: ``answer(service, value, click) -> Reply``; may raise BadValue.
        in_channel: the answer may be posted visibly (when the reply says so).
        replace_original: the answer replaces the message clicked.
        modal: a paper or a list is answered in a modal when the click
            brings a ``trigger_id`` (issue 12 point 4: no long ephemeral
            messages stacking up); ephemeral when no modal can be opened.
    """

    answer: Callable[["Service", dict[str, Any], Click], Reply]
    in_channel: bool = False
    replace_original: bool = False
    modal: bool = False


def _page(service: "Service", value: dict[str, Any], click: Click) -> Reply:
    query, offset, exact = page_request(value, service.queries.text_of)
    return service.search(query, offset=offset, exact=exact)


def _another(service: "Service", value: dict[str, Any], click: Click) -> Reply:
    return service.random_paper()


BUTTONS: dict[str, Button] = {
    ACTION_DETAILS: Button(lambda service, value, click: service.paper(paper_id(value)), modal=True),
    ACTION_SIMILAR: Button(lambda service, value, click: service.similar(paper_id(value)), modal=True),
    **{page: Button(_page, replace_original=True) for page in PAGE_ACTIONS},  # Next, Previous, Instead
    ACTION_ANOTHER: Button(_another, modal=True),
}


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register a listener for every button ``bot.render`` draws.

    Args:
        app: the Bolt app.
        service: answers ``share``, ``paper``, ``similar``, ``search``,
            ``random_paper``.
        slots: bounds concurrent service calls (``bot.slack.app.WORK_SLOTS``);
            never held during an ack or a Slack call.
    """
    for action_id, button in BUTTONS.items():
        app.action(action_id)(make_listener(service, action_id, button, slots))


def make_listener(service: "Service", action_id: str, button: Button, slots: FairSlots) -> Callable[..., None]:
    """The listener for one button (Bolt arguments ``ack, body, action, respond, client, context``):
    ``ack()``, then the answer as a job (``bot.slack.listeners.clicks.click_listener``).

    Args:
        service: the ``Service`` that answers.
        action_id: the button's ``action_id``, for the log.
        button: what the button does (``BUTTONS``).
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def answer_click(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        replace = in_modal = False
        try:
            value = read_value(action)
            with slots(click.user_id or ""):
                reply = button.answer(service, value, click)
                message = render(reply)
            replace = button.replace_original
            in_modal = button.modal and isinstance(reply, MODAL_REPLIES)
        except BadValue as bad:
            log.info("%s: unreadable button value from %s in %s", action_id, click.user_id, click.channel_id)
            message = render(ErrorReply(message=bad.message, example=EXAMPLE))
        except Exception:  # noqa: BLE001 — after ack nothing may escape (see module doc)
            log.exception(
                "%s failed (team %s, channel %s, user %s)", action_id, click.team_id, click.channel_id, click.user_id
            )
            message = Message(text=SORRY)
        if in_modal and open_modal(client, body, message):
            return
        visible = button.in_channel and message.visibility == IN_CHANNEL
        answer(body, respond, client, message, in_channel=visible, replace_original=replace)

    return click_listener(answer_click)


def open_modal(client: WebClient, body: dict[str, Any], message: Message) -> bool:
    """Show ``message`` in a new modal for a click on a message (``views.open`` with
    the click's ``trigger_id``, valid 3 s once, docs/slack-rules.md [trigger-id]).

    Args:
        client: Bolt's ``WebClient``.
        body: the ``block_actions`` payload (its ``trigger_id``, ``response_url``).
        message: the rendered answer.

    Returns:
        bool: True when the modal opened. False for a click inside a view (its
        answer goes through ``clicks.answer``), without a ``trigger_id``, or
        when Slack refused (``expired_trigger_id`` …): then the caller answers
        ephemerally.
    """
    if not body.get("response_url") or not body.get("trigger_id"):
        return False
    try:
        view_or_plain(client.views_open, message_modal(message), message.text, trigger_id=body["trigger_id"])
        return True
    except Exception as exc:  # noqa: BLE001 — e.g. expired_trigger_id: answer ephemerally
        log.info("views.open for a click failed (%s); answering ephemerally", exc)
        return False
