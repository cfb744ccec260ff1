"""👍 / 👎 on the bot's own posts (issue 22 point 1): ``reaction_added`` and
``reaction_removed`` (https://docs.slack.dev/reference/events/reaction_added,
https://docs.slack.dev/reference/events/reaction_removed; scope
``reactions:read``, docs/scopes.md) become signals for the reacting user and the
channel (``bot.service.signals.SignalLog.reaction``).

The ack does nothing but look at the event: a reaction that is not 👍 / 👎 (any
skin tone), not on a message, or by the bot itself queues nothing. The rest is a
job of the work queue (``bot.slack.delivery.intake.later``): the event is claimed
once by its ``event:<event_id>`` key (``seen``, the store's claim of Slack's
event keys: docs/architecture.md "Claiming work once"), then the service finds
which paper the post is about and records or takes back the signal. Nothing is
ever posted, so a flood of reactions (past the intake's per-user cap it is
dropped) or one on a message that is not ours or is gone makes no reply and no
error; a failure is one log line.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping

from slack_bolt import App, BoltContext

from bot.core.models import Context
from bot.service.signals import reaction_kind
from bot.slack.delivery.intake import later

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: An ``event_ts`` further ahead of this process's clock than this is not believed
#: (the signal takes the time it is handled instead).
CLOCK_SKEW = timedelta(hours=1)


def register(app: App, service: "Service", *, seen: Callable[..., bool]) -> None:
    """Listen for reactions added to and removed from messages.

    Args:
        app: the Bolt app.
        service: records the signals (``service.signal_log``).
        seen: ``seen(*keys) -> bool``, the claim of Slack's event keys (True:
            handled before; see ``bot.slack.app.build_app``).
    """

    def listener(added: bool) -> Callable[..., None]:
        def on_reaction(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
            ctx, ts = _about(body, event)
            if ctx is None or event.get("user") == context.bot_user_id:
                return  # not a 👍 / 👎 on a message, or the bot's own
            later(context, lambda: _record(service, seen, body, ctx, ts, event, added))

        return on_reaction

    app.event("reaction_added")(listener(True))
    app.event("reaction_removed")(listener(False))


def _about(body: Mapping[str, Any], event: Mapping[str, Any]) -> tuple[Context | None, str]:
    """``(who reacted where, the message's ts)``; ``(None, "")`` for an event to ignore."""
    item = event.get("item")
    if reaction_kind(event.get("reaction")) is None or not isinstance(item, Mapping) or item.get("type") != "message":
        return None, ""
    channel, ts, user = item.get("channel"), item.get("ts"), event.get("user")
    team = body.get("team_id") or event.get("team") or ""
    if not all(isinstance(v, str) and v for v in (channel, ts, user, team)):
        return None, ""
    return Context(team_id=team, channel_id=channel, user_id=user), ts


def _record(
    service: "Service",
    seen: Callable[..., bool],
    body: Mapping[str, Any],
    ctx: Context,
    ts: str,
    event: Mapping[str, Any],
    added: bool,
) -> None:
    """The job: claim the event once, then record (or take back) the signal."""
    key = f"event:{body.get('event_id')}" if body.get("event_id") else ""
    try:
        if key and seen(key):
            log.info("%s already handled; skipped", key)
            return
        paper = service.signal_log.reaction(ctx, ts, event.get("reaction"), added=added, at=_when(event))
    except Exception:  # noqa: BLE001 — an event has nobody to answer: one line, nothing more
        log.exception("reaction %s on %s %s not recorded", "added" if added else "removed", ctx.channel_id, ts)
        return
    if paper is not None:
        log.debug("reaction %s by %s on %s counted for %s", event.get("reaction"), ctx.user_id, ts, paper)


def _when(event: Mapping[str, Any]) -> datetime | None:
    """The reaction's time from ``event_ts`` (seconds since the epoch, a string);
    None when it is missing, unreadable or too far ahead of this clock."""
    try:
        at = datetime.fromtimestamp(float(event.get("event_ts")), tz=timezone.utc)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    return at if at <= datetime.now(timezone.utc) + CLOCK_SKEW else None
