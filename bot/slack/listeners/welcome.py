"""Onboarding (issue 12 point 5): a few lines on what paperbot does and how to
subscribe, said once per user and once per channel (remembered in the store,
``Service.welcome``).

- The first time someone opens the bot's Messages tab (``app_home_opened``
  with ``tab: "messages"``, https://docs.slack.dev/reference/events/app_home_opened):
  a message in that DM (``event.channel``).
- When the bot itself joins a channel (``member_joined_channel`` whose
  ``user`` is the bot user, https://docs.slack.dev/reference/events/member_joined_channel;
  scopes ``channels:read`` / ``groups:read``, docs/scopes.md): a message in that channel.

A post Slack refuses is logged and the mark forgotten, so the hello is tried
again next time. Events are auto-acked by Bolt; nothing here raises.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.core.models import Context
from bot.slack.delivery.intake import later
from bot.slack.listeners.common import say_once

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)


def register(app: App, service: "Service") -> None:
    """Register the ``member_joined_channel`` listener (the Messages tab is
    handled by ``bot.slack.listeners.app_home``; both say ``common.say_once``).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
    """

    def member_joined_channel(
        body: dict[str, Any], event: dict[str, Any], client: WebClient, context: BoltContext
    ) -> None:
        bot_user = context.bot_user_id or ""
        if not bot_user or event.get("user") != bot_user or not event.get("channel"):
            return  # someone else joined: nothing to say
        ctx = Context(
            team_id=body.get("team_id") or event.get("team") or "",
            channel_id=event["channel"],
            user_id=event.get("inviter") or "",
        )
        later(context, lambda: say_once(service, client, ctx, "channel", event["channel"]))

    app.event("member_joined_channel")(member_joined_channel)
