"""The App Home (``app_home_opened``): the Home tab and the Messages tab.

- Tab "home" → ``bot.slack.listeners.common.publish_home``: ``service.home(ctx,
  is_member)`` → ``bot.render.home.home_view`` → one ``views.publish``, on
  every open. Membership comes from one paginated ``users.conversations`` for
  the viewer, asked only when the team has a subscription.
- Tab "messages" → the first hello, once per user (``welcome_user``; the
  bot joining a channel is ``bot.slack.listeners.welcome``).

The Home tab's *Search papers* button and the search modal are
``bot.slack.listeners.modal_search``; its reading-list buttons are
``bot.slack.listeners.reading_list``. Nothing here raises out of a listener:
failures are logged (events are auto-acked).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.core.models import Context
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import failed
from bot.slack.delivery.intake import later
from bot.slack.listeners.common import publish_home, say_once

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)


def register(app: App, service: "Service", *, slots: FairSlots | None = None) -> None:
    """Register the ``app_home_opened`` listener (``service`` answers ``home(ctx,
    is_member)`` and ``welcome(ctx, audience)``).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots the Home tab's picks are made in (issue 22), or None.
    """
    app.event("app_home_opened")(make_home_listener(service, slots))


def make_home_listener(service: "Service", slots: FairSlots | None = None):
    """The ``app_home_opened`` listener (Bolt arguments ``body, event, client, context``): the
    Home tab or the welcome as a job (``bot.slack.delivery.intake.later``). The Home tab's
    picks for the viewer (a model trained on their signals) hold one of ``slots``; the rest is
    light, and no slot is held during Slack calls.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots, or None.
    """

    def app_home_opened(
        body: dict[str, Any], event: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        later(context, lambda: show(body, event, client))

    def show(body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab") == "messages":
            welcome_user(service, client, body, event)  # once per user (issue 12 point 5)
            return
        user = event.get("user") or ""
        team = body.get("team_id") or ""
        if not user:
            return
        try:
            publish_home(service, client, team, user, slots=slots)
        except Exception as exc:  # noqa: BLE001 — events are auto-acked; log and move on
            failed(f"publishing the App Home of {user} (team {team})", exc)

    return app_home_opened


def welcome_user(service: "Service", client: WebClient, body: dict[str, Any], event: dict[str, Any]) -> None:
    """The Messages tab was opened: greet ``event.user`` in ``event.channel`` once.

    Args:
        service: the ``Service`` that answers.
        client: Bolt's ``WebClient``.
        body: the event envelope (its ``team_id``).
        event: the ``app_home_opened`` event (its ``user`` and ``channel``).
    """
    user, channel = event.get("user") or "", event.get("channel") or ""
    if not user or not channel:
        return
    ctx = Context(team_id=body.get("team_id") or "", channel_id=channel, user_id=user)
    say_once(service, client, ctx, "user", channel)
