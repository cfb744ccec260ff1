"""Channel subscriptions from the user's side: subscribe, unsubscribe, status,
and today's paper for a channel (issue 3 item 2; docs/interfaces.md "Paper of the day").

The channel-visible confirmation of a subscribe goes through an injected
``bot.core.ports.ChannelAnnouncer`` (in Slack: rendered and sent with
``chat.postMessage``): that post is also the check that the bot can write
there — in a private channel it is not in, Slack answers
``channel_not_found``/``not_in_channel`` and the user is told to
``/invite @paperbot``. Service layer: imports no renderer, no Slack, no
digest (docs/architecture.md "Layers").
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Callable
from zoneinfo import ZoneInfo

from bot.core import parsing
from bot.core.config import Settings
from bot.core.index_port import ServiceIndex
from bot.core.models import Context, Paper, QueryError, Subscription
from bot.core.ports import ChannelAnnouncer, PostError
from bot.core.replies import IN_CHANNEL, ErrorReply, NoticeReply, Reply, StatusReply
from bot.core.store_port import ServiceStore
from bot.daily import subscribe_grammar
from bot.daily.post_times import next_post_time, posts_on
from bot.daily.schedule_words import describe, post_title, quoted_topic
from bot.service.topics import Topics

log = logging.getLogger(__name__)

#: The channel's announcement of ``/paper unsubscribe`` (after the user's mention).
STOPPED = "stopped the paper of the day in this channel."
INVITE_HINT = (
    "I can't post in this channel. If it is private, invite me first with "
    "`/invite @paperbot`, then run `/paper subscribe` again."
)


class Subscriptions:
    """Subscribe/unsubscribe/status for the channel in a ``Context``.

    Args:
        index: the search index (``ids()``, ``get(id)``, ``match_all(topic)``).
        store: the store's subscriptions and daily picks (``bot.core.store_port``).
        settings: default time (``PAPERBOT_DEFAULT_TIME``) and zone (``PAPERBOT_DEFAULT_TZ``).
        announcer: where the channel confirmation goes; None → no confirmation.
        now: clock returning an aware UTC datetime.
    """

    def __init__(
        self,
        index: ServiceIndex,
        store: ServiceStore,
        settings: Settings,
        announcer: ChannelAnnouncer | None,
        now: Callable[[], datetime],
    ) -> None:
        self.index, self.store, self.settings, self.now = index, store, settings, now
        self.announcer = announcer
        self.topics = Topics(index, store)
        #: The papers of ``for me`` / ``for this channel`` subscriptions
        #: (``bot.service.recommendations.Recommendations``: ``papers``, ``readiness``); None:
        #: they post the rotation.
        self.learned = None

    def subscribe(self, arg: str, ctx: Context) -> Reply:
        """``/paper subscribe [me] [days] [HH:MM] [zone] [N papers] [about QUERY]``.

        Grammar: ``bot.daily.subscribe_grammar``. A part left out keeps the current value (a
        new subscription: ``PAPERBOT_DEFAULT_TIME``, the user's Slack zone or
        ``PAPERBOT_DEFAULT_TZ``, every day, one paper, no topic). A topic that
        matches no paper is refused. A channel subscription posts a
        channel-visible confirmation naming the user; ``me`` sets the user's
        personal feed (their DM) instead. Returns an ephemeral note with the
        next post time, or an ``ErrorReply``.
        An identical repeat of an active subscription changes and announces
        nothing: the user alone is told "already subscribed …".

        Args:
            arg: the text after ``subscribe``.
            ctx: the channel, team and user (and the user's Slack zone, when read).
        """
        try:
            spec = subscribe_grammar.parse_spec(arg)
        except parsing.SubscribeError as e:
            return ErrorReply(message=str(e), example=subscribe_grammar.EXAMPLE)
        channel = ctx.user_id if spec.me else ctx.channel_id
        if spec.me and not ctx.user_id:
            return ErrorReply(message="I can't tell who you are here.", example="/paper subscribe me 08:00")
        current = self.store.get_subscription(ctx.team_id, channel)
        wanted = self._wanted(spec, current, ctx)
        notes = _misplaced_count_note(spec)
        if spec.topic:
            refused, count = self._check_topic(spec.topic)
            if refused is not None:
                return replace(refused, message=" ".join([refused.message, *notes]))
        else:
            count = self.topics.match_count(wanted.topic)
        if current is not None and current.active and wanted.same_as(current):
            return self._already_subscribed(spec, current, wanted, count)
        notes += _short_rotation_note(wanted, count)
        new, previous = self._put(ctx.team_id, channel, wanted, ctx.user_id)
        ready = self.learned.readiness(new) if self.learned is not None else None
        notes += [ready] if ready else []
        text = _change_text(spec, new, previous, count)
        if self.announcer is not None and not spec.me:
            failed = self._announce(ctx, previous, NoticeReply(text=text, actor=ctx.user_id, visibility=IN_CHANNEL))
            if failed is not None:
                return failed
        # Slack was asked for the user's zone (user_tz not None) but gave none we know.
        if (
            not spec.zone
            and current is None
            and ctx.user_tz is not None
            and parsing.canonical_zone(ctx.user_tz) is None
        ):
            notes.append(
                f"Your Slack time zone could not be read; using {wanted.tz} — add a zone, e.g. "
                f"`/paper subscribe {wanted.local_time} Europe/Berlin`."
            )
        return self._done(spec, new, text, notes)

    def _wanted(self, spec: subscribe_grammar.SubscribeSpec, current: Subscription | None, ctx: Context) -> _Wanted:
        """What the subscription becomes: each part given in ``spec``, else the current
        value, else the default (``PAPERBOT_DEFAULT_TIME``; the user's Slack zone, else
        ``PAPERBOT_DEFAULT_TZ``; every day; one paper; no topic)."""
        return _Wanted(
            local_time=spec.local_time or (current.local_time if current else self.settings.default_time),
            tz=(
                spec.zone
                or (current.tz if current else None)
                or parsing.canonical_zone(ctx.user_tz or "")
                or self.settings.default_tz
            ),
            days=tuple(spec.days if spec.days is not None else (current.days if current else ())),
            papers=spec.papers or (current.papers if current else 1),
            topic=(spec.topic if spec.topic is not None else (current.topic if current else None)) or None,
            recommend=spec.recommend if spec.recommend is not None else bool(current and current.recommend),
        )

    def _already_subscribed(
        self, spec: subscribe_grammar.SubscribeSpec, current: Subscription, wanted: _Wanted, count: int | None
    ) -> Reply:
        """Nothing changes: tell the user only, announce nothing to the channel."""
        where = "Your personal feed is" if spec.me else "This channel is"
        nxt = next_post_time(current, self.now())
        return NoticeReply(
            text=f"{where} already subscribed at {wanted.local_time} ({wanted.tz}): "
            f"{describe(current, count)}. Next post: " + ("{when}." if nxt else "unknown."),
            when=nxt,
        )

    def _done(self, spec: subscribe_grammar.SubscribeSpec, new: Subscription, text: str, notes: list[str]) -> Reply:
        """The ephemeral answer after a change: the next post time (in each reader's zone) and the notes."""
        when = next_post_time(new, self.now())
        lead = "Done: " + text[0].upper() + text[1:] + " " if spec.me else "Done. "
        tail = "".join(" " + n for n in notes)
        if when is None:
            return NoticeReply(text=f"{lead}Next post: unknown.{tail}")
        return NoticeReply(text=f"{lead}Next post: {{when}}.{tail}", when=when)  # each reader's zone

    def _check_topic(self, topic: str) -> tuple[Reply | None, int | None]:
        example = "/paper subscribe about reinforcement learning"
        try:
            count = len(self.topics.matches(topic))
        except QueryError as e:
            return ErrorReply(
                message=f"I can't use {quoted_topic(topic)} as a topic: {e.message}", example=example
            ), None
        if count == 0:
            meant = self._meant_topic(topic)
            return ErrorReply(
                message=f"No paper matches {quoted_topic(topic)}, so nothing would be posted. "
                + (f"Did you mean {quoted_topic(meant)}?" if meant else "")
                + " A topic keeps only papers containing all its words: use "
                "fewer or broader words, or `OR` between alternatives.",
                example=f"/paper subscribe about {meant}" if meant else example,
            ), 0
        return None, count

    def _meant_topic(self, topic: str) -> str | None:
        """The spelling a search would use or suggest for ``topic`` (``SearchPage.corrected_query``
        or ``suggestion``) when papers match it as a topic, else None."""
        try:
            page = self.index.search(topic, limit=1)
            meant = page.corrected_query or page.suggestion
            return meant if meant and meant != topic and self.topics.matches(meant) else None
        except QueryError:
            return None

    def _announce(self, ctx: Context, previous, notice: NoticeReply) -> Reply | None:
        try:
            self.announcer.announce(ctx.channel_id, notice, team_id=ctx.team_id)
        except PostError as e:
            self._restore(ctx, previous)
            if e.code in ("not_in_channel", "channel_not_found"):
                return ErrorReply(message=INVITE_HINT)  # its instruction once: no "Example:" repeating it
            log.warning("subscribe confirmation failed in %s: %s", ctx.channel_id, e.code)
            return ErrorReply(
                message=f"Slack refused my confirmation post ({e.code}); nothing was changed.", example="/paper status"
            )
        return None

    def unsubscribe(self, ctx: Context, me: bool = False) -> Reply:
        """``/paper unsubscribe`` — stop this channel's post, announced in the
        channel naming the user, as a subscription is (issue 19 point 7);
        ``unsubscribe me`` — stop the user's personal feed. Returns an
        ephemeral note. An announcement Slack refuses is logged: the post is
        stopped all the same.

        Args:
            ctx: the channel, team and user.
            me: True stops the user's personal feed instead of the channel's post.
        """
        if me:
            if ctx.user_id and self.store.remove_subscription(ctx.team_id, ctx.user_id):
                return NoticeReply(text="Unsubscribed: your personal feed is stopped.")
            return NoticeReply(text="You have no personal feed to stop.")
        if not self.store.remove_subscription(ctx.team_id, ctx.channel_id):
            return NoticeReply(text="This channel has no paper of the day to stop.")
        if self.announcer is not None:
            notice = NoticeReply(text=STOPPED, actor=ctx.user_id, visibility=IN_CHANNEL)
            try:
                self.announcer.announce(ctx.channel_id, notice, team_id=ctx.team_id)
            except PostError as e:
                log.warning("unsubscribe announcement failed in %s: %s", ctx.channel_id, e.code)
        return NoticeReply(text="Unsubscribed: no more paper of the day in this channel.")

    def status(self, ctx: Context) -> Reply:
        """``/paper status`` — this channel's schedule, topic and how many papers
        match it, the next post, or why it is off; plus the user's own feed."""
        sub = self.store.get_subscription(ctx.team_id, ctx.channel_id)
        feed = self.store.get_subscription(ctx.team_id, ctx.user_id) if ctx.user_id else None
        when = next_post_time(sub, self.now()) if sub is not None and sub.active else None
        count = self.topics.match_count(sub.topic) if sub is not None and sub.topic else None
        return StatusReply(
            subscription=sub,
            next_post=when,
            match_count=count,
            summary=describe(sub, count) if sub is not None else None,
            feed=describe(feed, self.topics.match_count(feed.topic) if feed.topic else None)
            if feed is not None
            else None,
        )

    def for_context(self, ctx: Context):
        """The subscription whose papers ``ctx`` sees: the channel's, or in a DM the
        user's personal feed when they have one; None when neither exists."""
        sub = self.store.get_subscription(ctx.team_id, ctx.channel_id)
        if sub is None and ctx.channel_id[:1] == "D" and ctx.user_id:
            sub = self.store.get_subscription(ctx.team_id, ctx.user_id)
        return sub

    def paper_of_the_day(self, ctx: Context) -> tuple[Paper | None, date]:
        """Today's (first) paper in the channel's zone (its subscription's, else the default).

        A channel with a topic or ``N papers`` gets its own rotation's pick
        (``bot.service.topics``). Picks are persisted the first time a date is asked
        for, so the digest, ``/paper today`` and every process agree.
        """
        papers, day = self.papers_of_the_day(ctx)
        return (papers[0] if papers else None), day

    def papers_of_the_day(self, ctx: Context) -> tuple[list[Paper], date]:
        """All of today's papers for ``ctx`` (``[]``: empty index or a topic that matches nothing)."""
        papers, day, _ = self.post_of_the_day(ctx)
        return papers, day

    def post_of_the_day(self, ctx: Context) -> tuple[list[Paper], date, str]:
        """Today's post for ``ctx``: its papers, its date and its title.

        Returns:
            ``(papers, day, title)``: the papers (``[]``: empty index or a topic that
            matches nothing); the local date they are for — for a subscription with
            posting days, the latest posting day or, before the first post, the next
            one (``posting_day``); the title in plain text
            (``bot.daily.schedule_words.post_title``: "Paper of the week · Mon 2026-12-07"),
            ending in " (the next post)" when that date is still ahead.
        """
        sub = self.for_context(ctx)
        zone = ZoneInfo(sub.tz if sub is not None else self.settings.default_tz)
        today = self.now().astimezone(zone).date()
        day = posting_day(sub, today, zone) if sub is not None and sub.days else today
        if sub is None:
            sub = Subscription(
                team_id=ctx.team_id, channel_id=ctx.channel_id, local_time="00:00", tz=self.settings.default_tz
            )
        if sub.recommend and self.learned is not None:
            post = self.learned.post(sub, day)
            papers = [r.paper for r in post.picks]
            picked = learned_for(sub) if any(r.how == "pick" for r in post.picks) else None
        else:
            papers, picked = self.topics.papers(sub, day), None
        title = post_title(sub.days, len(papers), day, sub.topic, picked=picked)
        return papers, day, title + (" (the next post)" if day > today else "")

    def _put(
        self, team: str, channel: str, wanted: _Wanted, user_id: str | None
    ) -> tuple[Subscription, Subscription | None]:
        """Store ``wanted`` as the subscription of ``channel`` (turned on); ``(new, previous)``."""
        return self.store.upsert_subscription(
            team,
            channel,
            wanted.local_time,
            wanted.tz,
            user_id,
            self.now(),
            topic=wanted.topic,
            days=wanted.days,
            papers=wanted.papers,
            recommend=wanted.recommend,
        )

    def _restore(self, ctx: Context, previous) -> None:
        if previous is None:
            self.store.remove_subscription(ctx.team_id, ctx.channel_id)
            return
        self._put(ctx.team_id, ctx.channel_id, _Wanted.of(previous), previous.subscribed_by)
        if not previous.active:
            self.store.deactivate(ctx.team_id, ctx.channel_id, previous.inactive_reason or "inactive")


def learned_for(sub: Subscription) -> str:
    """Whom a learning subscription's picks are for, as its post's title says it: "you"
    (a personal feed) or "this channel".

    Args:
        sub: the subscription.
    """
    return "you" if sub.personal else "this channel"


def posting_day(sub: Subscription, today: date, zone: ZoneInfo) -> date:
    """The date whose papers ``/paper today`` shows for a subscription with
    posting days: the latest posting day up to ``today`` (a reading group's
    paper of the week all week), or the next one when that was before the
    subscription began — never a date the digest will not post, whose pick
    would use up a paper of the rotation.

    Args:
        sub: the subscription (its ``days`` and ``created_at``).
        today: the local date in its zone.
        zone: its zone.
    """
    start = sub.created_at.astimezone(zone).date() if sub.created_at else today
    for back in range(7):
        day = today - timedelta(days=back)
        if posts_on(sub, day):
            if day >= start:
                return day
            break
    for ahead in range(1, 8):
        day = today + timedelta(days=ahead)
        if posts_on(sub, day):
            return day
    return today


@dataclass(frozen=True)
class _Wanted:
    """The post time, zone, days, papers and topic a subscribe asks for (``Subscriptions._wanted``)."""

    local_time: str
    tz: str
    days: tuple[int, ...]
    papers: int
    topic: str | None
    recommend: bool = False

    @classmethod
    def of(cls, sub: Subscription) -> _Wanted:
        """The settings ``sub`` has."""
        return cls(
            local_time=sub.local_time,
            tz=sub.tz,
            days=sub.days,
            papers=sub.papers,
            topic=sub.topic,
            recommend=sub.recommend,
        )

    def same_as(self, sub: Subscription) -> bool:
        """True when ``sub`` already has exactly these settings."""
        return _Wanted.of(sub) == self


def _misplaced_count_note(spec: subscribe_grammar.SubscribeSpec) -> list[str]:
    """``["Everything after `about` is the topic; …"]`` for "about diffusion 3 papers", else []."""
    counted = re.search(r"\s([1-5]) papers?$", spec.topic or "", re.IGNORECASE)
    if not counted or spec.papers:
        return []
    return [
        f"Everything after `about` is the topic; for {counted.group(1)} papers a post, "
        f"put `{counted.group(1)} papers` before `about`."
    ]


def _short_rotation_note(wanted: _Wanted, count: int | None) -> list[str]:
    """``["Only 3 papers match, so it lasts 2 posting days …"]`` when a topic lasts under 7 posting days."""
    if not wanted.topic or count is None or -(-count // wanted.papers) >= 7:
        return []
    days = -(-count // wanted.papers)
    return [
        f"Only {count} paper{'s match' if count != 1 else ' matches'}, so it lasts "
        f"{days} posting day{'s' if days != 1 else ''} before the papers repeat."
    ]


def _change_text(
    spec: subscribe_grammar.SubscribeSpec, new: Subscription, previous: Subscription | None, count: int | None
) -> str:
    """ "subscribed this channel to …" or "changed this channel: …; it was …" (the channel's confirmation)."""
    what = describe(new, count)
    where = "your personal feed (in your DM with me)" if spec.me else "this channel"
    if previous is None or not previous.active:
        return f"subscribed {where} to {what}."
    was = f"{previous.local_time} ({previous.tz})"
    if (previous.topic, previous.days, previous.papers, previous.recommend) != (
        new.topic,
        new.days,
        new.papers,
        new.recommend,
    ):
        was += f", {describe(previous, with_time=False)}"
    return f"changed {where}: {what}; it was {was}."
