"""Channel subscriptions in the SQL store (one row per team and channel).

Part of ``bot.store.Store``; the methods use ``self._engine``.
"""

from __future__ import annotations

import re
from datetime import datetime

import sqlalchemy as sa

from bot.core.models import Subscription
from bot.daily.post_times import utc_now
from bot.daily.subscribe_grammar import format_days, parse_days
from bot.store.db import transaction
from bot.store.schema import subscriptions as subs_t

_HHMM = re.compile(r"([01]\d|2[0-3]):[0-5]\d")
#: Default of the ``topic``/``days``/``papers`` arguments: keep the stored value.
KEEP = object()


_ALL = sa.select(subs_t).order_by(subs_t.c.team, subs_t.c.channel)
_ACTIVE = _ALL.where(subs_t.c.active == sa.true())  # every digest tick reads this


def _now(now: datetime | None) -> datetime:
    return now if now is not None else utc_now()


def _subscription(row) -> Subscription:
    return Subscription(
        team_id=row.team,
        channel_id=row.channel,
        local_time=row.local_time,
        tz=row.tz,
        active=bool(row.active),
        inactive_reason=row.inactive_reason,
        subscribed_by=row.subscribed_by,
        created_at=row.created_at,
        updated_at=row.updated_at or row.created_at,
        topic=row.topic or None,
        days=parse_days(row.days),
        papers=int(row.papers or 1),
        recommend=bool(row.recommend),
    )


def _key(team: str, channel: str):
    return sa.and_(subs_t.c.team == team, subs_t.c.channel == channel)


class SubscriptionStore:
    """Subscriptions: create/change, read, remove, deactivate."""

    _engine: sa.Engine

    def upsert_subscription(
        self,
        team: str,
        channel: str,
        local_time: str,
        tz: str,
        user_id: str | None,
        now: datetime | None = None,
        *,
        topic=KEEP,
        days=KEEP,
        papers=KEEP,
        recommend=KEEP,
    ) -> tuple[Subscription, Subscription | None]:
        """Create the channel's subscription, or change its post time and re-activate it.

        ``updated_at`` moves to ``now`` only when the post time (time, zone) or the
        active flag changes: the digest counts a post time only from then on, so a
        subscription made after today's post time starts tomorrow (docs/interfaces.md "Paper
        of the day"). ``subscribed_by`` always becomes ``user_id``.

        Args:
            team, channel: Slack ids.
            local_time: "HH:MM", 24-hour, zero-padded ("09:30").
            tz: IANA zone name ("Europe/Berlin"); not validated here.
            user_id: Slack user id of who did it, or None.
            now: aware UTC time of the change (default: the real clock).
            topic: the topic query (None or "" = whole corpus); ``KEEP``: unchanged.
            days: posting weekdays (Monday 0; ``()`` = every day); ``KEEP``: unchanged.
            papers: papers per post, 1..5; ``KEEP``: unchanged.
            recommend: True posts what the reader's signals pick (``for me`` / ``for this
                channel``, issue 22), False the rotation; ``KEEP``: unchanged.

        Returns:
            (new, previous): the stored subscription and the one it replaced
            (None when the channel had none).

        Raises:
            ValueError: ``local_time`` is not "HH:MM" or ``tz`` is empty.
        """
        if not _HHMM.fullmatch(local_time or ""):
            raise ValueError(f"local_time must be HH:MM (00:00-23:59), got {local_time!r}")
        if not tz:
            raise ValueError("tz must be an IANA zone name")
        now = _now(now)
        extra = {}
        if topic is not KEEP:
            extra["topic"] = (topic or None) and topic[:200]
        if days is not KEEP:
            extra["days"] = format_days(days)
        if papers is not KEEP:
            if not 1 <= int(papers) <= 5:
                raise ValueError(f"papers must be 1..5, got {papers!r}")
            extra["papers"] = int(papers)
        if recommend is not KEEP:
            extra["recommend"] = bool(recommend)
        for attempt in range(2):  # a concurrent first insert → retry as an update
            try:
                with transaction(self._engine, write=True) as conn:
                    row = conn.execute(sa.select(subs_t).where(_key(team, channel)).with_for_update()).first()
                    if row is None:
                        conn.execute(
                            subs_t.insert().values(
                                team=team,
                                channel=channel,
                                local_time=local_time,
                                tz=tz,
                                active=True,
                                inactive_reason=None,
                                subscribed_by=user_id,
                                created_at=now,
                                updated_at=now,
                                **extra,
                            )
                        )
                        previous = None
                    else:
                        previous = _subscription(row)
                        changed = (previous.local_time, previous.tz, previous.active) != (local_time, tz, True)
                        conn.execute(
                            subs_t.update()
                            .where(_key(team, channel))
                            .values(
                                local_time=local_time,
                                tz=tz,
                                active=True,
                                inactive_reason=None,
                                subscribed_by=user_id,
                                updated_at=now if changed else previous.updated_at,
                                **extra,
                            )
                        )
                    new = _subscription(conn.execute(sa.select(subs_t).where(_key(team, channel))).one())
                    return new, previous
            except sa.exc.IntegrityError:
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def get_subscription(self, team: str, channel: str) -> Subscription | None:
        """The channel's subscription (active or not), or None.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
        """
        with transaction(self._engine) as conn:
            row = conn.execute(sa.select(subs_t).where(_key(team, channel))).first()
        return _subscription(row) if row is not None else None

    def remove_subscription(self, team: str, channel: str) -> bool:
        """Delete the channel's subscription; True when there was one.

        Its delivery rows stay, so re-subscribing the same day cannot post twice.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
        """
        with transaction(self._engine, write=True) as conn:
            return conn.execute(subs_t.delete().where(_key(team, channel))).rowcount > 0

    def subscriptions(self, team: str | None = None, active_only: bool = False) -> list[Subscription]:
        """Subscriptions ordered by (team, channel).

        Args:
            team: only this team's, or all when None.
            active_only: leave out deactivated ones.
        """
        query = _ACTIVE if active_only else _ALL
        if team is not None:
            query = query.where(subs_t.c.team == team)
        with transaction(self._engine) as conn:
            return [_subscription(r) for r in conn.execute(query)]

    def deactivate_teams(self, teams: list[str], reason: str, now: datetime | None = None) -> list[tuple[str, str]]:
        """Turn off every active subscription of ``teams`` (the app left those
        workspaces), storing why; they stay, shown as off, until re-subscribed.

        Args:
            teams: Slack team ids.
            reason: e.g. "app_uninstalled", shown by ``/paper status``.
            now: aware UTC time (default: the real clock).

        Returns:
            list[tuple[str, str]]: ``(team, channel)`` of each subscription turned off, sorted.
        """
        if not teams:
            return []
        where = [subs_t.c.team.in_(list(teams)), subs_t.c.active == sa.true()]
        with transaction(self._engine, write=True) as conn:
            rows = conn.execute(sa.select(subs_t.c.team, subs_t.c.channel).where(*where)).all()
            conn.execute(
                subs_t.update().where(*where).values(active=False, inactive_reason=reason[:200], updated_at=_now(now))
            )
        return sorted((r.team, r.channel) for r in rows)

    def deactivate(self, team: str, channel: str, reason: str, now: datetime | None = None) -> bool:
        """Turn an active subscription off, storing why (e.g. "is_archived").

        Args:
            team, channel: Slack ids.
            reason: Slack error code or short text, shown by ``/paper status``.
            now: aware UTC time (default: the real clock).

        Returns:
            bool: True when it was active (the caller logs only then: "log once").
        """
        with transaction(self._engine, write=True) as conn:
            result = conn.execute(
                subs_t.update()
                .where(_key(team, channel), subs_t.c.active == sa.true())
                .values(active=False, inactive_reason=reason[:200], updated_at=_now(now))
            )
            return result.rowcount > 0
