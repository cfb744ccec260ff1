"""The journal of acknowledged work: one row per Slack event or command the bot
has acknowledged, so a crash loses nothing (docs/architecture.md "Idempotency and the journal").

A row is written before the request is acknowledged and is *claimed*
(``bot.store.claims.ClaimStore.journal_claim``, with every other claim): it has
an ``owner`` (one process) and a ``lease_until``. Here is the rest of its life:
the owner renews the lease while it works and marks the row done once the
reply is posted. Only a pending row whose lease has expired can be taken over —
by a process finishing a crashed one's work, or by a Slack retry arriving after
the lease ran out — so a retry racing a slow original, or a second process,
never does the work twice.

Part of ``bot.store.Store``; the methods use ``self._engine``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Iterable, NamedTuple

import sqlalchemy as sa

from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import journal as journal_t

#: How long after a reply started going out its row is left alone: a post the
#: process wrote just before it died may still be on its way through Slack, and
#: a retake that read the thread sooner would not see it and post again.
POST_SETTLE = timedelta(seconds=15)


def settled_rows(at: datetime):
    """A row not marked as going out, or marked at least ``POST_SETTLE`` ago."""
    return sa.or_(journal_t.c.posting_at.is_(None), journal_t.c.posting_at < at - POST_SETTLE)


class EntryState(StrEnum):
    """``PENDING``: acknowledged, not yet answered; ``DONE``: answered (or
    nothing to answer); ``EXPIRED``: too old to answer when found."""

    PENDING = "pending"
    DONE = "done"
    EXPIRED = "expired"


class Entry(NamedTuple):
    """A pending journal row: ``key``, ``kind`` ("event"/"command"), the request
    ``payload`` (JSON text), ``received_at`` (aware UTC) and ``attempts`` so far."""

    key: str
    kind: str
    payload: str
    received_at: datetime
    attempts: int


class JournalStore:
    """Journal rows after their claim: renew, finish, defer, find stale ones, expire."""

    _engine: sa.Engine

    def journal_renew(
        self, keys: Iterable[str], owner: str, lease: timedelta, now: datetime | None = None, posting: bool = False
    ) -> int:
        """Extend the lease of ``owner``'s pending rows among ``keys``; returns how many.

        With ``posting``, the same UPDATE also sets ``posting_at`` = now: the
        reply starts going out (the fencing check right before a post), so a
        process taking the row over after a crash knows a reply may be out
        (``journal_posting``).

        Args:
            keys: journal keys.
            owner: this process's id.
            lease: how long the claim holds from ``now``.
            now: aware UTC time (default: real clock).
            posting: also mark the reply as going out.
        """
        keys = list(keys)
        if not keys:
            return 0
        at = utc_now() if now is None else now
        values: dict = {"lease_until": at + lease}
        if posting:
            values["posting_at"] = at
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.update()
                .where(journal_t.c.key.in_(keys), journal_t.c.owner == owner, journal_t.c.state == EntryState.PENDING)
                .values(**values)
            ).rowcount

    def journal_posting(self, key: str) -> bool:
        """Whether a reply to ``key`` started going out (``journal_renew(...,
        posting=True)``) and was not handed back since (``journal_defer(...,
        clear_posting=True)``): after a crash it may or may not have arrived."""
        with transaction(self._engine) as conn:
            return conn.execute(sa.select(journal_t.c.posting_at).where(journal_t.c.key == key)).scalar() is not None

    def journal_done(self, key: str) -> None:
        """Mark ``key`` answered and drop its payload (whoever holds the lease:
        the reply is out)."""
        with transaction(self._engine, write=True) as conn:
            conn.execute(journal_t.update().where(journal_t.c.key == key).values(state=EntryState.DONE, payload=None))

    def journal_defer(self, key: str, owner: str, until: datetime, clear_posting: bool = False) -> bool:
        """Leave ``owner``'s pending row ``key`` for a later attempt: its lease
        ends at ``until``, when any process may take it (``journal_stale``).
        ``clear_posting`` drops the ``posting_at`` mark (Slack said the reply
        was not taken, so sending it again is no double); otherwise a mark is
        moved back so that the row may be retaken at ``until`` (``POST_SETTLE``
        is for posts still in flight; Slack has answered this one). Returns False when
        the row is not this owner's pending one.

        Args:
            key: the journal key.
            owner: this process's id.
            until: aware UTC time the lease ends (the next attempt).
            clear_posting: drop the ``posting_at`` mark (Slack did not take the reply).
        """
        values: dict = {"lease_until": until}
        if clear_posting:
            values["posting_at"] = None
        else:  # Slack answered this attempt: nothing of it is in flight, no need to settle
            values["posting_at"] = sa.case((journal_t.c.posting_at.is_(None), None), else_=until - POST_SETTLE)
        with transaction(self._engine, write=True) as conn:
            return (
                conn.execute(
                    journal_t.update()
                    .where(journal_t.c.key == key, journal_t.c.owner == owner, journal_t.c.state == EntryState.PENDING)
                    .values(**values)
                ).rowcount
                == 1
            )

    def journal_give_up(self, key: str) -> None:
        """Stop trying ``key``: state expired, payload dropped."""
        with transaction(self._engine, write=True) as conn:
            conn.execute(
                journal_t.update()
                .where(journal_t.c.key == key, journal_t.c.state == EntryState.PENDING)
                .values(state=EntryState.EXPIRED, payload=None)
            )

    def journal_stale(
        self, kind: str, received_after: datetime, now: datetime | None = None, limit: int = 100
    ) -> list[Entry]:
        """Pending rows of ``kind`` whose lease expired, received after
        ``received_after`` (still answerable), and not marked as going out in
        the last ``POST_SETTLE``, oldest first.

        Args:
            kind: "event" or "command".
            received_after: oldest receipt time still answerable (aware UTC).
            now: aware UTC time (default: real clock).
            limit: rows returned at most.
        """
        at = utc_now() if now is None else now
        query = (
            sa.select(journal_t)
            .where(
                journal_t.c.kind == kind,
                journal_t.c.state == EntryState.PENDING,
                journal_t.c.lease_until < at,
                journal_t.c.received_at >= received_after,
                settled_rows(at),
            )
            .order_by(journal_t.c.received_at)
            .limit(limit)
        )
        with transaction(self._engine) as conn:
            return [Entry(r.key, r.kind, r.payload or "", r.received_at, r.attempts) for r in conn.execute(query)]

    def journal_expire(self, kind: str, received_before: datetime) -> int:
        """Give up pending rows of ``kind`` received before ``received_before``
        (no longer answerable): state expired, payload dropped. Returns how many.

        Args:
            kind: "event" or "command".
            received_before: rows received before this (aware UTC) are no longer answerable.
        """
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.update()
                .where(
                    journal_t.c.kind == kind,
                    journal_t.c.state == EntryState.PENDING,
                    journal_t.c.received_at < received_before,
                )
                .values(state=EntryState.EXPIRED, payload=None)
            ).rowcount

    def journal_state(self, key: str) -> tuple[EntryState, str, bool] | None:
        """``(state, owner, has payload)`` of ``key``, or None (for checks and tests)."""
        with transaction(self._engine) as conn:
            row = conn.execute(
                sa.select(journal_t.c.state, journal_t.c.owner, journal_t.c.payload).where(journal_t.c.key == key)
            ).first()
        return None if row is None else (EntryState(row.state), row.owner, row.payload is not None)

    def journal_owners(self) -> set[str]:
        """The owners of pending rows."""
        with transaction(self._engine) as conn:
            return set(
                conn.execute(
                    sa.select(journal_t.c.owner).distinct().where(journal_t.c.state == EntryState.PENDING)
                ).scalars()
            )

    def journal_release(self, owner: str, now: datetime | None = None) -> int:
        """End the leases of a known-dead ``owner``'s pending rows now; returns how many.

        Args:
            owner: the dead process's id.
            now: aware UTC time (default: real clock).
        """
        at = utc_now() if now is None else now
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.update()
                .where(journal_t.c.owner == owner, journal_t.c.state == EntryState.PENDING)
                .values(lease_until=at - timedelta(seconds=1))
            ).rowcount
