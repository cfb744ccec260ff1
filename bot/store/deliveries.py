"""Digest deliveries after their claim, and the persisted paper of the day.

A delivery row is claimed in ``bot.store.claims`` (``claim_delivery``, with
every other claim: docs/architecture.md "Claiming work once"); here its
outcome is recorded (``finish_delivery``) and rows are read back for the
digest's runs and reconciliation. The paper of the day is insert-or-read: the
first pick stored for a date wins. Part of ``bot.store.Store``; the methods use
``self._engine``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Callable

import sqlalchemy as sa

from bot.core.models import Delivery, DeliveryState
from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import UTCDateTime
from bot.store.schema import daily_picks as picks_t
from bot.store.schema import deliveries as deliv_t

#: Every delivery state (``bot.core.models.DeliveryState`` documents each).
STATES = frozenset(DeliveryState)


# Statements the digest runs every tick, built once (SQLAlchemy caches their
# compiled form; building them per call cost more than running them).
_SINCE = (
    sa.select(deliv_t)
    .where(deliv_t.c.local_date >= sa.bindparam("day", type_=sa.Date))
    .order_by(deliv_t.c.local_date, deliv_t.c.team, deliv_t.c.channel)
)
_STALE = (
    sa.select(deliv_t)
    .where(
        deliv_t.c.state == DeliveryState.CLAIMED,
        deliv_t.c.message_ts.is_(None),
        deliv_t.c.claimed_at <= sa.bindparam("before", type_=UTCDateTime),
    )
    .order_by(deliv_t.c.claimed_at)
)


def _now(now: datetime | None) -> datetime:
    return now if now is not None else utc_now()


def delivery_key(team: str, channel: str, day: date):
    """The WHERE clause of one delivery row: ``(team, channel, local_date)``.

    Args:
        team: Slack team id.
        channel: Slack channel id (or a user id: a personal feed).
        day: the channel's local date.
    """
    return sa.and_(deliv_t.c.team == team, deliv_t.c.channel == channel, deliv_t.c.local_date == day)


def _delivery(row) -> Delivery:
    return Delivery(
        team_id=row.team,
        channel_id=row.channel,
        local_date=row.local_date,
        paper_id=row.paper_id or "",
        state=DeliveryState(row.state),
        message_ts=row.message_ts,
    )


class DeliveryStore:
    """Delivery outcomes and reads, and the daily picks."""

    _engine: sa.Engine

    # ------------------------------------------------------------ paper of the day
    def paper_for_date(self, day: date, choose: Callable[[date], str]) -> str:
        """The paper id of ``day``: the stored pick, or ``choose(day)`` stored now.

        Insert-or-read: concurrent first callers each try to INSERT their
        choice; exactly one wins and all return the winner's, so a later
        corpus change never alters a date already picked (docs/interfaces.md "Paper of the day").

        Args:
            day: the local date.
            choose: called only when ``day`` has no pick yet (e.g.
                ``lambda d: rotation.pick(d, index.ids())``).

        Raises:
            Whatever ``choose`` raises (e.g. ValueError for an empty corpus).
        """
        with transaction(self._engine) as conn:
            found = conn.execute(sa.select(picks_t.c.paper_id).where(picks_t.c.local_date == day)).scalar()
        if found is not None:
            return found
        choice = choose(day)  # outside the write lock: it may read a big index
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(picks_t.insert().values(local_date=day, paper_id=choice))
        except sa.exc.IntegrityError:
            pass  # another process picked first: read its pick
        with transaction(self._engine) as conn:
            return conn.execute(sa.select(picks_t.c.paper_id).where(picks_t.c.local_date == day)).scalar_one()

    # ------------------------------------------------------------ deliveries

    def finish_delivery(
        self,
        team: str,
        channel: str,
        day: date,
        *,
        state: DeliveryState,
        message_ts: str | None = None,
        now: datetime | None = None,
    ) -> None:
        """Record the outcome of a claim.

        Args:
            team, channel, day: the claim's key.
            state: ``POSTED`` (give ``message_ts``), ``FAILED`` or ``UNKNOWN``.
            message_ts: Slack ``ts`` of the post.
            now: aware UTC time (default: real clock).

        A ``POSTED`` row is never downgraded by a later ``FAILED``/``UNKNOWN``.

        Raises:
            ValueError: unknown ``state``.
        """
        if state not in STATES - {DeliveryState.SKIPPED}:
            raise ValueError(f"bad delivery state {state!r}")
        where = [delivery_key(team, channel, day)]
        if state != DeliveryState.POSTED:
            where.append(deliv_t.c.state != DeliveryState.POSTED)
        values = {"state": state, "updated_at": _now(now)}
        if message_ts is not None:
            values["message_ts"] = message_ts
        with transaction(self._engine, write=True) as conn:
            conn.execute(deliv_t.update().where(*where).values(**values))

    def get_delivery(self, team: str, channel: str, day: date) -> Delivery | None:
        """The delivery row of a channel and date, or None.

        Args:
            team: Slack team id.
            channel: Slack channel id (or a user id).
            day: the channel's local date.
        """
        with transaction(self._engine) as conn:
            row = conn.execute(sa.select(deliv_t).where(delivery_key(team, channel, day))).first()
        return _delivery(row) if row is not None else None

    def deliveries_since(self, day: date, team: str | None = None) -> list[Delivery]:
        """Every delivery row with ``local_date >= day`` (any state), by date.

        Args:
            day: the first local date included.
            team: only this team's rows (default: every team's).
        """
        query = _SINCE if team is None else _SINCE.where(deliv_t.c.team == team)
        with transaction(self._engine) as conn:
            return [_delivery(r) for r in conn.execute(query, {"day": day})]

    def stale_claims(self, older_than: datetime) -> list[tuple[Delivery, datetime]]:
        """Claims without a ``ts`` made at or before ``older_than``: crashed or stuck posts.

        Returns:
            list of (delivery, claimed_at as aware UTC), oldest first.
        """
        with transaction(self._engine) as conn:
            return [(_delivery(r), r.claimed_at) for r in conn.execute(_STALE, {"before": older_than})]
