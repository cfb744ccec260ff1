"""The durable journal of acknowledged work, as a global Bolt middleware.

Bolt runs global middleware before a listener and its ``ack()``, over HTTP and
Socket Mode alike (slack_bolt/app/app.py ``dispatch``); the HTTP answer or the
Socket Mode envelope ack is sent only once ``dispatch`` returns. So each
answered event (an ``app_mention``, a DM) and each ``/paper`` command is
written to the store (``Store.journal_claim``) *before* it is acknowledged,
and marked done by the listener after its reply was posted. Slack does not
redeliver what was acknowledged; the journal does (docs/architecture.md
"Idempotency and the journal"):

- a claim has an owner (``process_id``) and a ``LEASE``, renewed while the
  work runs; a duplicate (Slack retry, a second process) whose claim is live
  is acknowledged and dropped;
- ``Journal.run`` (a thread of ``paperbot serve`` / ``socket``) finishes what a
  crashed process left — events under ``EVENT_WINDOW``, commands while their
  ``response_url`` is valid (``COMMAND_WINDOW``) — by dispatching the stored
  request again, expires older ones (payloads purged), and once an hour purges
  finished claims (``Store.purge_claims``: event keys and finished rows, as
  ``bot.store.claims.KEPT`` says — this loop is their one purge owner);
- right before it posts, the listener renews its claim and marks the reply
  as going out (``still_mine``); a retake of work whose reply may be out is a
  mention answered only if the thread holds no reply of ours
  (``SlackPoster.replied_in_thread``; skipped when it cannot be read, or when
  the reply is ephemeral), and a command is skipped (a ``response_url`` reply
  cannot be looked up) — a rare loss rather than a double; a retake of work
  that never started posting is simply answered;
- a reply that could not be delivered for a reason that may pass (HTTP 5xx,
  ``internal_error``: ``bot.slack.delivery.journal_context.RetryLater``) leaves the row
  pending; its lease is cut to ``RETRY_AFTER_S`` from now and the loop takes
  it again then (the same retake as after a crash), ``MAX_ATTEMPTS`` in all.

``response_url``s live only in the payload (purged when done), never logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import threading
import time
import uuid
from datetime import timedelta
from typing import Any, Callable

from slack_bolt import App, BoltRequest, BoltResponse

from bot.daily.post_times import utc_now
from bot.slack.delivery.event_keys import idempotency_keys, should_answer
from bot.slack.delivery.intake import FORCED
from bot.slack.delivery.journal_context import DONE, RETAKEN, RETRY, STILL_MINE

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=60)  # a claim without renewal holds this long
TICK_S = 10.0  # renew, recover, expire every so often
EVENT_WINDOW = timedelta(minutes=10)  # an unanswered mention older than this is not answered
COMMAND_WINDOW = timedelta(minutes=30)  # a response_url works 30 min (docs.slack.dev, slash commands)
WINDOWS = {"event": EVENT_WINDOW, "command": COMMAND_WINDOW}
#: After a claim gave up on a lock held elsewhere (``bot.store.claims.CLAIM_LOCK_TIMEOUT_MS``),
#: the next claims wait at most ``STUCK_WAIT_MS`` until one succeeds or ``STUCK_S`` pass: a
#: lock held for long (a backup) then costs each ack a fraction of a second, not 1.5 s, and
#: cannot tie up every request thread.
STUCK_WAIT_MS = 200
STUCK_S = 5.0
#: While claims fail (the database down or locked), one ERROR line this often, with a count.
UNRECORDED_EVERY_S = 60.0
RETRY_AFTER_S = (2.0, 8.0, 30.0)  # pause before attempt 2, 3, 4 of an undelivered reply
MAX_ATTEMPTS = len(RETRY_AFTER_S) + 1  # then the row is given up (logged)


def process_id() -> str:
    """``host:pid:random`` — unique per process start, readable in the table."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (signal 0 checks, sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def work_of(body: dict[str, Any]) -> tuple[str, str, list[str]] | None:
    """``(key, kind, alias keys)`` of a request the journal keeps, else None.

    Kept: ``app_mention`` events and DMs the bot answers (``event_keys.should_answer``),
    keyed ``event:<event_id>`` with the message key as alias; ``/paper`` commands,
    keyed ``cmd:`` + SHA-256 of their ``response_url`` (unique per invocation).
    """
    if body.get("type") == "event_callback":
        event = body.get("event")
        if not isinstance(event, dict):  # not an event Slack sends: Bolt ignores it
            return None
        answered = event.get("type") == "app_mention" or (
            event.get("type") == "message" and event.get("channel_type") == "im"
        )
        keys = idempotency_keys(body, event) if answered and should_answer(event) else []
        if keys and keys[0].startswith("event:"):
            return keys[0], "event", keys[1:]
        return None
    url = body.get("response_url")
    if body.get("command") and isinstance(url, str) and url:
        return "cmd:" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:40], "command", []
    return None


class Journal:
    """Claims, renews and finishes journal rows for one process.

    Args:
        store: ``bot.store.Store``.
        owner: this process's id (default ``process_id()``).
        lease: claim length without renewal.
        clock: aware UTC now.
    """

    def __init__(self, store, *, owner: str | None = None, lease: timedelta = LEASE, clock: Callable = utc_now) -> None:
        self.store, self.lease, self.clock = store, lease, clock
        self.owner = owner or process_id()
        self._inflight: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set: the loop recomputes its next wake-up
        self._due: dict[str, float] = {}  # key -> time.monotonic() its next attempt is due
        self._stuck_until = 0.0  # time.monotonic() until which claims wait STUCK_WAIT_MS
        self._unrecorded, self._unrecorded_told = 0, 0.0  # claims failed since the last line; its time

    # ------------------------------------------------------------ the middleware
    def middleware(self, body: dict[str, Any], context: dict[str, Any], next: Callable[[], None]):
        """Bolt global middleware: claim the request, then let the listener run.

        Returns Bolt's ``next()`` result, or a ``BoltResponse``: 200 with no
        body for a duplicate (acknowledged, nothing runs); 500 for an event that
        cannot be recorded (so Slack delivers it again). A command that cannot
        be recorded is answered anyway (Slack never retries commands). The claim
        waits for a lock at most ``CLAIM_LOCK_TIMEOUT_MS`` (1.5 s), or
        ``STUCK_WAIT_MS`` within ``STUCK_S`` of a claim that gave up.

        Args:
            body: the request's parsed body (an event envelope, a command …).
            context: Bolt's request context.
            next: Bolt's call to the rest of the chain (the listener).
        """
        work = work_of(body)
        if work is None:
            return next()
        key, kind, aliases = work
        now = self.clock()
        # the store's own bound (1.5 s), or a short one while a lock was just found held
        wait = {"lock_timeout_ms": STUCK_WAIT_MS} if time.monotonic() < self._stuck_until else {}
        try:
            attempt = self.store.journal_claim(
                key,
                kind=kind,
                payload=json.dumps(body),
                owner=self.owner,
                lease=self.lease,
                aliases=aliases,
                now=now,
                answerable_after=now - WINDOWS[kind],
                **wait,
            )
        except Exception as exc:  # noqa: BLE001 — the database is down or locked
            self._not_recorded(key, kind, exc)
            return BoltResponse(status=500, body="") if kind == "event" else next()
        self._recorded()
        if not attempt:
            log.info("%s is handled, or being handled, elsewhere; acknowledged only", key)
            return BoltResponse(status=200, body="")
        maybe_out = attempt > 1 and self.maybe_out(key)
        if maybe_out and kind == "command":
            # a response_url reply cannot be looked up: skipped rather than maybe doubled
            log.warning(
                "%s (/paper from %s in %s): its reply may have gone out before the process "
                "answering it stopped; a command reply cannot be looked up, so it is not sent again",
                key,
                body.get("user_id"),
                body.get("channel_id"),
            )
            self.done(key)
            return BoltResponse(status=200, body="")
        with self._lock:
            self._inflight.add(key)
            self._due.pop(key, None)
        context[DONE] = lambda: self.done(key)
        context[RETRY] = lambda reason: self.retry(key, attempt, reason)
        context[RETAKEN] = maybe_out
        context[STILL_MINE] = lambda: self.still_mine(key)
        return next()

    def _not_recorded(self, key: str, kind: str, exc: Exception) -> None:
        """A claim failed: short waits from now (``STUCK_S``), and one ERROR line
        a minute (``UNRECORDED_EVERY_S``), the first with what happens to the request."""
        now = time.monotonic()
        with self._lock:
            self._stuck_until = now + STUCK_S
            self._unrecorded += 1
            if now - self._unrecorded_told < UNRECORDED_EVERY_S:
                return
            self._unrecorded_told, count, self._unrecorded = now, self._unrecorded, 0
        if kind == "event":
            what, then = key, "answered 500 so Slack delivers it again"
        else:
            what, then = "a /paper command", "answering it without the journal"
        more = f"; {count - 1} more could not be recorded in the last minute" if count > 1 else ""
        log.error("cannot record %s (%s); %s%s", what, type(exc).__name__, then, more)

    def _recorded(self) -> None:
        """A claim went through: waits are the store's own again; the requests not
        recorded since the last line are counted in one (when there were any)."""
        with self._lock:
            self._stuck_until, count, self._unrecorded, self._unrecorded_told = 0.0, self._unrecorded, 0, 0.0
        if count:
            log.warning("the journal records again; %d more request(s) could not be recorded before", count)

    def maybe_out(self, key: str) -> bool:
        """Whether an earlier attempt at ``key`` had started posting its reply
        (``Store.journal_posting``); True when the database cannot say."""
        try:
            return self.store.journal_posting(key)
        except Exception as exc:  # noqa: BLE001
            log.warning("could not read %s (%s); treating its reply as maybe sent", key, type(exc).__name__)
            return True

    def still_mine(self, key: str) -> bool:
        """Renew ``key``'s lease now and mark its reply as going out; False when
        this process no longer owns it (it stalled past the lease and another
        process took it). A database error counts as still ours: the reply goes
        out rather than being lost (unmarked: a crash right after may double it)."""
        try:
            return self.store.journal_renew([key], self.owner, self.lease, now=self.clock(), posting=True) == 1
        except Exception as exc:  # noqa: BLE001
            log.warning("could not renew %s (%s); answering anyway", key, type(exc).__name__)
            return True

    def done(self, key: str) -> None:
        """Mark ``key`` answered (logged, not raised, when the database refuses)."""
        with self._lock:
            self._inflight.discard(key)
        try:
            self.store.journal_done(key)
        except Exception as exc:  # noqa: BLE001 — the lease expires; a retake checks the thread first
            log.warning("could not mark %s done (%s)", key, type(exc).__name__)

    def retry(self, key: str, attempt: int, reason: str) -> None:
        """Leave ``key`` pending for another attempt ``RETRY_AFTER_S[attempt - 1]``
        seconds from now, or give it up after ``MAX_ATTEMPTS`` (logged, not raised).

        Args:
            key: the journal key.
            attempt: the attempt that just failed (1 for the first).
            reason: why it failed, for the log.
        """
        with self._lock:  # ``tick`` renews the in-flight set under this lock: none undoes the deferral
            self._inflight.discard(key)
        try:
            if attempt >= MAX_ATTEMPTS:
                self.store.journal_give_up(key)
                log.error("%s: reply not delivered after %d attempts (%s); given up", key, attempt, reason)
                return
            pause = RETRY_AFTER_S[attempt - 1]
            # a command's response_url answered 5xx: not taken, so its going-out mark goes
            self.store.journal_defer(
                key, self.owner, self.clock() + timedelta(seconds=pause), clear_posting=key.startswith("cmd:")
            )
        except Exception as exc:  # noqa: BLE001 — the lease then expires on its own
            log.warning("could not defer %s (%s)", key, type(exc).__name__)
            return
        log.warning("%s: reply not delivered (%s); trying again in %.0f s", key, reason, pause)
        with self._lock:
            self._due[key] = time.monotonic() + pause
        self._wake.set()

    def retries_due(self) -> int:
        """Deferred attempts this process has not taken again yet (for logs and tests)."""
        with self._lock:
            return len(self._due)

    def _pause(self, tick_s: float) -> float:
        """Seconds until the next tick: ``tick_s``, or sooner for a deferred attempt."""
        now = time.monotonic()
        with self._lock:
            for key in [k for k, due in self._due.items() if due < now - self.lease.total_seconds()]:
                del self._due[key]  # taken by another process, or given up
            # a due attempt not yet taken (its lease had not quite run out): look again shortly
            soonest = min((max(due, now + 0.2) for due in self._due.values()), default=now + tick_s)
        return max(0.05, min(tick_s, soonest - now + 0.1))

    # ------------------------------------------------------------ the background work
    def release_dead_owners(self, starting: bool = True) -> int:
        """End the leases of owners on this host that no longer run (a process
        killed with ``kill -9``; when ``starting``, also an earlier start of
        this very pid, as in a container) so their work is retaken at once, not
        after ``LEASE``. Owners on other hosts keep their leases. Returns the
        rows released."""
        host = socket.gethostname()[:40]
        released = 0
        for owner in self.store.journal_owners():
            parts = owner.rsplit(":", 2)  # host:pid:random (process_id)
            their_host, pid = (parts[0], parts[1]) if len(parts) == 3 else ("", "")
            if owner == self.owner or their_host != host or not pid.isdigit():
                continue
            if (starting and int(pid) == os.getpid()) or (int(pid) != os.getpid() and not _alive(int(pid))):
                released += self.store.journal_release(owner, now=self.clock())
                log.warning("process %s is gone; its unanswered work is retaken now", owner)
        return released

    def tick(self, app: App) -> int:
        """Renew this process's leases, expire what is too old, and dispatch
        again each stale request (its claim has expired). Returns how many."""
        now = self.clock()
        with self._lock:  # held across the renewal: a deferral (``retry``) must not be undone by it
            self.store.journal_renew(list(self._inflight), self.owner, self.lease, now=now)
        retaken = 0
        for kind, window in WINDOWS.items():
            expired = self.store.journal_expire(kind, now - window)
            if expired:
                log.warning("%d unanswered %s(s) older than %s given up", expired, kind, window)
            for entry in self.store.journal_stale(kind, now - window, now=now):
                log.warning(
                    "answering %s left unanswered (received %s, attempt %d)",
                    entry.key,
                    entry.received_at.isoformat(timespec="seconds"),
                    entry.attempts + 1,
                )
                # acknowledged already: the work queue never refuses it (bot.slack.delivery.intake)
                request = BoltRequest(body=json.loads(entry.payload), mode="socket_mode", context={FORCED: True})
                app.dispatch(request)
                retaken += 1
        return retaken

    def run(self, app: App, tick_s: float = TICK_S) -> None:
        """Every ``tick_s`` seconds until ``stop()``, from now: release the work of
        dead processes on this host, then ``tick``; once an hour purge the claims
        ``bot.store.claims.KEPT`` says are old (Slack event keys, finished rows).
        Errors are logged, one line each.

        Args:
            app: the Bolt ``App`` whose client answers retaken work.
            tick_s: seconds between ticks.
        """
        purged_at, starting = None, True
        while not self._stop.is_set():
            try:
                self.release_dead_owners(starting)  # one on this host that died: now, not after LEASE
                starting = False
                self.tick(app)
                now = self.clock()
                if purged_at is None or now - purged_at > timedelta(hours=1):
                    self.store.purge_claims(now)
                    purged_at = now
            except Exception as exc:  # noqa: BLE001 — e.g. the database is briefly down: next tick
                log.error("journal tick failed (%s: %s); trying again", type(exc).__name__, str(exc)[:160])
            self._wake.wait(self._pause(tick_s))
            self._wake.clear()

    def start(self, app: App, tick_s: float = TICK_S) -> threading.Thread:
        """Run ``run`` on a daemon thread and return it.

        Args:
            app: the Bolt ``App`` whose client answers retaken work.
            tick_s: seconds between ticks.
        """
        thread = threading.Thread(target=self.run, args=(app, tick_s), name="paperbot-journal", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        """Ask the ``run`` loop to end."""
        self._stop.set()
        self._wake.set()
