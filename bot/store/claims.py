"""Claiming work once: the one module where the store gives a key to exactly one caller
(docs/architecture.md "Claiming work once").

Every claim is an INSERT against a primary key with the ``IntegrityError``
caught (``_insert_once``): atomic across threads, processes and restarts, on
SQLite and PostgreSQL alike. (On SQLite, journal claims made at the same moment
share one transaction, ``bot.store.claim_batches``: each is still all or
nothing, its keys read and written under the write lock.) Where a claim may pass to another caller, a
conditional UPDATE whose row count says who won (``_took_over``) takes it over.
Three meanings, kept apart because they differ:

- **once** (table ``claims``, key ``(kind, key)``): claimed for good by one
  caller, never taken over. Kind ``"event"``: a Slack event's keys
  (``claim_keys``: ``event:<event_id>``, ``msg:<team>:<channel>:<ts>``), also
  written with a journal claim. Kinds ``"onboard"`` and ``"share"``: marks
  (``mark_once``, with a short ``detail``); a share whose post failed is
  released (``unmark``) so it can be tried again. Kind ``"rotation"``: the
  process that renews an expiring token (``bot.slack.oauth.rotation``).
- **leased** (table ``journal``, key ``event:<event_id>`` / ``cmd:<hash>``,
  ``journal_claim``): owned by one process for a lease; taken over when the
  lease expired unanswered (``bot.store.journal`` renews, finishes and lists them).
- **reclaimable** (table ``deliveries``, key ``(team, channel, local_date)``,
  ``claim_delivery``): one digest post per channel and day, with an outcome;
  a failed one may be claimed again (the clock's run, up to a number of
  attempts), a failed or skipped one by ``digest send`` (``bot.store.deliveries``
  records outcomes).

Retention: one policy per kind (``KEPT``) and one purge owner. ``purge_claims``
is called once an hour by the journal loop
(``bot.slack.delivery.journal.Journal.run``), i.e. by ``paperbot serve`` and
``paperbot socket``, the processes that handle Slack's events — never by the
digest:

- ``"event"`` keys: ``KEPT["event"]`` (7 days), purged by ``purge_claims``;
- ``"rotation"`` claims: ``KEPT["rotation"]`` (1 day), purged by ``purge_claims``;
- finished journal rows: ``KEPT["journal"]`` (7 days), purged by ``purge_claims``;
  pending ones stay until answered or expired (``bot.store.journal``);
- ``"onboard"`` and ``"share"`` marks: for good (a share whose post failed is
  released with ``unmark``, by the sharer);
- deliveries: for good, one row per channel and day (the digest's record).

Part of ``bot.store.Store``; the methods use ``self._engine``.
"""

from __future__ import annotations

import threading
import time
from datetime import date, datetime, timedelta
from typing import Iterable

import sqlalchemy as sa

from bot.core.models import DeliveryState
from bot.daily.post_times import utc_now
from bot.store.claim_batches import ClaimBatches
from bot.store.db import transaction
from bot.store.deliveries import delivery_key
from bot.store.journal import EntryState, settled_rows
from bot.store.schema import claims as claims_t
from bot.store.schema import deliveries as deliv_t
from bot.store.schema import journal as journal_t

#: The kind of a Slack event's keys in ``claims``.
EVENT = "event"
#: How long finished claims are kept, by kind; a kind not here is kept for good.
#: ``"event"``: Slack retries an event for about 5 minutes (docs/platform-facts.md
#: "Slack timing and retries"), but an edit keeps its message's ``ts`` and can come
#: much later, hence days. ``"journal"``: finished rows, for looking back at what was answered.
#: ``"rotation"``: a token renewal claimed by one process (``bot.slack.oauth.rotation``; a
#: claim names a ten-minute window, so a day is ample).
KEPT = {EVENT: timedelta(days=7), "journal": timedelta(days=7), "rotation": timedelta(days=1)}
KIND_MAX = 32
KEY_MAX = 255
DETAIL_MAX = 200
#: States a delivery claim may be taken over from (``claim_delivery``'s ``reclaim``).
RECLAIMABLE = frozenset({DeliveryState.FAILED, DeliveryState.SKIPPED})
#: How long a journal claim waits, in all, for a lock another transaction holds —
#: on PostgreSQL the key's row (a frozen process mid-claim), on SQLite the
#: database's write lock (a backup, a ``VACUUM``, a stalled process) — before it
#: gives up, so the request is answered well within Slack's 3 s: a command
#: without the journal, an event with a 500 that Slack delivers again
#: (docs/architecture.md "Idempotency and the journal").
CLAIM_LOCK_TIMEOUT_MS = 1500


def _took_over(conn: sa.Connection, table: sa.Table, where: list, values: dict) -> bool:
    """The conditional UPDATE of a takeover: True when this caller's changed the one row."""
    return conn.execute(table.update().where(*where).values(**values)).rowcount == 1


def _once_rows(kind: str, keys: Iterable[str], at: datetime, detail: str | None = None) -> list[tuple]:
    """``claims`` rows for ``keys`` of ``kind``, sorted (so two PostgreSQL
    transactions over overlapping keys wait for each other instead of deadlocking).

    Raises:
        ValueError: no keys, ``kind`` not 1..32 characters, or a key not 1..255.
    """
    unique = sorted(set(keys))
    if not unique or not 0 < len(kind) <= KIND_MAX or any(not 0 < len(key) <= KEY_MAX for key in unique):
        raise ValueError("a claim needs a kind of 1..32 and keys of 1..255 characters, at least one")
    note = (detail or None) and detail[:DETAIL_MAX]
    return [(claims_t, {"kind": kind, "key": key, "at": at, "detail": note}) for key in unique]


_BATCHES_MADE = threading.Lock()


class ClaimStore:
    """Claims of every kind; mixed into ``bot.store.Store`` (needs ``_engine``)."""

    _engine: sa.Engine
    _claim_batches: ClaimBatches | None = None

    def _batches(self) -> ClaimBatches:
        """This store's group commit of SQLite journal claims (``bot.store.claim_batches``)."""
        if self._claim_batches is None:
            with _BATCHES_MADE:
                if self._claim_batches is None:
                    self._claim_batches = ClaimBatches(self._engine, self._insert_once)
        return self._claim_batches

    def _insert_once(self, rows: list[tuple], lock_timeout_ms: int | None = None) -> bool:
        """INSERT every ``(table, values)`` row in one transaction, one statement
        each; True when all were new, False (nothing added) when any key existed."""
        try:
            with transaction(self._engine, write=True, lock_timeout_ms=lock_timeout_ms) as conn:
                for table, values in rows:
                    conn.execute(table.insert().values(**values))
            return True
        except sa.exc.IntegrityError:
            return False

    # ------------------------------------------------------------ once
    def claim_keys(self, keys: Iterable[str], now: datetime | None = None) -> bool:
        """Claim every key of one Slack event at once: True for exactly one caller.

        When any key exists the whole claim is rolled back: concurrent
        deliveries of one event — a Slack retry racing the original, in one
        process or several sharing the database — cannot each win one key and
        both give up (docs/architecture.md "Idempotency and the journal").

        Args:
            keys: ``event:<event_id>``, ``msg:<team>:<channel>:<ts>`` … (each
                ≤ 255 chars); duplicates are ignored.
            now: aware UTC time stored with the keys (default: real clock).

        Returns:
            bool: True when none of the keys had been claimed before (they all
            are now); False when any had (none was added).

        Raises:
            ValueError: no keys, or a key empty or longer than 255 characters.
        """
        return self._insert_once(_once_rows(EVENT, keys, utc_now() if now is None else now))

    def first_time(self, key: str, now: datetime | None = None) -> bool:
        """True the first time ``key`` is seen, False ever after (all processes):
        ``claim_keys([key])``.

        Args:
            key: the key (≤ 255 chars).
            now: aware UTC time stored with it (default: the real clock).
        """
        return self.claim_keys([key], now=now)

    def mark_once(self, kind: str, key: str, detail: str | None = None, now: datetime | None = None) -> bool:
        """Record ``(kind, key)``; True the first time, False ever after.

        Args:
            kind: "onboard" or "share" (≤ 32 chars).
            key: what was done (≤ 255 chars).
            detail: a short note kept with it (≤ 200 chars; cut), or None.
            now: aware UTC time stored with it (default: the real clock).

        Raises:
            ValueError: ``kind`` or ``key`` empty or too long.
        """
        return self._insert_once(_once_rows(kind, [key], utc_now() if now is None else now, detail))

    def mark(self, kind: str, key: str) -> tuple[bool, str | None]:
        """``(found, detail)`` for ``(kind, key)``: whether it was claimed, and its note.

        Args:
            kind: the mark's kind ("onboard", "share").
            key: what was done.
        """
        with transaction(self._engine) as conn:
            row = conn.execute(
                sa.select(claims_t.c.detail).where(claims_t.c.kind == kind, claims_t.c.key == key)
            ).first()
        return (row is not None, row.detail if row is not None else None)

    def unmark(self, kind: str, key: str) -> None:
        """Release ``(kind, key)`` (a share whose post failed may be tried again).

        Args:
            kind: the mark's kind ("onboard", "share").
            key: what was done.
        """
        with transaction(self._engine, write=True) as conn:
            conn.execute(claims_t.delete().where(claims_t.c.kind == kind, claims_t.c.key == key))

    # ------------------------------------------------------------ leased
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
        lock_timeout_ms: int = CLAIM_LOCK_TIMEOUT_MS,
    ) -> int:
        """Record ``key`` as this owner's work; the one gate before an acknowledgement.

        The journal row and every alias key (``"event"`` claims, e.g. the
        ``msg:<team>:<channel>:<ts>`` of the event's message) are INSERTed in
        one transaction; if any exists, nothing is added. On SQLite that
        transaction is shared with the claims made at the same moment by other
        threads (group commit, ``bot.store.claim_batches``), each still all or
        nothing and answered only once committed. A pending row of
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
            lock_timeout_ms: the most both transactions together wait for a
                lock (default ``CLAIM_LOCK_TIMEOUT_MS``).

        Returns:
            int: 0 — another owner has (or had) it: do nothing; 1 — a new claim;
            2 or more — this owner took over an expired claim (the attempt number).

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the database cannot be written, or
                another transaction held the lock it needs (PostgreSQL: ``key``'s
                row; SQLite: the write lock) for more than ``lock_timeout_ms``.
        """
        deadline = time.monotonic() + lock_timeout_ms / 1000
        at, aliases = (utc_now() if now is None else now), list(aliases)
        row = dict(key=key, kind=kind, state=EntryState.PENDING, owner=owner, lease_until=at + lease)
        row.update(received_at=at, attempts=1, payload=payload)
        rows = [(journal_t, row), *(_once_rows(EVENT, aliases, at) if aliases else [])]
        if self._engine.dialect.name == "sqlite":  # one writer at a time: concurrent claims share a transaction
            inserted = self._batches().insert(rows, lock_timeout_ms)
        else:
            inserted = self._insert_once(rows, lock_timeout_ms=lock_timeout_ms)
        if inserted:
            return 1
        where = [
            journal_t.c.key == key,
            journal_t.c.state == EntryState.PENDING,
            journal_t.c.lease_until < at,
            settled_rows(at),
        ]
        if answerable_after is not None:
            where.append(journal_t.c.received_at >= answerable_after)
        values = {"owner": owner, "lease_until": at + lease, "attempts": journal_t.c.attempts + 1}
        left_ms = max(1, int((deadline - time.monotonic()) * 1000))
        with transaction(self._engine, write=True, lock_timeout_ms=left_ms) as conn:
            if not _took_over(conn, journal_t, where, values):
                return 0
            return int(conn.execute(sa.select(journal_t.c.attempts).where(journal_t.c.key == key)).scalar_one())

    # ------------------------------------------------------------ reclaimable
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
            team: Slack team id.
            channel: Slack channel id (or a user id: a personal feed).
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
        at = utc_now() if now is None else now
        claimed = dict(state=DeliveryState.CLAIMED, paper_id=paper_id, claimed_at=at, updated_at=at)
        if self._insert_once([(deliv_t, dict(claimed, team=team, channel=channel, local_date=day, attempts=1))]):
            return True
        states = [s for s in reclaim if s in RECLAIMABLE]
        if not states:
            return False
        where = [delivery_key(team, channel, day), deliv_t.c.state.in_(states)]
        if max_attempts is not None:
            where.append(deliv_t.c.attempts < max_attempts)
        with transaction(self._engine, write=True) as conn:
            return _took_over(conn, deliv_t, where, dict(claimed, message_ts=None, attempts=deliv_t.c.attempts + 1))

    def mark_skipped(self, team: str, channel: str, day: date, now: datetime | None = None) -> bool:
        """Record that ``day`` was missed and will not be back-filled (a claim in
        state ``SKIPPED``, which only ``digest send`` reclaims).

        Args:
            team: Slack team id.
            channel: Slack channel id (or a user id: a personal feed).
            day: the channel's local date that was missed.
            now: aware UTC time stored as ``updated_at`` (default: real clock).

        Returns:
            bool: True the first time (the caller logs only then); False when
            the day already has any row.
        """
        at = utc_now() if now is None else now
        row = dict(team=team, channel=channel, local_date=day, paper_id="", state=DeliveryState.SKIPPED)
        return self._insert_once([(deliv_t, dict(row, claimed_at=None, updated_at=at, attempts=0))])

    def release_delivery(self, team: str, channel: str, day: date) -> bool:
        """Drop a claim known to have posted nothing (e.g. the token was revoked).

        Args:
            team: Slack team id.
            channel: Slack channel id (or a user id).
            day: the channel's local date of the claim.

        Returns:
            bool: True when a ``CLAIMED`` row was deleted.
        """
        with transaction(self._engine, write=True) as conn:
            where = [delivery_key(team, channel, day), deliv_t.c.state == DeliveryState.CLAIMED]
            return conn.execute(deliv_t.delete().where(*where)).rowcount > 0

    # ------------------------------------------------------------ retention
    def purge_claims(self, now: datetime | None = None) -> int:
        """Delete what ``KEPT`` says is old: ``"event"`` keys, ``"rotation"`` claims and
        finished journal rows. Its one caller is the journal loop (module docstring). Returns how many."""
        at = utc_now() if now is None else now
        old_rotations = self.purge_events(at - KEPT["rotation"], kind="rotation")
        return self.purge_events(at - KEPT[EVENT]) + old_rotations + self.purge_journal(at - KEPT["journal"])

    def purge_events(self, before: datetime, kind: str = EVENT) -> int:
        """Delete the claims of ``kind`` (default ``"event"`` keys) made before ``before``; returns how many.

        Args:
            before: aware UTC time.
            kind: a kind of ``KEPT``.
        """
        with transaction(self._engine, write=True) as conn:
            return conn.execute(claims_t.delete().where(claims_t.c.kind == kind, claims_t.c.at < before)).rowcount

    def purge_journal(self, before: datetime) -> int:
        """Delete finished (done or expired) journal rows received before ``before``."""
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                journal_t.delete().where(journal_t.c.state != EntryState.PENDING, journal_t.c.received_at < before)
            ).rowcount
