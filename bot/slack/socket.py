"""Socket Mode transport: the same Bolt app over Slack's websocket.

Uses Bolt's built-in-client handler (``slack_bolt.adapter.socket_mode``,
no extra dependency). Bolt skips signature checks in Socket Mode and copies
the envelope's ``retry_attempt`` / ``retry_reason`` into the
``X-Slack-Retry-*`` headers, so the listeners behave as over HTTP
(docs/platform-facts.md "Socket Mode", "Bolt"). Needs an app-level token (``xapp-…``, scope
``connections:write``).
"""
from __future__ import annotations

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

#: Threads the socket client uses to hand envelopes to Bolt. Each holds its
#: envelope only until the listener's ack (the work runs on the app's
#: listener pool), so this need not match the 50-command target.
CONCURRENCY = 16


def socket_handler(app: App, app_token: str) -> SocketModeHandler:
    """A Socket Mode handler for ``app`` (not connected yet).

    Args:
        app: the Bolt app from ``bot.slack.app.build_app``.
        app_token: the app-level token ``xapp-…``; must be non-empty (Bolt
            would otherwise read ``SLACK_APP_TOKEN`` itself).

    Raises:
        ValueError: ``app_token`` is empty.
    """
    if not app_token:
        raise ValueError("an app-level token (xapp-…) is required for Socket Mode")
    return SocketModeHandler(app, app_token, concurrency=CONCURRENCY)


def run_socket(app: App, app_token: str) -> None:
    """Connect to Slack over Socket Mode and serve until the process ends.

    Blocks the calling thread (``SocketModeHandler.start()``); reconnects
    on its own when Slack drops the connection.

    Raises:
        ValueError: ``app_token`` is empty.
        slack_sdk.errors.SlackApiError: ``apps.connections.open`` refused
            the token (e.g. ``invalid_auth``, ``not_allowed_token_type``).
    """
    socket_handler(app, app_token).start()
