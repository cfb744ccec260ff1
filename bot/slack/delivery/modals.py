"""Modals as answers: the view helpers the buttons, shortcuts and the search
modal use.

- ``valid_view``: every view sent to Slack passes slack_sdk's ``View``
  validation and keeps ≤ 100 blocks (docs/platform-facts.md "Slack message and
  Block Kit limits").
- ``message_modal`` / ``show_in_view``: a button clicked inside the Home tab or
  a modal has no ``response_url``, so its answer opens (or pushes, up to
  ``STACK_MAX``) a modal instead (docs/slack-rules.md [view-stack]).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.models.views import View

from bot.core.json_values import json_object
from bot.core.ports import Message
from bot.render import blocks as bk
from bot.render.home import VIEW_BLOCKS_MAX
from bot.slack.delivery.fallback import SORRY, view_or_plain

log = logging.getLogger(__name__)

#: Views in one modal stack (Slack's limit, docs/slack-rules.md [view-stack]).
STACK_MAX = 3
MODAL_TITLE = "paperbot"  # modal titles: ≤ 24 chars of plain text


def valid_view(view: dict) -> dict:
    """``view`` unchanged, once slack_sdk's ``View`` validation accepts it.

    Raises:
        slack_sdk.errors.SlackObjectFormationError: a limit is broken (title
            > 24 chars, no blocks or more than ``VIEW_BLOCKS_MAX`` …).
    """
    View(**view).validate_json()
    return view


def message_modal(message: Message, title: str = MODAL_TITLE, depth: int = 1) -> dict:
    """A rendered reply shown in a modal (answers to clicks in the Home tab or a modal).

    *Share* buttons become *Share to…*: a view has no channel to share into.

    Args:
        message: the rendered reply (its blocks, else its mrkdwn ``text``).
        title: the modal title (≤ 24 chars).
        depth: its place in the modal stack (1 = opened, 2–3 = pushed), kept in
            ``private_metadata`` so a click in it knows whether a push still fits
            (docs/slack-rules.md [view-stack]).

    Returns:
        dict: a validated modal view (≤ ``VIEW_BLOCKS_MAX`` blocks).
    """
    blocks = [b for b in (_without_share(b) for b in message.blocks) if b is not None]
    if not blocks:
        blocks = [bk.section(message.text or SORRY)]
    return valid_view(
        View(
            type="modal",
            title=title,
            close="Close",
            private_metadata=json.dumps({"depth": depth}),
            blocks=blocks[:VIEW_BLOCKS_MAX],
        ).to_dict()
    )


def view_depth(view: dict[str, Any]) -> int:
    """A modal's place in its stack from its ``private_metadata`` (default 1)."""
    depth = (json_object(view.get("private_metadata") or "{}") or {}).get("depth", 1)
    return depth if isinstance(depth, int) and 1 <= depth <= STACK_MAX else 1


def _without_share(block: dict) -> dict | None:
    """*Share* (which posts where the message is) becomes *Share to…* (pick a
    conversation): a view has no channel of its own."""
    if block.get("type") != "actions":
        return block
    elements = []
    for e in block.get("elements") or []:
        if e.get("action_id") == bk.ACTION_SHARE:
            label = str(e.get("accessibility_label") or "Share").replace("Share", "Share to a channel:", 1)
            e = {k: v for k, v in e.items() if k != "style"}
            e.update(
                action_id=bk.ACTION_SHARE_TO,
                accessibility_label=label[: bk.LABEL_MAX],
                text={"type": "plain_text", "text": "Share to…", "emoji": True},
            )
        elements.append(e)
    return dict(block, elements=elements) if elements else None


def show_in_view(client: WebClient, body: dict[str, Any], message: Message) -> None:
    """Show ``message`` to whoever clicked a button inside a view.

    From the Home tab: ``views.open`` a modal (with the click's short-lived
    ``trigger_id``). From a modal: ``views.push`` it on top while the stack
    holds fewer than ``STACK_MAX`` views, else (or when Slack refuses the
    push) ``views.update`` the current one (docs/slack-rules.md [view-stack]).

    Args:
        client: Bolt's ``WebClient``.
        body: the ``block_actions`` payload (its ``view`` and ``trigger_id``).
        message: the rendered reply.

    Raises:
        slack_sdk.errors.SlackApiError / SlackClientError: Slack refused both.
    """
    view = body.get("view") or {}
    if view.get("type") != "modal":
        view_or_plain(client.views_open, message_modal(message), message.text, trigger_id=body.get("trigger_id"))
        return
    depth = view_depth(view)
    if depth < STACK_MAX:
        try:
            view_or_plain(
                client.views_push,
                message_modal(message, depth=depth + 1),
                message.text,
                trigger_id=body.get("trigger_id"),
            )
            return
        except Exception as exc:  # noqa: BLE001 — e.g. push_limit_reached
            log.info("views.push failed (%s); replacing the current modal", exc)
    view_or_plain(client.views_update, message_modal(message, depth=depth), message.text, view_id=view.get("id"))
