"""Sharing a paper (issue 12 point 4): a compact card posted once, from a
message or from a modal.

*Share*, from a message (search results, a paper card): ``ack()``; claim the share
(``Service.sharing``, key ``team:channel:message ts:paper id``) — a second
click is told where it was shared; post the card with ``chat.postMessage``
(the abstract in its thread, who shared it by name — ``users.info`` — so no
one is notified); then redraw the results in place with that row saying
"Shared in #channel ✓" (the button's value carries the page), or confirm
ephemerally. A channel the bot cannot post to gets "Invite @paperbot to
#channel first".

*Share to…*, from a modal (no channel of its own; ``{"id"}``): push the share
modal (a ``conversations_select`` with ``response_url_enabled``) while the
stack has room, else replace the current view (docs/slack-rules.md
[view-stack]). Its submission claims the share (once per modal and paper and
target), posts the card with ``chat.postMessage`` (the abstract in its
thread); a conversation the bot cannot post in is reached through the
submission's ``response_url`` when Slack gave one for it (a DM: no thread
there), else the input says "Invite @paperbot to #x first". Success replaces
the share modal with "Shared in #x ✓".
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from bot.core.models import Context
from bot.core.ports import Message, PostError
from bot.core.replies import EPHEMERAL, ErrorReply, ResultsReply, ShareReply
from bot.render import ACTION_SHARE, render
from bot.render.blocks import ACTION_SHARE_TO
from bot.render.cards import SHARE_MODAL_ID, SHARE_TARGET_ACTION, SHARE_TARGET_BLOCK, share_modal, shared_modal
from bot.service.sharing import share_key
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY
from bot.slack.delivery.modals import STACK_MAX, message_modal, valid_view, view_depth
from bot.slack.delivery.poster import SlackPoster
from bot.slack.listeners.common import EXAMPLE, BadValue, Click, answer, page_request, paper_id, read_value

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Slack's answers for a channel the bot may not post in (docs/slack-rules.md [chat-write-public]).
NOT_POSTABLE = ("not_in_channel", "channel_not_found", "is_archived", "restricted_action")


def invite_first(channel: str) -> str:
    """The answer for a channel the bot cannot post in (mrkdwn)."""
    return f"Invite @paperbot to <#{channel}> first (`/invite @paperbot` there), then share again."


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register *Share* (from a message), *Share to…* (from a modal) and the share modal's submission.

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """
    app.action(ACTION_SHARE)(make_listener(service, slots))
    app.action(ACTION_SHARE_TO)(make_share_to_listener(service))
    app.view(SHARE_MODAL_ID)(make_share_submit_listener(service, slots))


def sharer_name(client: WebClient, user_id: str) -> str:
    """The user's display name (``users.info``, scope ``users:read``), else "someone".

    Args:
        client: Bolt's ``WebClient``.
        user_id: the Slack user id.
    """
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
    """The *Share* listener (Bolt arguments ``ack, body, action, respond, client``).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

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

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
        body: the ``block_actions`` payload.
        action: the clicked button (its value names the paper).
        client: Bolt's ``WebClient``.

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


# ---------------------------------------------------------------- from a modal
def make_share_to_listener(service: "Service"):
    """*Share to…* → the share modal, pushed (or in place when the stack is full)."""

    def share_to(ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        view = body.get("view") or {}
        depth = view_depth(view)
        try:
            paper = service.index.get(paper_id(read_value(action)))
            modal = (
                valid_view(share_modal(paper, min(depth + 1, STACK_MAX)))
                if paper
                else message_modal(_plain("That paper has left the index."), depth=depth)
            )
            if depth < STACK_MAX and view.get("type") == "modal":
                client.views_push(trigger_id=body.get("trigger_id"), view=modal)
            elif view.get("type") == "modal":
                client.views_update(view_id=view.get("id"), view=modal)
            else:
                client.views_open(trigger_id=body.get("trigger_id"), view=modal)
        except Exception:  # noqa: BLE001 — an expired trigger: nothing else to answer through
            log.exception("share modal not opened")

    return share_to


def selected_target(view: dict[str, Any]) -> str:
    """The conversation picked in the share modal ("" when none)."""
    try:
        value = view["state"]["values"][SHARE_TARGET_BLOCK][SHARE_TARGET_ACTION]["selected_conversation"]
    except (KeyError, TypeError):
        return ""
    return value if isinstance(value, str) else ""


def make_share_submit_listener(service: "Service", slots: FairSlots):
    """The share modal's *Share* → post the card, then "Shared in #x ✓" (or an error on the input).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def share_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient) -> None:
        target = selected_target(view)
        try:
            meta = json.loads(view.get("private_metadata") or "{}")
            pid = paper_id(meta if isinstance(meta, dict) else {})
        except (ValueError, BadValue):
            ack(response_action="errors", errors={SHARE_TARGET_BLOCK: "Sorry, I couldn't read this form."})
            return
        if not target:
            ack(response_action="errors", errors={SHARE_TARGET_BLOCK: "Pick where to share it."})
            return
        depth = view_depth(view)
        try:
            error = share_into(service, slots, client, body, view, pid, target)
        except Exception:  # noqa: BLE001 — the user still gets an answer, on the input
            log.exception("share to %s failed", target)
            error = SORRY
        if error:
            ack(response_action="errors", errors={SHARE_TARGET_BLOCK: error})
            return
        ack(response_action="update", view=valid_view(shared_modal(f"Shared in <#{target}> ✓", depth)))

    return share_submitted


def share_into(
    service: "Service",
    slots: FairSlots,
    client: WebClient,
    body: dict[str, Any],
    view: dict[str, Any],
    pid: str,
    target: str,
) -> str | None:
    """Post paper ``pid`` into ``target`` once; None on success, else the sentence to show.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
        client: Bolt's ``WebClient``.
        body: the ``view_submission`` payload (user, team, ``response_urls``).
        view: the submitted share modal.
        pid: the paper's id.
        target: the conversation picked.
    """
    user = (body.get("user") or {}).get("id") or ""
    team = (body.get("team") or {}).get("id") or ""
    key = share_key(team, target, view.get("root_view_id") or view.get("id") or "", pid)
    claimed, _ = service.sharing.claim(key, target)
    if not claimed:
        return "You already shared this paper there."
    with slots(user):
        reply = service.share(pid, Context(team, target, user), sharer=sharer_name(client, user))
        card = render(reply)
    if not isinstance(reply, ShareReply):
        service.sharing.release(key)
        return "That paper has left the index."
    try:
        SlackPoster(client).post(target, card)
        return None
    except PostError as exc:
        if exc.code not in NOT_POSTABLE:
            service.sharing.release(key)
            raise
        url = next(
            (
                r.get("response_url")
                for r in body.get("response_urls") or []
                if r.get("channel_id") == target and r.get("response_url")
            ),
            None,
        )
        if url and target.startswith("D") and _via_response_url(url, card):
            return None
        service.sharing.release(key)
        return f"Invite @paperbot to {channel_name(client, target)} first, then share again."


def _via_response_url(url: str, card) -> bool:
    """Post ``card`` visibly through a submission's ``response_url``; True when Slack took it."""
    payload = card.payload()
    payload.pop("metadata", None)
    response = WebhookClient(url).send_dict(dict(payload, response_type="in_channel"))
    if response.status_code != 200:
        log.warning("share through the response_url answered %s", response.status_code)
    return response.status_code == 200


def channel_name(client: WebClient, channel: str) -> str:
    """``#name`` from ``conversations.info`` (scopes ``channels:read`` / ``groups:read``),
    else "that conversation" (plain text: a view's error cannot render ``<#C…>``).

    Args:
        client: Bolt's ``WebClient``.
        channel: the conversation id.
    """
    try:
        name = (client.conversations_info(channel=channel).get("channel") or {}).get("name")
    except Exception as exc:  # noqa: BLE001 — a private channel the bot is not in: not found
        log.info("conversations.info for %s failed (%s)", channel, exc)
        return "that conversation"
    return f"#{name}" if isinstance(name, str) and name else "that conversation"


def _plain(text: str) -> Message:
    return Message(text=text)
