"""Delivery claims, the persisted paper of the day, and idempotency keys.

Part of ``bot.store.Store``; the methods use ``self._engine``. Every "only
once" guarantee here is a plain INSERT against a primary key, with the
``IntegrityError`` caught: atomic across threads, processes and restarts on
SQLite and PostgreSQL alike (docs/architecture.md "Where a digest is claimed").
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Callable, Iterable

import sqlalchemy as sa

from bot.core.models import Delivery, DeliveryState
from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import UTCDateTime
from bot.store.schema import daily_picks as picks_t
from bot.store.schema import deliveries as deliv_t
from bot.store.schema import handled_events as events_t

#: Every delivery state (``bot.core.models.DeliveryState`` documents each).
STATES = frozenset(DeliveryState)
#: States a claim may be taken over from (``claim_delivery``'s ``reclaim``).
RECLAIMABLE = frozenset({DeliveryState.FAILED, DeliveryState.SKIPPED})


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


def _key(team: str, channel: str, day: date):
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
    """Deliveries (claims), daily picks and handled-event keys."""

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
    def claim_delivery(
        self,
        team: str,
        channel: str,
        day: date,
        paper_id: str,
        *,
        now: datetime | None = None,
        reclaim: Iterable[DeliveryState] = (),
        max_attempts: int | None = None,
    ) -> bool:
        """Claim the right to post ``day``'s digest to a channel; True for exactly one caller.

        A new row is INSERTed in state ``CLAIMED``. When the row exists, it is
        taken over only if its state is in ``reclaim`` (``FAILED``,
        ``SKIPPED``) and, with ``max_attempts``, it was tried fewer times — a
        conditional UPDATE whose row count says who won.

        Args:
            team, channel: Slack ids.
            day: the channel's local date the post is for.
            paper_id: the paper to post.
            now: aware UTC claim time, stored as ``claimed_at`` (default: real clock).
            reclaim: existing ``DeliveryState``s that may be claimed again;
                only those in ``RECLAIMABLE`` count (never ``POSTED``,
                ``CLAIMED`` or ``UNKNOWN``).
            max_attempts: with ``reclaim``, only rows with ``attempts`` below this.

        Returns:
            bool: True when this caller owns the post and must post, then
            call ``finish_delivery`` (or ``release_delivery``).
        """
        now = _now(now)
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    deliv_t.insert().values(
                        team=team,
                        channel=channel,
                        local_date=day,
                        paper_id=paper_id,
                        state=DeliveryState.CLAIMED,
                        claimed_at=now,
                        updated_at=now,
                        attempts=1,
                    )
                )
            return True
        except sa.exc.IntegrityError:
            pass
        states = [s for s in reclaim if s in RECLAIMABLE]
        if not states:
            return False
        where = [_key(team, channel, day), deliv_t.c.state.in_(states)]
        if max_attempts is not None:
            where.append(deliv_t.c.attempts < max_attempts)
        with transaction(self._engine, write=True) as conn:
            result = conn.execute(
                deliv_t.update()
                .where(*where)
                .values(
                    state=DeliveryState.CLAIMED,
                    paper_id=paper_id,
                    message_ts=None,
                    claimed_at=now,
                    updated_at=now,
                    attempts=deliv_t.c.attempts + 1,
                )
            )
            return result.rowcount == 1

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
        where = [_key(team, channel, day)]
        if state != DeliveryState.POSTED:
            where.append(deliv_t.c.state != DeliveryState.POSTED)
        values = {"state": state, "updated_at": _now(now)}
        if message_ts is not None:
            values["message_ts"] = message_ts
        with transaction(self._engine, write=True) as conn:
            conn.execute(deliv_t.update().where(*where).values(**values))

    def release_delivery(self, team: str, channel: str, day: date) -> bool:
        """Drop a claim known to have posted nothing (e.g. the token was revoked).

        Returns:
            bool: True when a ``CLAIMED`` row was deleted.
        """
        with transaction(self._engine, write=True) as conn:
            return (
                conn.execute(
                    deliv_t.delete().where(_key(team, channel, day), deliv_t.c.state == DeliveryState.CLAIMED)
                ).rowcount
                > 0
            )

    def mark_skipped(self, team: str, channel: str, day: date, now: datetime | None = None) -> bool:
        """Record that ``day`` was missed and will not be back-filled.

        Returns:
            bool: True the first time (the caller logs only then); False when
            the day already has any row.
        """
        now = _now(now)
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    deliv_t.insert().values(
                        team=team,
                        channel=channel,
                        local_date=day,
                        paper_id="",
                        state=DeliveryState.SKIPPED,
                        claimed_at=None,
                        updated_at=now,
                        attempts=0,
                    )
                )
            return True
        except sa.exc.IntegrityError:
            return False

    def get_delivery(self, team: str, channel: str, day: date) -> Delivery | None:
        """The delivery row of a channel and date, or None."""
        with transaction(self._engine) as conn:
            row = conn.execute(sa.select(deliv_t).where(_key(team, channel, day))).first()
        return _delivery(row) if row is not None else None

    def deliveries_since(self, day: date, team: str | None = None) -> list[Delivery]:
        """Every delivery row with ``local_date >= day`` (any state), by date."""
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

    # ------------------------------------------------------------ idempotency keys
    def first_time(self, key: str, now: datetime | None = None) -> bool:
        """True the first time ``key`` is seen, False ever after (all processes):
        ``claim_keys([key])``."""
        return self.claim_keys([key], now=now)

    def claim_keys(self, keys: Iterable[str], now: datetime | None = None) -> bool:
        """Claim every key of one event at once: True for exactly one caller.

        All keys are INSERTed in one transaction, in sorted order (so two
        PostgreSQL transactions over overlapping keys wait for each other
        instead of deadlocking). When any key exists the whole claim is rolled
        back: concurrent deliveries of one event — a Slack retry racing the
        original, in one process or several sharing the database — cannot each
        win one key and both give up (docs/architecture.md "Idempotency and the journal").

        Args:
            keys: Slack ``event:<event_id>``, ``msg:<team>:<channel>:<ts>`` …
                (each ≤ 255 chars); duplicates are ignored.
            now: aware UTC time stored with the keys (default: real clock).

        Returns:
            bool: True when none of the keys had been claimed before (they all
            are now); False when any had (none was added).

        Raises:
            ValueError: no keys, or a key empty or longer than 255 characters.
        """
        unique = sorted(set(keys))
        if not unique or any(not key or len(key) > 255 for key in unique):
            raise ValueError("idempotency keys must be 1..255 characters, at least one")
        at = _now(now)
        try:
            with transaction(self._engine, write=True) as conn:
                for key in unique:  # one statement a key: the first conflict stops the claim
                    conn.execute(events_t.insert().values(key=key, at=at))
            return True
        except sa.exc.IntegrityError:
            return False

    def purge_events(self, before: datetime) -> int:
        """Delete idempotency keys stored before ``before``; returns how many."""
        with transaction(self._engine, write=True) as conn:
            return conn.execute(events_t.delete().where(events_t.c.at < before)).rowcount
