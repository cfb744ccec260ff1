"""*Share* (issue 12 point 4): post a compact card once per message and paper,
and confirm where the click was.

From a message (search results, a paper card): ``ack()``; claim the share
(``Service.sharing``, key ``team:channel:message ts:paper id``) — a second
click is told where it was shared; post the card with ``chat.postMessage``
(the abstract in its thread, who shared it by name — ``users.info`` — so no
one is notified); then redraw the results in place with that row saying
"Shared in #channel ✓" (the button's value carries the page), or confirm
ephemerally. A channel the bot cannot post to gets "Invite @paperbot to
#channel first". From a modal (no channel) *Share to…* opens a channel
picker instead (``bot.slack.share_modal``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.ports import Message, PostError
from bot.core.replies import EPHEMERAL, ErrorReply, ResultsReply, ShareReply
from bot.render import ACTION_SHARE, render
from bot.service.sharing import share_key
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.poster import SlackPoster
from bot.slack.listeners.buttons import EXAMPLE, BadValue, Click, answer, page_request, paper_id, read_value
from bot.slack.listeners.slash_command import SORRY

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Slack's answers for a channel the bot may not post in (docs/slack-rules.md [chat-write-public]).
NOT_POSTABLE = ("not_in_channel", "channel_not_found", "is_archived", "restricted_action")


def invite_first(channel: str) -> str:
    """The answer for a channel the bot cannot post in (mrkdwn)."""
    return f"Invite @paperbot to <#{channel}> first (`/invite @paperbot` there), then share again."


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the *Share* button listener."""
    app.action(ACTION_SHARE)(make_listener(service, slots))


def sharer_name(client: WebClient, user_id: str) -> str:
    """The user's display name (``users.info``, scope ``users:read``), else "someone"."""
    try:
        user = client.users_info(user=user_id).get("user") or {}
    except Exception as exc:  # noqa: BLE001 — a missing name only makes the card vaguer
        log.info("users.info for %s failed (%s)", user_id, exc)
        return "someone"
    profile = user.get("profile") or {}
    for name in (profile.get("display_name"), profile.get("real_name"), user.get("real_name"), user.get("name")):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return "someone"


def make_listener(service: "Service", slots: FairSlots):
    """The *Share* listener (Bolt arguments ``ack, body, action, respond, client``)."""

    def on_share(ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        ack()
        try:
            message, replace_original = share_from_message(service, slots, body, action, client)
        except BadValue as bad:
            message, replace_original = render(ErrorReply(message=bad.message, example=EXAMPLE)), False
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("share failed")
            message, replace_original = Message(text=SORRY), False
        answer(body, respond, client, message, replace_original=replace_original)

    return on_share


def share_from_message(
    service: "Service", slots: FairSlots, body: dict[str, Any], action: dict[str, Any], client: WebClient
) -> tuple[Message, bool]:
    """Do one share from a message click; return ``(answer, replace the clicked message)``.

    Raises:
        BadValue: the button value is not one we draw, or the click has no channel.
    """
    click = Click.of(body)
    value = read_value(action)
    pid = paper_id(value)
    if not click.channel_id:
        raise BadValue("Share works from a message in a channel: try `/paper search …` there.")
    message_ts = (body.get("container") or {}).get("message_ts") or ""
    key = share_key(click.team_id, click.channel_id, message_ts, pid)
    claimed, where = service.sharing.claim(key, click.channel_id)
    if not claimed:
        return _ephemeral(f"You already shared this paper in <#{where or click.channel_id}>."), False
    try:
        with slots(click.user_id or ""):
            reply = service.share(pid, click.context, sharer=sharer_name(client, click.user_id))
            card = render(reply)
        if not isinstance(reply, ShareReply):
            service.sharing.release(key)
            return card, False
        SlackPoster(client).post(click.channel_id, card)
    except PostError as exc:
        service.sharing.release(key)
        log.info("share into %s refused: %s", click.channel_id, exc.code)
        text = invite_first(click.channel_id) if exc.code in NOT_POSTABLE else SORRY
        return _ephemeral(text), False
    except Exception:
        service.sharing.release(key)
        raise
    if "q" in value or "k" in value:  # the page it was clicked on
        redrawn = _redrawn(service, slots, value, click, message_ts)
        if redrawn is not None:
            return redrawn, True
    return _ephemeral(f"Shared in <#{click.channel_id}> ✓"), False


def _redrawn(
    service: "Service", slots: FairSlots, value: dict[str, Any], click: Click, message_ts: str
) -> Message | None:
    """The clicked results page again, every row shared from it marked."""
    try:
        query, offset, exact = page_request(value, service.queries.text_of)
    except BadValue:
        return None
    with slots(click.user_id or ""):
        reply = service.search(query, offset=offset, exact=exact)
        if not isinstance(reply, ResultsReply) or reply.page is None:
            return None
        keys = [
            (h.paper.id, share_key(click.team_id, click.channel_id, message_ts, h.paper.id)) for h in reply.page.hits
        ]
        return render(replace(reply, shared=service.sharing.where(keys)))


def _ephemeral(text: str) -> Message:
    return Message(text=text, visibility=EPHEMERAL)
