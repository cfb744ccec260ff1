"""The paper-of-the-day runs: ``run_due`` (what the clock calls every 30 s)
and ``send`` (``paperbot digest send``). Plain functions; the clock (``now``),
the store, the index and the poster are passed in.

Rules (docs/interfaces.md "Paper of the day"):

- One post per channel and local date: claim in the store, then post, then
  record the ``ts`` (``Store.claim_delivery`` is the only gate).
- The parent is posted first and its ``ts`` recorded before the thread
  replies (the abstract), so a crash afterwards cannot cause a second parent.
- A channel error (``not_in_channel``, ``channel_not_found``,
  ``is_archived``) deactivates that subscription (logged once) and the run
  goes on; a workspace-wide error (``invalid_auth``, ``token_revoked``,
  ``account_inactive`` …; ``bot.core.ports.WORKSPACE_ERRORS``) stops every
  send with that token — the whole run with one token, that team's sends only
  for a distributed app (``bot.core.ports.TeamPosters``: a poster per team) —
  releases its claim and deactivates nothing. HTTP 429 is retried inside the
  Slack client by ``RateLimitErrorRetryHandler`` (docs/platform-facts.md "slack_sdk"); one
  that outlives the retries arrives as ``PostError("ratelimited")`` — nothing
  was posted, so the claim becomes ``FAILED`` and is retried on a later tick.
- A claim whose post may or may not have happened (crash, network error:
  ``PostError("request_failed")`` or any other exception) stays ``CLAIMED``;
  after ``RECONCILE_AFTER`` the next run asks the poster for its own post
  carrying the marker (``bot.render.digest_marker``, kept in the post's
  metadata and ``block_id``): found → ``POSTED``; the whole history since the
  claim read and the post is not there → ``FAILED`` (nothing reached the
  channel), so it is posted on the next tick — never skipped; history cannot
  be read completely (``HistoryUnavailable``) → ``UNKNOWN``, logged, never
  posted again that date (a second post would be worse than a missing one).
- Downtime: today's missed post time is posted once, late (logged); earlier days
  in the last ``SKIP_LOOKBACK_DAYS`` are recorded ``SKIPPED`` and logged once.

States are ``bot.core.models.DeliveryState``; ``deliver`` returns an ``Outcome``.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import date, datetime, timedelta
from enum import Enum, auto

from bot.core.models import CONSOLE_TEAM, DeliveryState, Subscription
from bot.core.ports import WORKSPACE_ERRORS, Poster, PostError, TeamPosters, poster_for
from bot.daily.post_times import UTC, due_today, effective_since, local_date, post_time_utc, posts_on, zone
from bot.digest.post import DigestPost, Render, post_for
from bot.digest.summary import DigestDateError, DigestSummary
from bot.render import digest_marker, render_post
from bot.service.topics import Topics

log = logging.getLogger(__name__)

LATE_AFTER = timedelta(minutes=2)  # posted later than this after its post time → "late"
RECONCILE_AFTER = timedelta(minutes=2)  # a claim older than this without ts is stale
MAX_ATTEMPTS = 3  # tries per channel and date after FAILED
SKIP_LOOKBACK_DAYS = 7  # missed days recorded as skipped
AMBIGUOUS_CODES = frozenset({"request_failed"})  # the post may have reached Slack


class Outcome(Enum):
    """What ``deliver`` did: posted now, found the date already had a row, or failed."""

    POSTED = auto()
    HAD = auto()
    FAILED = auto()


class _Stop(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class _Run:
    """State shared by one run: dependencies, the clock, each team's poster, the
    tokens stopped by a workspace-wide error."""

    def __init__(
        self, store, index, poster: Poster | TeamPosters, now: datetime, render: Render | None, learned=None
    ) -> None:
        if now.tzinfo is None:
            raise ValueError("now must be timezone-aware")
        self.store, self.index, self.poster, self.now = store, index, poster, now
        self.learned = learned
        self.render = render or render_post
        self.summary = DigestSummary()
        self.topics = Topics(index, store)
        self._posters: dict[str, Poster] = {}
        self._per_team = isinstance(poster, TeamPosters)
        self._stopped: set[str | None] = set()

    def poster_of(self, team: str) -> Poster:
        """The poster that posts in ``team`` (looked up once a run)."""
        if team not in self._posters:
            self._posters[team] = poster_for(self.poster, team)
        return self._posters[team]

    def _token(self, team: str) -> str | None:
        """What one token serves: the team for a distributed app, else everyone (None)."""
        return team if self._per_team else None

    def stopped_for(self, team: str) -> bool:
        """True when a workspace-wide error stopped the sends with ``team``'s token."""
        return self._token(team) in self._stopped

    def stop(self, team: str, code: str, what: str) -> None:
        """Stop the sends with ``team``'s token after ``code`` (logged once, nothing deactivated).

        Args:
            team: the team whose post failed.
            code: the workspace-wide error.
            what: "digest run" or "digest send", for the log line.
        """
        self._stopped.add(self._token(team))
        self.summary.stopped = self.summary.stopped or code
        if self._per_team:
            self.summary.stopped_teams.append(team)
            log.error("%s: sends to team %s stopped: workspace-wide error %s (nothing deactivated)", what, team, code)
        else:
            log.error("%s stopped: workspace-wide error %s (nothing deactivated)", what, code)

    def message(self, sub: Subscription, day: date) -> DigestPost:
        """The post of ``sub`` on ``day`` (``bot.digest.post.post_for``)."""
        return post_for(self.topics, self.index, self.render, sub, day, self.learned)

    def deliver(
        self, sub: Subscription, day: date, *, reclaim: tuple[DeliveryState, ...], max_attempts: int | None
    ) -> Outcome:
        """Claim, post, record. Returns the ``Outcome`` (``HAD``: no claim).

        Raises:
            _Stop: a workspace-wide error.
        """
        team, channel = sub.team_id, sub.channel_id
        post = self.message(sub, day)
        if post.message is None:
            self.summary.failed += post.failed
            return Outcome.FAILED
        paper_id, message = post.paper_id, post.message
        if not self.store.claim_delivery(
            team, channel, day, paper_id, now=self.now, reclaim=reclaim, max_attempts=max_attempts
        ):
            return Outcome.HAD
        try:
            ts = self.poster_of(team).post(channel, replace(message, thread=()))
        except PostError as exc:
            self._post_failed(sub, day, exc.code, exc)
            return Outcome.FAILED
        except Exception as exc:  # noqa: BLE001 — outcome unknown: reconcile later
            self._post_failed(sub, day, "request_failed", exc)
            return Outcome.FAILED
        self.store.finish_delivery(team, channel, day, state=DeliveryState.POSTED, message_ts=ts, now=self.now)
        self.summary.posted += 1
        for part in message.thread:
            try:
                self.poster_of(team).post(channel, part, thread_ts=ts)
            except Exception as exc:  # noqa: BLE001 — the parent is posted; never retry
                log.warning("digest %s %s: thread reply failed: %s", channel, day, exc)
        log.info("digest %s %s: posted %s (ts %s)", channel, day, paper_id, ts)
        return Outcome.POSTED

    def _post_failed(self, sub: Subscription, day: date, code: str, exc: Exception) -> None:
        team, channel = sub.team_id, sub.channel_id
        if code in WORKSPACE_ERRORS:
            self.store.release_delivery(team, channel, day)
            raise _Stop(code)
        self.summary.failed += 1
        if code in AMBIGUOUS_CODES:
            log.warning(
                "digest %s %s: post outcome unknown (%s); the claim is reconciled after %s",
                channel,
                day,
                exc,
                RECONCILE_AFTER,
            )
            return
        self.store.finish_delivery(team, channel, day, state=DeliveryState.FAILED, now=self.now)
        if isinstance(exc, PostError) and exc.channel_level:
            if self.store.deactivate(team, channel, code, now=self.now):
                log.warning("digest %s: subscription deactivated (%s)", channel, code)
                self.summary.deactivated.append(channel)
        else:
            log.error("digest %s %s: post failed: %s", channel, day, code)

    def reconcile(self, older_than: datetime) -> None:
        """Resolve claims left without a ts by a crash or an ambiguous error."""
        for delivery, claimed_at in self.store.stale_claims(older_than):
            marker = digest_marker(delivery.local_date, delivery.paper_id)
            oldest = (claimed_at - timedelta(minutes=1)).timestamp()
            key = (delivery.team_id, delivery.channel_id, delivery.local_date)
            try:
                ts = self.poster_of(delivery.team_id).find_recent_post(delivery.channel_id, marker, oldest)
            except Exception as exc:  # noqa: BLE001 — HistoryUnavailable or worse: cannot know
                self.store.finish_delivery(*key, state=DeliveryState.UNKNOWN, now=self.now)
                log.error(
                    "digest %s %s: a claim from %s may or may not have been posted (%s); not posting again that date",
                    delivery.channel_id,
                    delivery.local_date,
                    claimed_at.isoformat(),
                    exc,
                )
            else:
                if ts:
                    self.store.finish_delivery(*key, state=DeliveryState.POSTED, message_ts=ts, now=self.now)
                    log.info(
                        "digest %s %s: found the post of a crashed run (ts %s)",
                        delivery.channel_id,
                        delivery.local_date,
                        ts,
                    )
                else:
                    self.store.finish_delivery(*key, state=DeliveryState.FAILED, now=self.now)
                    log.warning(
                        "digest %s %s: a claim from %s never reached the channel; posting it again",
                        delivery.channel_id,
                        delivery.local_date,
                        claimed_at.isoformat(),
                    )
            self.summary.reconciled += 1


def _slack_subscriptions(store) -> list:
    """Active subscriptions of real Slack teams (the console's are left out)."""
    return [s for s in store.subscriptions(active_only=True) if s.team_id != CONSOLE_TEAM]


def run_due(
    store,
    index,
    poster: Poster,
    now: datetime,
    *,
    render: Render | None = None,
    late_after: timedelta = LATE_AFTER,
    reconcile_after: timedelta = RECONCILE_AFTER,
    max_attempts: int = MAX_ATTEMPTS,
    learned=None,
) -> DigestSummary:
    """Post every active subscription's paper of the day that is due at ``now``.

    Args:
        store: ``bot.store.Store``.
        index: has ``ids() -> list[str]`` and ``get(id) -> Paper | None``.
        poster: ``bot.core.ports.Poster`` (raises ``PostError``), or a distributed
            app's ``TeamPosters`` (each team's own).
        now: aware current time (the clock job passes ``datetime.now(UTC)``).
        render: ``(papers, day, title) -> Message`` (``bot.digest.post.Render``); default
            ``bot.render.render_post``.
        late_after: lateness beyond which a post is logged as late.
        reconcile_after: age of a claim without ts before it is reconciled.
        max_attempts: tries per channel and date when Slack refuses a post.
        learned: ``bot.service.recommendations.Recommendations`` (``Service.recommendations``)
            for ``for me`` / ``for this channel`` subscriptions; None: they post the rotation.

    Returns:
        DigestSummary: ``skipped`` counts missed earlier days (not back-filled).
    """
    run = _Run(store, index, poster, now, render, learned)
    run.reconcile(now - reconcile_after)
    subs = _slack_subscriptions(store)
    if not subs:
        return run.summary
    # local dates are at most a day behind the UTC date (UTC-12 is the westmost zone)
    start = now.astimezone(UTC).date() - timedelta(days=SKIP_LOOKBACK_DAYS + 1)
    seen = {(d.team_id, d.channel_id, d.local_date): d for d in store.deliveries_since(start)}
    for sub in subs:
        if run.stopped_for(sub.team_id):
            continue
        try:
            today, post_time, due = due_today(sub, now)
        except (KeyError, ValueError) as exc:
            if store.deactivate(sub.team_id, sub.channel_id, f"bad time or zone: {exc}", now=now):
                log.error("digest %s: deactivated, bad time or zone (%s)", sub.channel_id, exc)
            continue
        _record_skipped(run, sub, today, seen)
        had = seen.get((sub.team_id, sub.channel_id, today))
        if not due or (had is not None and had.state != DeliveryState.FAILED):
            continue
        try:
            outcome = run.deliver(sub, today, reclaim=(DeliveryState.FAILED,), max_attempts=max_attempts)
        except _Stop as stop:
            run.stop(sub.team_id, stop.code, "digest run")
            continue
        if outcome is Outcome.POSTED and now - post_time > late_after:
            run.summary.late += 1
            log.warning(
                "digest %s %s: posted late by %s (post time %s)",
                sub.channel_id,
                today,
                now - post_time,
                post_time.isoformat(),
            )
    return run.summary


def _record_skipped(run: _Run, sub: Subscription, today: date, seen: dict) -> None:
    """Record and log each missed earlier day of ``sub`` once (no back-fill)."""
    tz = zone(sub.tz)
    since = effective_since(sub)
    first = today - timedelta(days=SKIP_LOOKBACK_DAYS)
    if since is None:
        first = today - timedelta(days=1)
    else:
        first = max(first, local_date(since, tz))
    day = first
    while day < today:
        if posts_on(sub, day) and (sub.team_id, sub.channel_id, day) not in seen:
            post_time = post_time_utc(day, sub.local_time, tz)
            if (
                (since is None or post_time >= since)
                and post_time <= run.now
                and run.store.mark_skipped(sub.team_id, sub.channel_id, day, now=run.now)
            ):
                run.summary.skipped += 1
                log.warning(
                    "digest %s %s: post time %s was missed (bot down?); not back-filled",
                    sub.channel_id,
                    day,
                    post_time.isoformat(),
                )
        day += timedelta(days=1)


def send(
    store,
    index,
    poster: Poster,
    now: datetime,
    day: date | None = None,
    force: bool = False,
    *,
    render: Render | None = None,
    learned=None,
) -> DigestSummary:
    """``paperbot digest send``: post a date's paper now to every active
    subscription that has not had it, whatever its post time (docs/interfaces.md "CLI").

    Args:
        store, index, poster, now, render, learned: as for ``run_due``.
        day: the date to send; None → each channel's current local date.
        force: allow a ``day`` that is neither today nor yesterday in some
            channel's zone.

    Returns:
        DigestSummary: ``skipped`` counts channels that already had it (so a
        second run posts nothing) and those for which ``day`` is not a
        posting day (``weekdays``, ``weekly``).

    Raises:
        DigestDateError: ``day`` needs ``force`` (checked before any post).
    """
    run = _Run(store, index, poster, now, render, learned)
    run.reconcile(now - RECONCILE_AFTER)
    plan = []
    refused = []
    for sub in _slack_subscriptions(store):
        try:
            today = local_date(now, zone(sub.tz))
        except (KeyError, ValueError) as exc:
            log.error("digest send %s: bad zone %r (%s)", sub.channel_id, sub.tz, exc)
            run.summary.failed += 1
            continue
        target = day or today
        if not force and target not in (today, today - timedelta(days=1)):
            refused.append(sub.channel_id)
        if not posts_on(sub, target):  # weekdays / weekly: not one of its posting days
            run.summary.skipped += 1
            continue
        plan.append((sub, target))
    if refused:
        raise DigestDateError(
            f"{day.isoformat()} is not today or yesterday in the time zone "
            f"of {len(refused)} subscribed channel(s); use --force to send it"
        )
    for sub, target in plan:
        if run.stopped_for(sub.team_id):
            continue
        try:
            outcome = run.deliver(sub, target, reclaim=(DeliveryState.FAILED, DeliveryState.SKIPPED), max_attempts=None)
        except _Stop as stop:
            run.stop(sub.team_id, stop.code, "digest send")
            continue
        if outcome is Outcome.HAD:
            run.summary.skipped += 1
    return run.summary
