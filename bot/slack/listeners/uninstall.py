"""``app_uninstalled`` and ``tokens_revoked``: the app left a workspace
(``bot.slack.oauth.uninstalls`` says what is forgotten and turned off).

Bolt lets both events through ``authorize`` without a token
(slack_bolt/middleware/authorization/internals.py, ``no_auth_test_events``) and
acknowledges them itself; what is forgotten is a job of the work queue
(``bot.slack.delivery.intake.later``), so the ack waits for no database write.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext

from bot.slack.delivery.intake import later
from bot.slack.oauth.uninstalls import Departure, Uninstalls


def register(app: App, uninstalls: Uninstalls) -> None:
    """Listen for the app leaving a workspace.

    Args:
        app: the Bolt app.
        uninstalls: forgets the installation and turns its subscriptions off.
    """

    @app.event("app_uninstalled")
    def app_uninstalled(context: BoltContext) -> None:
        departure = _departure(context, "app_uninstalled")
        later(context, lambda: uninstalls.departed(departure))

    @app.event("tokens_revoked")
    def tokens_revoked(event: dict[str, Any], context: BoltContext) -> None:
        if (event.get("tokens") or {}).get("bot"):  # user tokens only: paperbot holds none
            departure = _departure(context, "tokens_revoked")
            later(context, lambda: uninstalls.departed(departure))


def _departure(context: BoltContext, reason: str) -> Departure:
    return Departure(
        enterprise_id=context.enterprise_id,
        team_id=context.team_id,
        is_enterprise_install=bool(context.is_enterprise_install),
        reason=reason,
    )
