"""Channel subscriptions from the user's side: subscribe, unsubscribe, status,
and today's paper for a channel (issue 3 item 2; docs/interfaces.md "Paper of the day").

The channel-visible confirmation of a subscribe goes through an injected
``bot.ports.ChannelAnnouncer`` (in Slack: rendered and sent with
``chat.postMessage``): that post is also the check that the bot can write
there — in a private channel it is not in, Slack answers
``channel_not_found``/``not_in_channel`` and the user is told to
``/invite @paperbot``. Service layer: imports no renderer, no Slack, no
digest (docs/architecture.md "Layers").
"""
from __future__ import annotations

import logging
from datetime import date, datetime
from typing import Callable
from zoneinfo import ZoneInfo

from bot import parsing, rotation
from bot.config import Settings
from bot.slots import next_post_time
from bot.models import Context, Paper
from bot.ports import ChannelAnnouncer, PostError
from bot.replies import IN_CHANNEL, ErrorReply, NoticeReply, Reply, StatusReply

log = logging.getLogger(__name__)

INVITE_HINT = ("I can't post in this channel. If it is private, invite me first with "
               "`/invite @paperbot`, then run `/paper subscribe` again.")


class Subscriptions:
    """Subscribe/unsubscribe/status for the channel in a ``Context``.

    Args:
        index: the search index (``ids()``, ``get(id)``).
        store: ``bot.store.Store``.
        settings: default time (``PAPERBOT_DEFAULT_TIME``) and zone (``PAPERBOT_DEFAULT_TZ``).
        announcer: where the channel confirmation goes; None → no confirmation.
        now: clock returning an aware UTC datetime.
    """

    def __init__(self, index, store, settings: Settings, announcer: ChannelAnnouncer | None,
                 now: Callable[[], datetime]) -> None:
        self.index, self.store, self.settings, self.now = index, store, settings, now
        self.announcer = announcer

    def subscribe(self, arg: str, ctx: Context) -> Reply:
        """``/paper subscribe [HH:MM] [zone]`` — create or change this channel's slot.

        Posts a channel-visible confirmation naming the user; returns an
        ephemeral note with the next post time, or an ``ErrorReply`` (bad time
        or zone; "/invite @paperbot" when the bot cannot post there).
        """
        try:
            hhmm, zone = parsing.parse_subscribe(arg, None)
        except parsing.SubscribeError as e:
            return ErrorReply(message=str(e), example="/paper subscribe 09:30 Europe/Berlin")
        current = self.store.get_subscription(ctx.team_id, ctx.channel_id)
        # A part left out keeps the channel's current value; a new subscription
        # takes PAPERBOT_DEFAULT_TIME and the user's Slack zone (else the default).
        hhmm = hhmm or (current.local_time if current else self.settings.default_time)
        zone = zone or (current.tz if current else None) \
            or parsing.canonical_zone(ctx.user_tz or "") or self.settings.default_tz
        new, previous = self.store.upsert_subscription(ctx.team_id, ctx.channel_id, hhmm, zone,
                                                       ctx.user_id, self.now())
        if previous is not None and previous.active:
            text = (f"changed this channel's paper of the day to {hhmm} ({zone}); "
                    f"it was {previous.local_time} ({previous.tz}).")
        else:
            text = f"subscribed this channel to a paper of the day at {hhmm} ({zone})."
        if self.announcer is not None:
            notice = NoticeReply(text=text, actor=ctx.user_id, visibility=IN_CHANNEL)
            try:
                self.announcer.announce(ctx.channel_id, notice)
            except PostError as e:
                self._restore(ctx, previous)
                if e.code in ("not_in_channel", "channel_not_found"):
                    return ErrorReply(message=INVITE_HINT.replace("`", ""), example="/invite @paperbot")
                log.warning("subscribe confirmation failed in %s: %s", ctx.channel_id, e.code)
                return ErrorReply(message=f"Slack refused my confirmation post ({e.code}); "
                                          "nothing was changed.", example="/paper status")
        when = next_post_time(new, self.now())
        return NoticeReply(text=f"Done. Next paper of the day: {_fmt(when)}.")

    def unsubscribe(self, ctx: Context) -> Reply:
        """``/paper unsubscribe`` — stop this channel's daily post."""
        if self.store.remove_subscription(ctx.team_id, ctx.channel_id):
            return NoticeReply(text="Unsubscribed: no more paper of the day in this channel.")
        return NoticeReply(text="This channel has no paper of the day to stop.")

    def status(self, ctx: Context) -> Reply:
        """``/paper status`` — this channel's slot and next post, or why it is off."""
        sub = self.store.get_subscription(ctx.team_id, ctx.channel_id)
        when = next_post_time(sub, self.now()) if sub is not None and sub.active else None
        return StatusReply(subscription=sub, next_post=when)

    def paper_of_the_day(self, ctx: Context) -> tuple[Paper | None, date]:
        """Today's paper in the channel's zone (its subscription's, else the default).

        The pick is persisted by the store the first time a date is asked for,
        so the digest, ``/paper today`` and every process agree.
        """
        sub = self.store.get_subscription(ctx.team_id, ctx.channel_id)
        zone = ZoneInfo(sub.tz if sub is not None else self.settings.default_tz)
        day = self.now().astimezone(zone).date()
        ids = self.index.ids()
        if not ids:
            return None, day
        paper_id = self.store.paper_for_date(day, lambda d: rotation.pick(d, ids))
        return self.index.get(paper_id), day

    def _restore(self, ctx: Context, previous) -> None:
        if previous is None:
            self.store.remove_subscription(ctx.team_id, ctx.channel_id)
            return
        self.store.upsert_subscription(ctx.team_id, ctx.channel_id, previous.local_time, previous.tz,
                                       previous.subscribed_by, self.now())
        if not previous.active:
            self.store.deactivate(ctx.team_id, ctx.channel_id, previous.inactive_reason or "inactive")


def _fmt(when: datetime | None) -> str:
    return when.strftime("%a %d %b %Y, %H:%M %Z") if when else "unknown"
