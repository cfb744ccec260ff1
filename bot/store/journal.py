"""The journal of acknowledged work: one row per Slack event or command the bot
has acknowledged, so a crash loses nothing (docs/architecture.md "Idempotency and the journal").

A row is written before the request is acknowledged and is *claimed*: it has an
``owner`` (one process) and a ``lease_until``. The owner renews the lease while
it works and marks the row done once the reply is posted. Only a pending row
whose lease has expired can be taken over — by a process finishing a crashed
one's work, or by a Slack retry arriving after the lease ran out — so a retry
racing a slow original, or a second process, never does the work twice.

Part of ``bot.store.Store``; the methods use ``self._engine``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Iterable, NamedTuple

import sqlalchemy as sa

from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import handled_events as events_t
from bot.store.schema import journal as journal_t

#: How long a claim waits for another transaction's lock on the same key (a
#: frozen process mid-claim) before it gives up — so the request is answered
#: well within Slack's 3 s (a 500: Slack delivers the event again).
CLAIM_LOCK_TIMEOUT_MS = 2000


#: How long after a reply started going out its row is left alone: a post the
#: process wrote just before it died may still be on its way through Slack, and
#: a retake that read the thread sooner would not see it and post again.
POST_SETTLE = timedelta(seconds=15)


def _settled(at: datetime):
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
    """Journal rows: claim, renew, finish, find stale ones, expire."""

    _engine: sa.Engine

    def journal_claim(
        self,
        key: str,
        *,
        kind: str,
        payload: str,
        owner: str,
        lease: timedelta,
        aliases: Iterable[str] = (),
        now: datetime | None = None,
        answerable_after: datetime | None = None,
    ) -> int:
        """Record ``key`` as this owner's work; the one gate before an acknowledgement.

        The row and every alias key (``handled_events``, e.g. the
        ``msg:<team>:<channel>:<ts>`` of the event's message) are INSERTed in
        one transaction; if any exists, nothing is added. A pending row of
        ``key`` whose lease expired (and received after ``answerable_after``)
        is then taken over by a conditional UPDATE, whose row count says who won.

        Args:
            key: ``event:<event_id>`` or ``cmd:<digest>`` (≤ 255 chars).
            kind: "event" or "command".
            payload: the request body as JSON text (holds a ``response_url``
                for commands: stored, never logged).
            owner: this process's id (``bot.slack.delivery.journal.process_id``).
            lease: how long the claim holds without renewal.
            aliases: other keys of the same event.
            now: aware UTC time (default: real clock).
            answerable_after: a pending row received before this is not taken over.

        Returns:
            int: 0 — another owner has (or had) it: do nothing; 1 — a new claim;
            2 or more — this owner took over an expired claim (the attempt number).

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the database cannot be written, or
                (PostgreSQL) another transaction held ``key`` for more than
                ``CLAIM_LOCK_TIMEOUT_MS``.
        """
        at = utc_now() if now is None else now
        try:
            with transaction(self._engine, write=True, lock_timeout_ms=CLAIM_LOCK_TIMEOUT_MS) as conn:
                conn.execute(
                    journal_t.insert().values(
                        key=key,
                        kind=kind,
                        state=EntryState.PENDING,
                        owner=owner,
                        lease_until=at + lease,
                        received_at=at,
                        attempts=1,
                        payload=payload,
                    )
                )
                for alias in sorted(set(aliases)):  # sorted: overlapping claims never deadlock
                    conn.execute(events_t.insert().values(key=alias, at=at))
            return 1
        except sa.exc.IntegrityError:
            pass
        where = [
            journal_t.c.key == key,
            journal_t.c.state == EntryState.PENDING,
            journal_t.c.lease_until < at,
            _settled(at),
        ]
        if answerable_after is not None:
            where.append(journal_t.c.received_at >= answerable_after)
        with transaction(self._engine, write=True, lock_timeout_ms=CLAIM_LOCK_TIMEOUT_MS) as conn:
            won = (
                conn.execute(
                    journal_t.update()
                    .where(*where)
                    .values(owner=owner, lease_until=at + lease, attempts=journal_t.c.attempts + 1)
                ).rowcount
                == 1
            )
            if not won:
                return 0
            return int(conn.execute(sa.select(journal_t.c.attempts).where(journal_t.c.key == key)).scalar_one())

    def journal_renew(
        self, keys: Iterable[str], owner: str, lease: timedelta, now: datetime | None = None, posting: bool = False
    ) -> int:
        """Extend the lease of ``owner``'s pending rows among ``keys``; returns how many.

        With ``posting``, the same UPDATE also sets ``posting_at`` = now: the
        reply starts going out (the fencing check right before a post), so a
        process taking the row over after a crash knows a reply may be out
        (``journal_posting``).
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
        the row is not this owner's pending one."""
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
        the last ``POST_SETTLE``, oldest first."""
        at = utc_now() if now is None else now
        query = (
            sa.select(journal_t)
            .where(
                journal_t.c.kind == kind,
                journal_t.c.state == EntryState.PENDING,
                journal_t.c.lease_until < at,
                journal_t.c.received_at >= received_after,
                _settled(at),
            )
            .order_by(journal_t.c.received_at)
            .limit(limit)
        )
        with transaction(self._engine) as conn:
            return [Entry(r.key, r.kind, r.payload or "", r.received_at, r.attempts) for r in conn.execute(query)]

    def journal_expire(self, kind: str, received_before: datetime) -> int:
        """Give up pending rows of ``kind`` received before ``received_before``
        (no longer answerable): state expired, payload dropped. Returns how many."""
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
        """End the leases of a known-dead ``owner``'s pending rows now; returns how many."""
        at = utc_now() if now is None else now
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.update()
                .where(journal_t.c.owner == owner, journal_t.c.state == EntryState.PENDING)
                .values(lease_until=at - timedelta(seconds=1))
            ).rowcount

    def purge_journal(self, before: datetime) -> int:
        """Delete finished (done or expired) rows received before ``before``."""
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.delete().where(journal_t.c.state != EntryState.PENDING, journal_t.c.received_at < before)
            ).rowcount
