"""``app_uninstalled`` and ``tokens_revoked``: the app left a workspace
(``bot.slack.oauth.uninstalls`` says what is forgotten and turned off).

Bolt lets both events through ``authorize`` without a token
(slack_bolt/middleware/authorization/internals.py, ``no_auth_test_events``) and
acknowledges them itself.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext

from bot.slack.oauth.uninstalls import Departure, Uninstalls


def register(app: App, uninstalls: Uninstalls) -> None:
    """Listen for the app leaving a workspace.

    Args:
        app: the Bolt app.
        uninstalls: forgets the installation and turns its subscriptions off.
    """

    @app.event("app_uninstalled")
    def app_uninstalled(context: BoltContext) -> None:
        uninstalls.departed(_departure(context, "app_uninstalled"))

    @app.event("tokens_revoked")
    def tokens_revoked(event: dict[str, Any], context: BoltContext) -> None:
        if (event.get("tokens") or {}).get("bot"):  # user tokens only: paperbot holds none
            uninstalls.departed(_departure(context, "tokens_revoked"))


def _departure(context: BoltContext, reason: str) -> Departure:
    return Departure(
        enterprise_id=context.enterprise_id,
        team_id=context.team_id,
        is_enterprise_install=bool(context.is_enterprise_install),
        reason=reason,
    )
