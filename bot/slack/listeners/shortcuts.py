"""Shortcuts (issue 12 point 2; https://docs.slack.dev/interactivity/implementing-shortcuts).

- Message shortcut *Find related papers* (``message_action``, callback
  ``RELATED_SHORTCUT``): ``ack()``; a message without text gets a short
  explanation; otherwise a "Searching…" modal opens at once with the click's
  ``trigger_id`` (valid 3 s, docs/slack-rules.md [trigger-id]), then
  ``Service.related(text)`` fills it with ``views.update``. When the modal
  cannot open (``expired_trigger_id`` …) the answer goes to the clicker
  ephemerally through the payload's ``response_url``.
- Global shortcut *Search papers* (``shortcut``, callback ``SEARCH_SHORTCUT``):
  ``views.open`` of the search modal. A global shortcut has no channel and no
  ``response_url``: a failure can only be logged.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.ports import Message
from bot.core.replies import ResultsReply
from bot.render.home import search_modal
from bot.render.related import NO_TEXT, RELATED_RESULTS, related_message, related_modal
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY, failed, view_or_plain
from bot.slack.delivery.intake import later
from bot.slack.delivery.modals import valid_view
from bot.slack.delivery.response_url import respond_or_plain
from bot.slack.listeners.common import SEARCHING
from bot.slack.transport.incoming_text import decode_entities, strip_tokens

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

RELATED_SHORTCUT = "find_related_papers"
SEARCH_SHORTCUT = "search_papers"


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register both shortcuts (callback ids as in the manifests' ``features.shortcuts``).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """
    app.shortcut(RELATED_SHORTCUT)(make_related_listener(service, slots))
    app.shortcut(SEARCH_SHORTCUT)(open_search_modal)


def message_text(body: dict[str, Any]) -> str:
    """The clicked message's words: Slack tokens (mentions, links) dropped, entities decoded."""
    raw = (body.get("message") or {}).get("text")
    if not isinstance(raw, str):
        return ""
    return decode_entities(strip_tokens(raw)).strip()


def make_related_listener(service: "Service", slots: FairSlots):
    """The *Find related papers* listener (Bolt arguments ``ack, body, respond, client,
    context``): ``ack()``, then the modal and the search as a job.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def find_related(
        ack: Ack, body: dict[str, Any], respond: Respond, client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        ack()
        later(context, lambda: show_related(body, respond, client))

    def show_related(body: dict[str, Any], respond: Respond, client: WebClient) -> None:
        text = message_text(body)
        if not any(c.isalnum() for c in text):  # an image, a file, only a mention
            if _open(client, body, related_modal(error=NO_TEXT)) is None:
                _ephemeral(respond, Message(text=NO_TEXT))
            return
        view_id = _open(client, body, related_modal(status=SEARCHING))
        try:
            with slots((body.get("user") or {}).get("id") or ""):
                reply = service.related(text, limit=RELATED_RESULTS)
            page = reply.page if isinstance(reply, ResultsReply) else None
            error = None if page is not None else getattr(reply, "message", SORRY)
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("related papers failed")
            page, error = None, SORRY
        if view_id is None:
            _ephemeral(respond, related_message(page) if page is not None else Message(text=error))
            return
        result = valid_view(related_modal(page=page) if page is not None else related_modal(error=error))
        try:
            view_or_plain(client.views_update, result, SORRY, view_id=view_id)
        except Exception:  # noqa: BLE001 — the user closed the modal meanwhile
            log.warning("views.update of the related modal %s failed", view_id, exc_info=True)

    return find_related


def _open(client: WebClient, body: dict[str, Any], view: dict) -> str | None:
    """``views.open`` with the shortcut's ``trigger_id``; the new view's id, or None."""
    if not body.get("trigger_id"):
        return None
    try:
        answer = view_or_plain(client.views_open, valid_view(view), SEARCHING, trigger_id=body["trigger_id"])
        return (answer.get("view") or {}).get("id")
    except Exception as exc:  # noqa: BLE001 — e.g. expired_trigger_id: answer ephemerally
        log.info("views.open for the shortcut failed (%s); answering ephemerally", exc)
        return None


def _ephemeral(respond: Respond, message: Message) -> None:
    try:
        respond_or_plain(respond, message, response_type="ephemeral")
    except Exception as exc:  # noqa: BLE001 — no response_url either: nothing else to answer through
        failed("the ephemeral answer to the shortcut", exc)


def open_search_modal(ack: Ack, body: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None) -> None:
    """*Search papers* (global shortcut): ``ack()``, then (a job) open the search modal.

    Args:
        ack: Bolt's ``ack``.
        body: the shortcut payload (its ``trigger_id``).
        client: Bolt's ``WebClient``.
        context: Bolt's request context (the work queue's place for the job).
    """
    ack()
    later(context, lambda: _open_search_modal(body, client))


def _open_search_modal(body: dict[str, Any], client: WebClient) -> None:
    try:
        view_or_plain(client.views_open, valid_view(search_modal()), SORRY, trigger_id=body.get("trigger_id"))
    except Exception as exc:  # noqa: BLE001 — e.g. an expired trigger_id; no response_url to tell
        failed("views.open of the search modal (global shortcut)", exc)
