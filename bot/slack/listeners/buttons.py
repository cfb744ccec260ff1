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
``home_search``       any                  ``views.open`` of the search modal
====================  ===================  ======================================

A click inside a view (the Home tab, a modal) has no ``response_url``: its
answer is shown in a modal (``bot.slack.delivery.modals.show_in_view``). A value that
is not what we render (bad JSON, not an object, wrong types, negative or
non-integer offset, over-long query or id) gets a polite ephemeral
explanation; any other failure a polite "sorry" — never an HTTP 500, never
a traceback in Slack (an exception after ``ack()`` would turn the request
into a 404, docs/platform-facts.md "Bolt").
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.models import Context
from bot.core.parsing import user_text
from bot.core.ports import Message
from bot.core.replies import EPHEMERAL, IN_CHANNEL, ErrorReply, PaperReply, PickListReply, Reply, SimilarReply
from bot.render import ACTION_ANOTHER, ACTION_DETAILS, ACTION_HOME_SEARCH, ACTION_SIMILAR, PAGE_ACTIONS, render
from bot.render.home import search_modal
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import respond_or_plain, view_or_plain
from bot.slack.delivery.modals import message_modal, show_in_view, valid_view
from bot.slack.listeners.slash_command import SORRY

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

QUERY_MAX = 300  # longest query a page button carries as text (longer: a key)
ID_MAX = 200  # longest paper id accepted (ids are short: "p7k2b", "2401.01234")
#: Deepest offset a page button may ask for (the search ranks 1,000 at most).
OFFSET_MAX = 1000
EXAMPLE = "/paper search sparse attention"
#: Replies worth a modal when the click allows one (a notice or an error stays ephemeral).
MODAL_REPLIES = (PaperReply, SimilarReply, PickListReply)


class BadValue(ValueError):
    """A button value we did not render; ``message`` is shown to the user."""

    def __init__(
        self,
        message: str = "Sorry, I couldn't read that button — it may come "
        "from an older message. Please run the search again.",
    ) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Click:
    """Who clicked, where: the parts of a ``block_actions`` payload we use.

    Attributes:
        team_id, channel_id, user_id: Slack ids (``channel_id`` is "" for a
            click inside a view).
        channel_name: e.g. "general", when Slack sends it.
    """

    team_id: str
    channel_id: str
    user_id: str
    channel_name: str | None = None

    @classmethod
    def of(cls, body: dict[str, Any]) -> "Click":
        """Read a ``block_actions`` payload (``team``, ``channel``, ``container``, ``user``)."""
        user = body.get("user") or {}
        channel = body.get("channel") or {}
        container = body.get("container") or {}
        return cls(
            team_id=(body.get("team") or {}).get("id") or user.get("team_id") or "",
            channel_id=channel.get("id") or container.get("channel_id") or "",
            user_id=user.get("id") or "",
            channel_name=channel.get("name"),
        )

    @property
    def context(self) -> Context:
        """The service's ``Context`` for this click (no ``user_tz``: never needed here)."""
        return Context(
            team_id=self.team_id, channel_id=self.channel_id, user_id=self.user_id, channel_name=self.channel_name
        )


# ---------------------------------------------------------------- reading values
def read_value(action: dict[str, Any]) -> dict[str, Any]:
    """The button's ``value`` as a JSON object.

    Raises:
        BadValue: missing, not JSON, or not an object.
    """
    raw = action.get("value")
    if not isinstance(raw, str):
        raise BadValue()
    try:
        value = json.loads(raw)
    except ValueError:
        raise BadValue() from None
    if not isinstance(value, dict):
        raise BadValue()
    return value


def paper_id(value: dict[str, Any]) -> str:
    """``value["id"]``: a non-empty string of ≤ ``ID_MAX`` visible characters.

    Raises:
        BadValue: missing, not a string, empty, too long or with spaces.
    """
    pid = value.get("id")
    if not isinstance(pid, str) or not 0 < len(pid) <= ID_MAX or not pid.isprintable() or any(c.isspace() for c in pid):
        raise BadValue()
    return pid


def page_request(value: dict[str, Any], stored: Callable[[str], str | None]) -> tuple[str, int, bool]:
    """``(query, offset, exact)`` from a page button's ``{"q" or "k", "o", "exact"?}``
    (``stored(key)``: the long query kept under ``k``, ``service.queries.text_of``),
    the query's controls and bidi overrides removed (``bot.core.parsing.user_text``).

    Raises:
        BadValue: ``q`` not a string of 1..``QUERY_MAX`` chars, ``k`` naming no stored query
            (or purged), ``o`` not an int in 0..``OFFSET_MAX``, ``exact`` not 0/1."""
    query, offset, exact = value.get("q"), value.get("o"), value.get("exact", 0)
    if "k" in value and query is None:
        query = stored(value["k"]) if isinstance(value["k"], str) else None
        if query is None:
            raise BadValue("That search is too old to page through now: please run it again.")
    elif not isinstance(query, str) or not query.strip() or len(query) > QUERY_MAX:
        raise BadValue()
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= OFFSET_MAX:
        raise BadValue()
    if exact not in (0, 1) or (not isinstance(exact, (bool, int))):
        raise BadValue()
    return user_text(query), offset, bool(exact)  # a tampered value may carry controls


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
    app.action(ACTION_HOME_SEARCH)(open_search)


def make_listener(service: "Service", action_id: str, button: Button, slots: FairSlots) -> Callable[..., None]:
    """The listener for one button (Bolt arguments ``ack, body, action, respond, client``)."""

    def on_click(ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        ack()
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

    return on_click


def answer(
    body: dict[str, Any],
    respond: Respond,
    client: WebClient,
    message: Message,
    *,
    in_channel: bool = False,
    replace_original: bool = False,
) -> None:
    """Send ``message`` back to the click: its ``response_url``, else a modal.

    Args:
        body: the ``block_actions`` payload.
        respond: Bolt's ``respond`` for the click's ``response_url``.
        client: Web API client (for views, when there is no ``response_url``).
        message: the rendered answer.
        in_channel: post visibly (``response_type: in_channel``); else ephemeral.
        replace_original: replace the message clicked instead of adding one.

    Never raises: failures are logged; a reply Slack refuses is sent again
    as plain text (``bot.slack.delivery.fallback.respond_or_plain``).
    """
    try:
        if not body.get("response_url"):
            show_in_view(client, body, message)
            return
        respond_or_plain(
            respond, message, response_type=IN_CHANNEL if in_channel else EPHEMERAL, replace_original=replace_original
        )
    except Exception:  # noqa: BLE001 — nothing else to tell the user through
        log.exception("answering a button click failed")


def open_modal(client: WebClient, body: dict[str, Any], message: Message) -> bool:
    """Show ``message`` in a new modal for a click on a message (``views.open`` with
    the click's ``trigger_id``, valid 3 s once, docs/slack-rules.md [trigger-id]).

    Returns:
        bool: True when the modal opened. False for a click inside a view (its
        answer goes through ``show_in_view``), without a ``trigger_id``, or
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


def open_search(ack: Ack, body: dict[str, Any], respond: Respond, client: WebClient) -> None:
    """*Search papers* (App Home): open the search modal with the click's ``trigger_id``."""
    ack()
    try:
        view_or_plain(client.views_open, valid_view(search_modal()), SORRY, trigger_id=body.get("trigger_id"))
    except Exception:  # noqa: BLE001 — e.g. an expired trigger_id (3 s)
        log.exception("views.open of the search modal failed")
        if body.get("response_url"):
            answer(body, respond, client, Message(text=SORRY))
