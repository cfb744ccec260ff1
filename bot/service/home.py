"""What the App Home tab shows one viewer (issue 5 item 4, issue 13): today's
paper in ``PAPERBOT_DEFAULT_TZ``, then the viewer's personal feed (if any),
then the team's channel subscriptions (active and deactivated) the viewer is
a member of, each with its next post time.

The data only: ``bot.render.home.home_view`` draws it and ``bot.slack.listeners.common.publish_home``
publishes it (with a page of the viewer's reading list,
``bot.service.reading_list``). Service layer: no Slack types; whether the
viewer is in a channel is asked through the ``is_member`` callable the Slack
layer passes in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Callable, NamedTuple

from bot.core.models import Context, Examples, Paper, Subscription
from bot.core.store_port import SubscriptionRecords
from bot.daily.post_times import next_post_time
from bot.service.subscriptions import Subscriptions


class HomeChannel(NamedTuple):
    """One line of the Home tab's channel list.

    Attributes:
        subscription: the channel's subscription, or the viewer's personal feed.
        next_post: when its next paper appears (aware, in its zone); None
            when it is deactivated.
    """

    subscription: Subscription
    next_post: datetime | None


@dataclass(frozen=True)
class HomeTab:
    """What the App Home shows one viewer.

    Attributes:
        today: the paper of the day in ``PAPERBOT_DEFAULT_TZ``; None for an empty index.
        day: its local date.
        channels: the viewer's personal feed first (if any), then the team's
            channel subscriptions the viewer is a member of.
        examples: papers and topics of the loaded index for the how-to.
    """

    today: Paper | None
    day: date
    channels: tuple[HomeChannel, ...]
    examples: Examples = Examples()


class AppHome:
    """Builds the ``HomeTab`` of a viewer.

    Args:
        subs: the channel subscriptions (``paper_of_the_day``).
        store: the store's subscription records (``get_subscription``, ``subscriptions``).
        now: the clock (aware UTC datetimes).
    """

    def __init__(self, subs: Subscriptions, store: SubscriptionRecords, now: Callable[[], datetime]) -> None:
        self._subs, self._store, self._now = subs, store, now

    def for_viewer(self, ctx: Context, is_member: Callable[[str], bool]) -> HomeTab:
        """The Home tab of ``ctx.user_id``.

        Args:
            ctx: the viewer (team and user; no channel).
            is_member: ``is_member(channel_id) -> bool`` — whether the viewer is
                in that channel (the Slack layer asks Slack; errors → False).
        """
        today, day = self._subs.paper_of_the_day(Context(ctx.team_id, "", ctx.user_id))
        channels = []
        feed = self._store.get_subscription(ctx.team_id, ctx.user_id) if ctx.user_id else None
        if feed is not None:  # the viewer's personal feed first (issue 13)
            channels.append(self._line(feed))
        for sub in self._store.subscriptions(team=ctx.team_id):
            if not sub.personal and is_member(sub.channel_id):
                channels.append(self._line(sub))
        return HomeTab(today=today, day=day, channels=tuple(channels))

    def _line(self, sub: Subscription) -> HomeChannel:
        return HomeChannel(sub, next_post_time(sub, self._now()) if sub.active else None)
