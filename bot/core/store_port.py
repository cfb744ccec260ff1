"""The store as the service sees it: the few methods of ``bot.store.Store`` that
``bot.service`` calls, as ``Protocol`` classes (PEP 544: any object with these
methods fits; nothing inherits from them).

Each service collaborator takes the narrow port it uses — ``Sharing`` and
``Welcomes`` take ``OnceMarks``, ``QueryKeys`` takes ``KeptQueries``,
``ReadingList`` takes ``ReadingLists``, ``Topics`` takes ``DailyPicks``,
``SignalLog`` takes ``SignalRecords`` —
and ``Service`` takes ``ServiceStore``, all of them. ``bot.store.Store`` has
many more methods (the digest's claims, the journal, handled events): the
service never calls those. tests/service/test_ports.py checks that the real
``Store`` has every method here with the same parameters.

Leaf module: no third-party imports.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Callable, Protocol

from bot.core.models import Delivery, ReadingListEntry, Subscription


class SubscriptionRecords(Protocol):
    """Channel subscriptions and personal feeds (``bot.store.subscriptions``)."""

    def get_subscription(self, team: str, channel: str) -> Subscription | None:
        """The subscription of ``channel`` (a user id: that user's feed), active or not, or None.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
        """
        ...

    def upsert_subscription(
        self,
        team: str,
        channel: str,
        local_time: str,
        tz: str,
        user_id: str | None,
        now: datetime | None = None,
        *,
        topic: Any = ...,
        days: Any = ...,
        papers: Any = ...,
        recommend: Any = ...,
    ) -> tuple[Subscription, Subscription | None]:
        """Create or change a subscription and turn it on; ``(new, previous)``.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            local_time: the post time, "HH:MM".
            tz: IANA zone name.
            user_id: who did it, or None.
            now: aware UTC time of the change.
            topic: the topic query (None: whole corpus); left out: unchanged.
            days: posting weekdays (Monday 0; ``()``: every day); left out: unchanged.
            papers: papers per post, 1..5; left out: unchanged.
            recommend: True for ``for me`` / ``for this channel``; left out: unchanged.

        Raises:
            ValueError: ``local_time`` is not "HH:MM" or ``tz`` is empty.
        """
        ...

    def remove_subscription(self, team: str, channel: str) -> bool:
        """Delete a subscription; True when there was one.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
        """
        ...

    def deactivate(self, team: str, channel: str, reason: str, now: datetime | None = None) -> bool:
        """Turn an active subscription off, keeping why; True when it was on.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            reason: why, shown by ``/paper status`` ("is_archived", …).
            now: aware UTC time of the change.
        """
        ...

    def subscriptions(self, team: str | None = None, active_only: bool = False) -> list[Subscription]:
        """Subscriptions ordered by (team, channel).

        Args:
            team: only this team's, or all when None.
            active_only: leave out deactivated ones.
        """
        ...


class DailyPicks(Protocol):
    """Which papers a date posts, picked once (``bot.store.deliveries``, ``bot.store.topics``)."""

    def paper_for_date(self, day: date, choose: Callable[[date], str]) -> str:
        """The shared paper of the day of ``day``: the stored pick, or ``choose(day)`` stored now.

        Args:
            day: the local date.
            choose: picks the paper id of a date the first time it is asked for.
        """
        ...

    def channel_picks(self, team: str, channel: str, day: date, topic: str | None) -> list[str]:
        """The paper ids already picked for a channel, date and topic, in order ([] if none).

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            day: the local date.
            topic: the channel's topic (None: none).
        """
        ...

    def picks_for_date(
        self, team: str, channel: str, day: date, topic: str | None, choose: Callable[[int, set], list]
    ) -> list[str]:
        """A channel's paper ids of ``day`` for ``topic``, picked with ``choose`` the first time.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            day: the local date.
            topic: the channel's topic (None: none).
            choose: ``choose(cycle, seen) -> [(paper id, cycle)]``.
        """
        ...

    def drop_channel_picks(self, team: str, channel: str, day: date, topic: str | None) -> int:
        """Forget a date's picks (their papers left the index before any post); rows deleted.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            day: the local date.
            topic: the channel's topic (None: none).
        """
        ...

    def get_delivery(self, team: str, channel: str, day: date) -> Delivery | None:
        """The delivery row of a channel and date (whether anything was claimed), or None.

        Args:
            team: Slack team id.
            channel: Slack channel id, or a user id for a personal feed.
            day: the local date.
        """
        ...


class OnceMarks(Protocol):
    """Things done once for good: a share, a hello (``bot.store.marks``)."""

    def mark_once(self, kind: str, key: str, detail: str | None = None, now: datetime | None = None) -> bool:
        """Record ``(kind, key)``; True the first time, False ever after.

        Args:
            kind: "share" or "onboard".
            key: what was done, at most 255 characters.
            detail: a note kept with it (where a paper was shared), or None.
            now: aware UTC time.
        """
        ...

    def mark(self, kind: str, key: str) -> tuple[bool, str | None]:
        """``(found, detail)``: whether ``(kind, key)`` was recorded, and its note.

        Args:
            kind: "share" or "onboard".
            key: what was done.
        """
        ...

    def unmark(self, kind: str, key: str) -> None:
        """Forget ``(kind, key)``, so it may be done again.

        Args:
            kind: "share" or "onboard".
            key: what was done.
        """
        ...


class KeptQueries(Protocol):
    """Long queries kept under short keys for page buttons (``bot.store.queries``)."""

    def keep_query(self, key: str, text: str, now: datetime) -> None:
        """Store ``text`` under ``key``, or mark it used at ``now``.

        Args:
            key: 1..32 characters.
            text: the query, 1..``bot.core.parsing.MAX_INPUT`` characters.
            now: aware UTC time of this use.

        Raises:
            ValueError: ``key`` or ``text`` empty or too long.
        """
        ...

    def query_text(self, key: str) -> str | None:
        """The query stored under ``key``, or None (never stored, or purged)."""
        ...

    def purge_queries(self, before: datetime) -> int:
        """Delete the queries last used before ``before`` (aware UTC); how many."""
        ...


class ReadingLists(Protocol):
    """Each user's reading list (``bot.store.reading_list``)."""

    def add_reading_list_entry(
        self, team: str, user: str, entry: ReadingListEntry, now: datetime | None = None
    ) -> bool:
        """Add ``entry``; False when it was there already or the list is full.

        Args:
            team: Slack team id.
            user: Slack user id (the list's owner).
            entry: the snapshot of the paper.
            now: aware UTC time of the Save.
        """
        ...

    def remove_reading_list_entry(self, team: str, user: str, paper_id: str) -> bool:
        """Remove a paper from the list; True when it was there.

        Args:
            team: Slack team id.
            user: Slack user id (the list's owner).
            paper_id: the entry's paper id.
        """
        ...

    def get_reading_list_entry(self, team: str, user: str, paper_id: str) -> ReadingListEntry | None:
        """The entry of ``paper_id``, or None.

        Args:
            team: Slack team id.
            user: Slack user id (the list's owner).
            paper_id: the entry's paper id.
        """
        ...

    def reading_list_count(self, team: str, user: str) -> int:
        """How many entries the list holds.

        Args:
            team: Slack team id.
            user: Slack user id (the list's owner).
        """
        ...

    def reading_list_entries(
        self, team: str, user: str, offset: int = 0, limit: int | None = None
    ) -> list[ReadingListEntry]:
        """The list's entries, newest first.

        Args:
            team: Slack team id.
            user: Slack user id (the list's owner).
            offset: entries to skip.
            limit: most entries to return (None: all).
        """
        ...


class SignalRecords(Protocol):
    """Signals and the bot's single-paper posts (``bot.store.signals``)."""

    def put_signal(
        self,
        team: str,
        subject: str,
        actor: str,
        paper_id: str,
        kind: str,
        *,
        active: bool = True,
        at: datetime | None = None,
    ) -> bool:
        """Record (``active``) or remove one signal unless a newer write stands; False when an id does not fit.

        Args:
            team: Slack team id.
            subject: whom it counts for (a user or a channel id).
            actor: the user who gave it.
            paper_id: the paper.
            kind: one of ``bot.core.models.SIGNAL_KINDS``.
            active: True records, False removes.
            at: aware UTC time it happened.
        """
        ...

    def signal_rows(self, team: str, subject: str, limit: int = 2000) -> list[tuple[str, str, datetime]]:
        """The subject's signals in force, newest first: ``(paper_id, kind, at)``.

        Args:
            team: Slack team id.
            subject: a user or channel id.
            limit: most rows.
        """
        ...

    def forget_signals(self, team: str, user: str) -> list[tuple[str, str, str]]:
        """Delete every signal the user gave or that counts for them; those in force, as
        ``(subject, paper_id, kind)``.

        Args:
            team: Slack team id.
            user: the user's id.
        """
        ...

    def clear_reading_list(self, team: str, user: str) -> int:
        """Remove every entry of the user's reading list; how many.

        Args:
            team: Slack team id.
            user: the list's owner.
        """
        ...

    def record_post(self, team: str, channel: str, ts: str, paper_id: str, now: datetime | None = None) -> bool:
        """Remember that the bot's message ``ts`` in ``channel`` shows ``paper_id``.

        Args:
            team: Slack team id.
            channel: the conversation.
            ts: the message's ``ts``.
            paper_id: the one paper it shows.
            now: aware UTC time.
        """
        ...

    def post_paper(self, team: str, channel: str, ts: str, user: str = "") -> str | None:
        """The paper the bot's message is about, or None.

        Args:
            team: Slack team id.
            channel: the conversation.
            ts: the message's ``ts``.
            user: who asks (their personal feed's posts are under their id).
        """
        ...


class RecommendedPosts(Protocol):
    """What a learning subscription posted on each date (``bot.store.recommended``)."""

    def recommended_on(self, team: str, target: str, day: date) -> list[tuple[str, str, str | None]]:
        """``[(paper id, how, why)]`` of ``day`` in order ([] before they are chosen).

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
        """
        ...

    def fell_back_before(self, team: str, target: str, day: date) -> bool:
        """True when a date before ``day`` posted the rotation instead of picks.

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
        """
        ...

    def recommend_once(
        self, team: str, target: str, day: date, choose: Callable[[set], list], now: datetime | None = None
    ) -> list[tuple[str, str, str | None]]:
        """``day``'s ``[(paper id, how, why)]``, chosen with ``choose(posted ids)`` the first time.

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
            choose: the date's papers given every id the target already had.
            now: aware UTC time.
        """
        ...

    def recommended_ids(self, team: str, target: str) -> set[str]:
        """Every paper id chosen for ``target`` on any date.

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
        """
        ...


class ServiceStore(
    SubscriptionRecords, DailyPicks, OnceMarks, KeptQueries, ReadingLists, SignalRecords, RecommendedPosts, Protocol
):
    """Everything ``bot.service`` asks of the store (``bot.store.Store`` fits)."""
