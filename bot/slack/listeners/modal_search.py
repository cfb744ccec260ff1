"""The search modal's own buttons (issue 12 point 4): paging and *Share to…*.

- *‹ Previous* / *Next ›* / *Search "…" instead* (``MODAL_PAGE_ACTIONS``, value
  ``{"q" or "k", "o"[, "exact"]}``, ``bot.slack.listeners.buttons.page_request``):
  ``views.update`` of the same modal with that page.
- *Share to…* (``{"id"}``): push the share modal (a ``conversations_select``
  with ``response_url_enabled``) while the stack has room, else replace the
  current view (docs/slack-rules.md [view-stack]).
- Its submission: claim the share (once per modal and paper and target), post
  the compact card with ``chat.postMessage`` (the abstract in its thread); a
  conversation the bot cannot post in is reached through the submission's
  ``response_url`` when Slack gave one for it (a DM: no thread there), else
  the input says "Invite @paperbot to #x first". Success replaces the share
  modal with "Shared in #x ✓".
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from bot.core.models import Context
from bot.core.ports import Message, PostError
from bot.core.replies import ShareReply
from bot.render import render
from bot.render.blocks import ACTION_SHARE_TO, MODAL_PAGE_ACTIONS
from bot.render.cards import SHARE_MODAL_ID, SHARE_TARGET_ACTION, SHARE_TARGET_BLOCK, share_modal, shared_modal
from bot.service.sharing import share_key
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import view_or_plain
from bot.slack.delivery.modals import STACK_MAX, message_modal, valid_view, view_depth
from bot.slack.delivery.poster import SlackPoster
from bot.slack.listeners.app_home import modal_results
from bot.slack.listeners.buttons import BadValue, page_request, paper_id, read_value
from bot.slack.listeners.share import NOT_POSTABLE, sharer_name
from bot.slack.listeners.slash_command import SORRY

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the modal's page buttons, *Share to…* and the share modal's submission."""
    for action_id in MODAL_PAGE_ACTIONS:
        app.action(action_id)(make_page_listener(service, slots))
    app.action(ACTION_SHARE_TO)(make_share_to_listener(service))
    app.view(SHARE_MODAL_ID)(make_share_submit_listener(service, slots))


def make_page_listener(service: "Service", slots: FairSlots):
    """A page button in the search modal → ``views.update`` of that modal."""

    def modal_page(ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        view = body.get("view") or {}
        try:
            query, offset, exact = page_request(read_value(action), service.queries.text_of)
            with slots((body.get("user") or {}).get("id") or ""):
                result = modal_results(service, query, offset, exact)
        except BadValue as bad:
            result = message_modal(_plain(bad.message), depth=view_depth(view))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("search modal page failed")
            result = message_modal(_plain(SORRY), depth=view_depth(view))
        try:
            view_or_plain(client.views_update, result, SORRY, view_id=view.get("id"))
        except Exception:  # noqa: BLE001 — e.g. the modal was closed meanwhile
            log.warning("views.update of modal %s failed", view.get("id"), exc_info=True)

    return modal_page


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
    """The share modal's *Share* → post the card, then "Shared in #x ✓" (or an error on the input)."""

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
    """Post paper ``pid`` into ``target`` once; None on success, else the sentence to show."""
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
    else "that conversation" (plain text: a view's error cannot render ``<#C…>``)."""
    try:
        name = (client.conversations_info(channel=channel).get("channel") or {}).get("name")
    except Exception as exc:  # noqa: BLE001 — a private channel the bot is not in: not found
        log.info("conversations.info for %s failed (%s)", channel, exc)
        return "that conversation"
    return f"#{name}" if isinstance(name, str) and name else "that conversation"


def _plain(text: str) -> Message:
    return Message(text=text)
