"""Post times in local time: when a subscription's post is due (pure, zoneinfo),
and the UTC clock every layer uses (``utc_now``). A *post time* is a
subscription's local HH:MM on one local date; "slots" in this code base are
only the CPU work slots of ``bot.slack.delivery.fair_slots``.

Leaf module (docs/architecture.md "Layers"): the service (``/paper status``,
the subscribe confirmation), the subscriptions and the digest all import it;
it imports only the standard library and ``bot.core.models``.

Rule (docs/interfaces.md "Paper of the day"): a post time is due at the first instant whose local
wall time is at or after HH:MM on that local date. So a post time inside the
skipped spring-forward hour is due right at the jump (02:30 on a 02:00→03:00
day is due at 03:00 local), and one inside the repeated fall-back hour is due
at its first occurrence (fold=0, PEP 495) — the delivery claim keyed by local
date makes the second occurrence harmless. A subscription counts a post time
only if it is at or after the subscription's ``updated_at`` (when its time,
zone or active flag last changed): one made after today's post time starts
tomorrow.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from bot.core.models import Subscription

UTC = timezone.utc


def utc_now() -> datetime:
    """The real clock: aware UTC now. Tests inject their own clock instead."""
    return datetime.now(UTC)


def parse_hhmm(local_time: str) -> time:
    """``"09:30"`` → ``time(9, 30)``.

    Raises:
        ValueError: not "HH:MM" with 00 ≤ HH ≤ 23, 00 ≤ MM ≤ 59.
    """
    hh, sep, mm = (local_time or "").partition(":")
    if not (sep and hh.isdigit() and mm.isdigit() and len(mm) == 2 and int(hh) < 24 and int(mm) < 60):
        raise ValueError(f"not an HH:MM time: {local_time!r}")
    return time(int(hh), int(mm))


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``.

    Raises:
        zoneinfo.ZoneInfoNotFoundError (a KeyError) or ValueError: unknown name.
    """
    return ZoneInfo(name)


def local_date(now: datetime, tz: ZoneInfo) -> date:
    """The calendar date at ``now`` in ``tz``.

    Args:
        now: an aware instant.
        tz: the zone whose calendar is read.
    """
    return now.astimezone(tz).date()


def _wall(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz).replace(tzinfo=None)


def post_time_utc(day: date, local_time: str, tz: ZoneInfo) -> datetime:
    """The UTC instant the post time ``local_time`` of local date ``day`` is due.

    Args:
        day: local calendar date in ``tz``.
        local_time: "HH:MM".
        tz: the subscription's zone.

    Returns:
        datetime: aware UTC; the first instant whose wall time in ``tz`` is
        ≥ ``day`` ``local_time`` (second resolution inside a DST gap).

    Raises:
        ValueError: bad ``local_time``.
    """
    wall = datetime.combine(day, parse_hhmm(local_time))
    early = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    if _wall(early, tz) == wall:
        return early  # exists; fold=0 is the first of a repeated time
    # In a gap: with fold=1 the wall time maps to an instant before the jump
    # (its wall time is < wall), with fold=0 to one after it (≥ wall).
    lo = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    hi = early
    while hi - lo > timedelta(seconds=1):
        mid = lo + timedelta(seconds=int((hi - lo).total_seconds()) // 2)
        if _wall(mid, tz) >= wall:
            hi = mid
        else:
            lo = mid
    return hi


def effective_since(sub: Subscription) -> datetime | None:
    """When the subscription's current post time took effect (``updated_at``, else ``created_at``)."""
    return sub.updated_at or sub.created_at


def posts_on(sub: Subscription, day: date) -> bool:
    """Whether ``day`` is one of the subscription's posting days: every day
    when ``sub.days`` is empty, else its weekday (Monday 0) is in ``sub.days``
    (docs/interfaces.md "Paper of the day").

    Args:
        sub: the subscription.
        day: a local date in the subscription's zone.
    """
    return not sub.days or day.weekday() in sub.days


def due_today(sub: Subscription, now: datetime) -> tuple[date, datetime, bool]:
    """The subscription's local date at ``now``, its post time that day (UTC), and whether it is due.

    Due means: the local date is a posting day (``posts_on``), ``post_time ≤ now``
    and the post time is not before ``effective_since``.

    Args:
        sub: the subscription (its ``local_time``, ``tz``, ``days``).
        now: aware current time.

    Raises:
        KeyError/ValueError: unknown zone or bad time in ``sub``.
    """
    tz = zone(sub.tz)
    today = local_date(now, tz)
    post_time = post_time_utc(today, sub.local_time, tz)
    since = effective_since(sub)
    due = posts_on(sub, today) and post_time <= now and (since is None or post_time >= since)
    return today, post_time, due


def next_post_time(sub: Subscription | None, now: datetime, store=None) -> datetime | None:
    """When the channel's next paper of the day should appear, in its zone.

    Used by ``/paper status`` and the subscribe confirmation.

    Args:
        sub: the subscription (None or inactive → None).
        now: aware current time.
        store: optional ``bot.store.Store``; with it, a date already delivered
            (any delivery row) moves the answer to the next day.

    Returns:
        datetime | None: aware, in ``sub.tz``. A post time that is due but not yet
        posted (the clock runs every 30 s, or was down earlier today) gives
        ``now``.
    """
    if sub is None or not sub.active:
        return None
    tz = zone(sub.tz)
    since = effective_since(sub)
    day = local_date(now, tz)
    for _ in range(9):  # a weekly post time is at most 7 days (+ today's, if posted) away
        if not posts_on(sub, day):
            day += timedelta(days=1)
            continue
        post_time = post_time_utc(day, sub.local_time, tz)
        had = store is not None and store.get_delivery(sub.team_id, sub.channel_id, day) is not None
        if not had and (since is None or post_time >= since):
            return max(post_time, now).astimezone(tz)
        day += timedelta(days=1)
    return None
