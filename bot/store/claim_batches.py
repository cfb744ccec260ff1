"""Group commit of SQLite journal claims: concurrent claims share one write transaction.

Every acknowledged ``/paper`` command and answered event is claimed in the store before its
ack (``bot.store.claims.ClaimStore.journal_claim``). SQLite has one writer at a time, so 50
commands arriving together made 50 write transactions one after the other, each taking this
process's writer gate (``bot.store.db._one_writer``) and the GIL again for every statement
while two work slots searched: measured with ``benchmarks/ack_cpu.py``, a claim used about
1 ms of CPU but waited about 200 ms for the gate, most of each ack's time
(docs/architecture.md "Group commit of claims").

Here the first claim to arrive leads: it opens one ``BEGIN IMMEDIATE`` transaction (waiting
for the gate and the lock as one claim did), then takes every claim waiting at that moment —
those that came while it waited for the lock too, at most ``BATCH_MAX`` — reads which of their
keys exist (two SELECTs), INSERTs the rows of every claim whose keys are all new (one
``executemany`` per table) and commits; claims that arrive meanwhile wait and form the next
batch, led by one of them. A claim that finds itself alone INSERTs its rows with no SELECT, a
conflict rolling them back, as before batching. A claim's answer is given only after the
commit, so one that answers "new" is on disk as before. Semantics are those of one
transaction per claim:

- a claim is all-or-nothing: when any of its keys exists (in the database, or claimed by an
  earlier claim of the same batch — two deliveries of one event in one batch), none of its
  rows is added and it answers "exists", and the caller goes on to its takeover UPDATE;
- holding SQLite's write lock from ``BEGIN IMMEDIATE`` to the commit, no other connection
  can add a key between the SELECT and the INSERT (https://sqlite.org/lang_transaction.html);
- the leader waits for the lock at most the smallest time left to the claims waiting when it
  starts (``lock_timeout_ms``: the journal's 1.5 s bound counts from each claim's own start);
  when the lock is not had by then, the claims whose time is up get the error and the others
  stay queued, led next with the time they have left; a claim whose own bound passes before a
  batch took it leaves the queue with the same error (``database is locked``), so no claim
  waits for a lock past its own bound, nor fails before it. When the database fails otherwise
  (it cannot be written), or fails under the lock, the claims it failed for get the error and
  nothing of their batch is written — as each claim alone would have;
- an ``IntegrityError`` the SELECT did not foresee rolls the batch back and each of its
  claims is tried alone, in a transaction of its own (``one_by_one``).

PostgreSQL takes concurrent writers row by row, so its claims keep a transaction each.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Callable

import sqlalchemy as sa

from bot.store.db import transaction

#: The most claims one transaction carries (bounded anyway by the request threads,
#: ``bot.slack.transport.http_server.THREADS``); keeps each SELECT's ``IN`` list far below
#: SQLite's 32,766 host parameters (https://sqlite.org/limits.html#max_variable_number).
BATCH_MAX = 256

Rows = list[tuple[sa.Table, dict]]


class _Claim:
    """One caller's rows, when its bound ends (``time.monotonic()``), and its answer."""

    __slots__ = ("rows", "deadline", "done", "new", "error")

    def __init__(self, rows: Rows, deadline: float) -> None:
        self.rows, self.deadline = rows, deadline
        self.done, self.new, self.error = False, False, None


class ClaimBatches:
    """The claims of one SQLite engine, committed in groups (module docstring).

    Args:
        engine: a SQLite engine from ``bot.store.db.make_engine``.
        one_by_one: ``(rows, lock_timeout_ms) -> bool`` — one claim in a transaction of its
            own (``ClaimStore._insert_once``), for a batch an ``IntegrityError`` broke.
    """

    def __init__(self, engine: sa.Engine, one_by_one: Callable[[Rows, int], bool]) -> None:
        self._engine, self._one_by_one = engine, one_by_one
        self._cond = threading.Condition()
        self._waiting: list[_Claim] = []
        self._leading = False
        #: transactions committed, claims they carried, seconds spent waiting for the write
        #: lock and writing under it (for benchmarks)
        self.batches, self.claims, self.lock_wait_s, self.written_s = 0, 0, 0.0, 0.0

    def insert(self, rows: Rows, lock_timeout_ms: int) -> bool:
        """INSERT ``rows`` (one claim: ``(table, values)`` pairs, primary keys in the values)
        all or none, in a transaction shared with the claims waiting beside it.

        Args:
            rows: the claim's rows, each ``(table, values)``.
            lock_timeout_ms: the most this claim waits for locks, from now.

        Returns:
            bool: True when every row was new (all are committed now), False when a key
            existed (none was added).

        Raises:
            sqlalchemy.exc.OperationalError: the write lock was held elsewhere past the
                batch's bound; sqlalchemy.exc.SQLAlchemyError: the database failed.
        """
        claim = _Claim(rows, time.monotonic() + lock_timeout_ms / 1000)
        with self._cond:
            self._waiting.append(claim)
        while not claim.done:
            with self._cond:
                while not claim.done and self._leading:
                    left = claim.deadline - time.monotonic()
                    if left <= 0 and claim in self._waiting:  # not taken into a batch in time
                        self._waiting.remove(claim)
                        raise _locked()
                    self._cond.wait(max(left, 0.001))
                if claim.done:
                    break
                self._leading = True  # this thread leads the claims waiting now
            try:
                self._lead()
            finally:
                with self._cond:
                    self._leading = False
                    self._cond.notify_all()
        if claim.error is not None:
            raise claim.error
        return claim.new

    def _lead(self) -> None:
        """Take the write lock, then every claim waiting at that moment (the ones that came
        while the lock was awaited too), write them in that transaction and answer them.
        The lock is awaited at most the smallest time the claims waiting at the start have
        left; when it is not had by then, the claims whose time is up get the error and the
        others stay queued for the next leader."""
        with self._cond:
            first = list(self._waiting)
        t0 = time.monotonic()
        left_ms = max(1, int((min(c.deadline for c in first) - t0) * 1000))
        batch: list[_Claim] = []
        try:
            with transaction(self._engine, write=True, lock_timeout_ms=left_ms) as conn:
                locked = time.monotonic()
                with self._cond:
                    batch, self._waiting = self._waiting[:BATCH_MAX], self._waiting[BATCH_MAX:]
                if len(batch) == 1:  # alone: its INSERTs, a conflict rolls them back (no SELECT)
                    for table, values in batch[0].rows:
                        conn.execute(table.insert().values(**values))
                    batch[0].new = True
                else:
                    for table, values in _new_rows(conn, batch).items():
                        conn.execute(table.insert(), values)
        except sa.exc.IntegrityError:
            if len(batch) == 1:  # a key of the lone claim exists: nothing was added
                batch[0].new, batch[0].done = False, True
                return
            for claim in batch:  # not foreseen by the SELECT: each claim alone, as before batching
                try:
                    claim.new = self._one_by_one(claim.rows, max(1, int((claim.deadline - time.monotonic()) * 1000)))
                except Exception as exc:  # noqa: BLE001 — handed to the claim's own caller
                    claim.error = exc
                claim.done = True
            return
        except Exception as exc:  # noqa: BLE001 — the batch's claims, or those whose time is up, raise it
            with self._cond:
                if batch or not _lock_timeout(exc):  # the database failed: the claims it failed for
                    failed = batch or [c for c in first if not c.done]
                    self._waiting = [c for c in self._waiting if c not in failed]
                else:  # the lock was not had in time: the claims whose bound it was
                    soon = time.monotonic() + 0.005
                    failed = [c for c in self._waiting if c.deadline <= soon]
                    self._waiting = [c for c in self._waiting if c.deadline > soon]
                for claim in failed:
                    claim.new, claim.error, claim.done = False, exc, True
            return
        self.batches, self.claims = self.batches + 1, self.claims + len(batch)
        self.lock_wait_s += locked - t0
        self.written_s += time.monotonic() - locked
        for claim in batch:
            claim.done = True


def _lock_timeout(exc: Exception) -> bool:
    """Whether ``exc`` says a lock was still held when the wait for it ended (SQLite's
    "database is locked", or this process's writer gate, ``bot.store.db._one_writer``)."""
    return isinstance(exc, sa.exc.OperationalError) and "locked" in str(exc)


def _locked() -> sa.exc.OperationalError:
    """The error of a claim whose bound passed while another claim's batch held the lock,
    as ``bot.store.db._one_writer`` raises it."""
    return sa.exc.OperationalError(
        "BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked (by this process's claims)")
    )


def _new_rows(conn: sa.Connection, batch: list[_Claim]) -> dict[sa.Table, list[dict]]:
    """Mark each claim of ``batch`` new or not (``_Claim.new``) and return the rows to INSERT,
    by table: a claim is new when none of its keys is in the database or in an earlier claim."""
    taken = _existing(conn, [row for claim in batch for row in claim.rows])
    inserts: dict[sa.Table, list[dict]] = {}
    for claim in batch:
        keys = {_key(table, values) for table, values in claim.rows}
        claim.new = not (keys & taken)
        if claim.new:
            taken |= keys
            for table, values in claim.rows:
                inserts.setdefault(table, []).append(values)
    return inserts


def _key(table: sa.Table, values: dict) -> tuple:
    """``(table name, primary key values…)`` of a row."""
    return (table.name, *(values[column.name] for column in table.primary_key.columns))


def _existing(conn: sa.Connection, rows: Rows) -> set[tuple]:
    """The ``_key`` of each of ``rows`` already in the database (one SELECT per table)."""
    by_table: dict[sa.Table, set[tuple]] = {}
    for table, values in rows:
        by_table.setdefault(table, set()).add(_key(table, values)[1:])
    found: set[tuple] = set()
    for table, keys in by_table.items():
        columns = list(table.primary_key.columns)
        if len(columns) == 1:
            query = sa.select(*columns).where(columns[0].in_(sorted(key for (key,) in keys)))
        else:
            query = sa.select(*columns).where(sa.tuple_(*columns).in_(sorted(keys)))
        found |= {(table.name, *row) for row in conn.execute(query)}
    return found
