"""What the click listeners share (buttons, the reading list, *Share*, the
search modal), so that no listener imports another (docs/architecture.md "Layers").

- Reading a click: ``Click`` (who clicked, where), ``read_value`` / ``paper_id``
  / ``page_request`` (a button's ``value``; ``BadValue`` with a sentence for the
  user when it is not one we draw).
- Answering it: ``answer`` (back through the click's ``response_url``, else in a
  modal; to the clicker alone on a message others see, ``on_public_message``,
  docs/slack-rules.md [replace-original]).
- ``redraw``: the clicker's own message drawn again from a button's value, marked
  shared and saved, so *Share* and *Save* update the message clicked.
- ``click_listener``: a button's Bolt listener — ``ack()``, then its answer as a
  job of the work queue.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import Ack, Respond
from slack_sdk import WebClient

from bot.core.json_values import json_object
from bot.core.models import Context
from bot.core.parsing import user_text
from bot.core.ports import Message
from bot.core.replies import EPHEMERAL, IN_CHANNEL, PaperReply, ResultsReply
from bot.render import ACTION_SAVE, ACTION_SHARE, escape, render
from bot.render.blocks import SAVED, mark_done
from bot.service.sharing import share_key
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import failed
from bot.slack.delivery.intake import later
from bot.slack.delivery.modals import show_in_view
from bot.slack.delivery.response_url import respond_or_plain

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

QUERY_MAX = 300  # longest query a page button carries as text (longer: a key)
ID_MAX = 200  # longest paper id accepted (ids are short: "p7k2b", "2401.01234")
#: Deepest offset a page button may ask for (the search ranks 1,000 at most).
OFFSET_MAX = 1000
#: The example under an error about a button (buttons, the reading list, *Share*).
EXAMPLE = "/paper search sparse attention"


# ---------------------------------------------------------------- a click
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
    """The button's ``value`` as a JSON object (``bot.core.json_values.json_object``).

    Raises:
        BadValue: missing, not JSON, not an object, too long or nested too deep.
    """
    value = json_object(action.get("value"))
    if value is None:
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

    Args:
        value: the page button's value, read by ``read_value``.
        stored: the long query kept under a key, or None when it is gone.

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


def redraw(
    service: "Service", slots: FairSlots, value: dict[str, Any], click: Click, message_ts: str
) -> Message | None:
    """The clicker's own (ephemeral) message drawn again from a button's ``value``
    — a results page (``{"q" or "k", "o", …}``) or a paper card (``{"card": 1, "id"}``,
    ``bot.render.blocks.paper_buttons`` ``origin``) — each paper shared from it
    marked "Shared in #x ✓" and each in the clicker's reading list "Saved ✓", so
    *Share* and *Save* update the message clicked instead of adding one
    (issue 19 point 7). An ephemeral message cannot be read back from Slack: the
    button carries what drew it.

    Args:
        service: ``search``, ``paper``, ``sharing``, ``reading_list``.
        slots: held while the service and the renderer run.
        value: the clicked button's value.
        click: who clicked, where.
        message_ts: the clicked message's ``ts`` (the shares' keys).

    Returns:
        Message | None: None when the value names no message to draw (a digest's
        button) or it cannot be drawn again (an expired query key, a paper gone).
    """
    with slots(click.user_id or ""):
        if value.get("card") == 1:
            reply = service.paper(paper_id(value))
            if not isinstance(reply, PaperReply):
                return None
            ids = [reply.paper.id]
            shared = service.sharing.where([(ids[0], share_key(click.team_id, click.channel_id, message_ts, ids[0]))])
            message = render(reply)
            for pid, where in shared:
                message = _marked(message, ACTION_SHARE, pid, f"Shared in <#{escape(where)}> ✓")
        elif "q" in value or "k" in value:
            try:
                query, offset, exact = page_request(value, service.queries.text_of)
            except BadValue:
                return None
            reply = service.search(query, offset=offset, exact=exact)
            if not isinstance(reply, ResultsReply) or reply.page is None:
                return None
            ids = [h.paper.id for h in reply.page.hits]
            keys = [(pid, share_key(click.team_id, click.channel_id, message_ts, pid)) for pid in ids]
            message = render(replace(reply, shared=service.sharing.where(keys)))
        else:
            return None
        for pid in service.reading_list.saved_among(click.context, ids):
            message = _marked(message, ACTION_SAVE, pid, SAVED)
        return message


def _marked(message: Message, action_id: str, pid: str, note: str) -> Message:
    return replace(message, blocks=tuple(mark_done(message.blocks, action_id, frozenset({pid}), note)))


def on_public_message(body: dict[str, Any]) -> bool:
    """True when the click was on a message everyone in the conversation sees
    (``container.is_ephemeral`` false): its answer is for the clicker alone and
    never replaces that message (docs/slack-rules.md [replace-original])."""
    container = body.get("container") or {}
    return container.get("type") == "message" and container.get("is_ephemeral") is False


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
        replace_original: replace the message clicked instead of adding one —
            only an ephemeral one: on a message others see
            (``on_public_message``), the clicker alone gets a new ephemeral answer.

    Never raises: failures are logged; a reply Slack refuses is sent again
    as plain text (``bot.slack.delivery.response_url.respond_or_plain``).
    """
    try:
        if not body.get("response_url"):
            show_in_view(client, body, message)
            return
        public = on_public_message(body)
        respond_or_plain(
            respond,
            message,
            response_type=IN_CHANNEL if in_channel and not public else EPHEMERAL,
            replace_original=replace_original and not public,
        )
    except Exception as exc:  # noqa: BLE001 — nothing else to tell the user through
        failed("answering a button click", exc)


def click_listener(work: Callable[[dict[str, Any], dict[str, Any], Respond, WebClient], None]) -> Callable[..., None]:
    """A button's Bolt listener (``ack, body, action, respond, client, context``):
    ``ack()`` at once, then ``work(body, action, respond, client)`` as a job of the
    work queue (``bot.slack.delivery.intake.later``; docs/architecture.md "Acks
    never wait behind work")."""

    def on_click(
        ack: Ack,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Respond,
        client: WebClient,
        context: dict[str, Any] | None = None,
    ) -> None:
        ack()
        later(context, lambda: work(body, action, respond, client))

    return on_click
