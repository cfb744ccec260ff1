"""Signals (issue 22 point 1; docs/interfaces.md "Signals"): what each user and
each channel told paperbot about papers — the positives and negatives a
recommender learns from — recorded, taken back, read and forgotten.

Who a signal counts for:

- a user's own: their saves (recorded at *Save*, taken back at *Remove*), their
  shares, their "More like this" / "Not for me", their 👍 / 👎 on the bot's posts;
- a channel's (``C…``, ``G…``): what its members did inside it — shares into it
  and reactions on the bot's posts there. A save is private: it never counts for
  a channel. A DM (``D…``) is nobody's channel: what happens there counts for the
  user only.

A paper with signals of both signs counts as the sign most of them have; a tie
goes to the newest. Service layer: no Slack, SQL or Whoosh types.
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict
from datetime import datetime
from typing import Callable, Iterable

from bot.core.models import NEGATIVE_KINDS, SIGNAL_KINDS, Context, Signals
from bot.core.replies import EPHEMERAL, NoticeReply, Reply
from bot.core.store_port import SignalRecords

log = logging.getLogger(__name__)

#: Reaction names (without a skin tone) → signal kind: 👍 and 👎
#: (https://docs.slack.dev/reference/events/reaction_added: ``reaction`` is the
#: emoji's name, ``thumbsup::skin-tone-2`` with a skin tone).
REACTIONS = {"+1": "up", "thumbsup": "up", "-1": "down", "thumbsdown": "down"}


def reaction_kind(name: object) -> str | None:
    """``"up"`` / ``"down"`` for a 👍 / 👎 reaction name (any skin tone), else None."""
    if not isinstance(name, str):
        return None
    return REACTIONS.get(name.split("::", 1)[0])


def is_channel(conversation: str) -> bool:
    """True for a channel that has signals of its own (``C…`` public, ``G…``
    private or a group DM); False for a DM (``D…``), a user id or anything else."""
    return isinstance(conversation, str) and conversation[:1] in ("C", "G")


def fold(rows: Iterable[tuple[str, str, datetime]]) -> Signals:
    """A subject's signals in force (``SignalRecords.signal_rows``: ``(paper id, kind, at)``,
    newest first) as positives and negatives, each paper once, most recent first: a paper
    goes with the sign most of its signals have, a tie with its newest signal's."""
    votes: OrderedDict[str, list[int]] = OrderedDict()  # paper → [sum, sign of the newest]
    for paper_id, kind, _at in rows:
        sign = -1 if kind in NEGATIVE_KINDS else 1
        vote = votes.setdefault(paper_id, [0, sign])  # rows come newest first
        vote[0] += sign
    positives = tuple(p for p, (total, newest) in votes.items() if (total or newest) > 0)
    negatives = tuple(p for p, (total, newest) in votes.items() if (total or newest) < 0)
    return Signals(positives=positives, negatives=negatives)


class SignalLog:
    """Signals over the store.

    Args:
        store: the store's signals (``bot.core.store_port.SignalRecords``).
        now: the clock (aware UTC).
    """

    def __init__(self, store: SignalRecords, now: Callable[[], datetime]) -> None:
        self.store, self.now = store, now

    def record(
        self, team: str, subject: str, paper_id: str, kind: str, *, by: str | None = None, at: datetime | None = None
    ) -> None:
        """Record one signal for ``subject`` (a user, or a channel), given by ``by``.

        Args:
            team: Slack team id.
            subject: a user id ("U…"/"W…") or a conversation id ("C…"/"G…"/"D…").
            paper_id: the paper.
            kind: one of ``bot.core.models.SIGNAL_KINDS``.
            by: the user who gave it (default ``subject``): ``/paper forget`` deletes
                what they gave, for any subject.
            at: aware UTC time it happened (default now); an older write than the
                one stored changes nothing.

        Raises:
            ValueError: an unknown ``kind``.
        """
        self._put(team, subject, paper_id, kind, by, at, active=True)

    def remove(
        self, team: str, subject: str, paper_id: str, kind: str, *, by: str | None = None, at: datetime | None = None
    ) -> None:
        """Take one signal back (a reaction removed, a paper removed from the reading list).

        Args:
            team: Slack team id.
            subject: whom it counted for.
            paper_id: the paper.
            kind: one of ``SIGNAL_KINDS``.
            by: who gave it (default ``subject``).
            at: aware UTC time of the removal (default now).

        Raises:
            ValueError: an unknown ``kind``.
        """
        self._put(team, subject, paper_id, kind, by, at, active=False)

    def _put(
        self, team: str, subject: str, paper_id: str, kind: str, by: str | None, at: datetime | None, active: bool
    ) -> None:
        if kind not in SIGNAL_KINDS:
            raise ValueError(f"unknown signal kind {kind!r}")
        if not self.store.put_signal(
            team, subject, by or subject, paper_id, kind, active=active, at=at if at is not None else self.now()
        ):
            log.info("signal %s of %s on %r not stored: an id is empty or too long", kind, subject, paper_id[:40])

    def signals(self, team: str, subject: str) -> Signals:
        """The subject's positives and negatives, each paper once, most recent first.

        Args:
            team: Slack team id.
            subject: a user id or a channel id.
        """
        return fold(self.store.signal_rows(team, subject))

    def forget(self, team: str, user: str, reading_list: bool = False) -> int:
        """Delete every signal ``user`` gave (their own and their part of channels'),
        and with ``reading_list`` their reading list too.

        Args:
            team: Slack team id.
            user: the user's id.
            reading_list: True also empties their reading list.

        Returns:
            int: signals in force forgotten, counted as the user made them
            (``actions``), plus reading-list entries removed.
        """
        kinds, entries = self._forget(team, user, reading_list)
        return sum(kinds.values()) + entries

    def _forget(self, team: str, user: str, reading_list: bool) -> tuple[Counter, int]:
        kinds = actions(user, self.store.forget_signals(team, user))
        entries = self.store.clear_reading_list(team, user) if reading_list else 0
        return kinds, entries

    def forget_reply(self, ctx: Context, everything: bool = False) -> Reply:
        """``/paper forget`` (``everything``: ``/paper forget everything``): forget and
        say what was deleted, with counts of each kind, to the asker only.

        Args:
            ctx: who asks (team and user).
            everything: True also empties their reading list.
        """
        kinds, entries = self._forget(ctx.team_id, ctx.user_id, everything)
        total = sum(kinds.values())
        said = (
            f"I forgot {_count(total, 'signal')} of yours: {_kinds_text(kinds)}"
            if total
            else "I had no signals of yours to forget (saves, shares, reactions and buttons)"
        )
        if everything:
            said += f" and removed {_count(entries, 'paper')} from your reading list."
        else:
            said += ". Your reading list is kept: `/paper forget everything` empties it too."
        return NoticeReply(text=said + " Recommendations start afresh from what you do next.", visibility=EPHEMERAL)

    # ------------------------------------------------------------ what happens in Slack
    def saved(self, ctx: Context, paper_id: str, kept: bool = True) -> None:
        """A paper was added to (``kept``) or removed from ``ctx.user_id``'s reading list.

        Args:
            ctx: whose list (team and user).
            paper_id: the paper.
            kept: True when added, False when removed.
        """
        self._put(ctx.team_id, ctx.user_id, paper_id, "saved", None, None, active=kept)

    def shared(self, ctx: Context, paper_id: str, ts: str | None = None) -> None:
        """``ctx.user_id`` shared ``paper_id`` into ``ctx.channel_id``: a positive for
        them and for that channel; the card's ``ts`` (when Slack gave one) is
        remembered, so reactions on it count.

        Args:
            ctx: the sharer, and where it was shared (a channel, a DM).
            paper_id: the paper.
            ts: the card's ``ts``, or None (posted through a ``response_url``).
        """
        self.record(ctx.team_id, ctx.user_id, paper_id, "shared")
        if is_channel(ctx.channel_id):
            self.record(ctx.team_id, ctx.channel_id, paper_id, "shared", by=ctx.user_id)
        if ts:
            self.posted(ctx.team_id, ctx.channel_id, ts, paper_id)

    def posted(self, team: str, channel: str, ts: str, paper_id: str) -> None:
        """The bot posted a message about one paper: remember it for reactions.

        Args:
            team: Slack team id.
            channel: where it was posted.
            ts: the message's ``ts``.
            paper_id: the one paper it shows.
        """
        self.store.record_post(team, channel, ts, paper_id, self.now())

    def reaction(self, ctx: Context, ts: str, name: object, *, added: bool, at: datetime | None = None) -> str | None:
        """A reaction ``name`` added (or removed) by ``ctx.user_id`` on the message
        ``ts`` in ``ctx.channel_id``: 👍 / 👎 on the bot's post about one paper
        count for the user and for the channel; anything else is ignored.

        Args:
            ctx: who reacted, and in which conversation.
            ts: the message reacted to.
            name: the reaction's name (``thumbsup::skin-tone-2`` …).
            added: True for ``reaction_added``, False for ``reaction_removed``.
            at: aware UTC time of the reaction (``event_ts``; default now).

        Returns:
            str | None: the paper id it counted for, or None when ignored.
        """
        kind = reaction_kind(name)
        if kind is None or not ctx.user_id or not ts:
            return None
        paper_id = self.store.post_paper(ctx.team_id, ctx.channel_id, ts, ctx.user_id)
        if paper_id is None:
            return None
        subjects = [ctx.user_id] + ([ctx.channel_id] if is_channel(ctx.channel_id) else [])
        for subject in subjects:
            self._put(ctx.team_id, subject, paper_id, kind, ctx.user_id, at, active=added)
        return paper_id


#: How ``/paper forget`` names each kind: (one, several).
KIND_WORDS = {
    "saved": ("save", "saves"),
    "shared": ("share", "shares"),
    "more": ("*More like this*", "*More like this*"),
    "not_for_me": ("*Not for me*", "*Not for me*"),
    "up": ("👍", "👍"),
    "down": ("👎", "👎"),
}


def actions(user: str, rows: Iterable[tuple[str, str, str]]) -> Counter:
    """Signals as the user made them, per kind: one 👍 in a channel (or one share into it) is
    stored for the user and for the channel, and counts once.

    Args:
        user: the user's id.
        rows: ``(subject, paper_id, kind)`` of the signals they gave or that count for them.

    Returns:
        Counter: kind → how many (a channel's row each, plus the user's own rows that no
        channel row of the same paper and kind stands for).
    """
    theirs = {(pid, kind) for subject, pid, kind in rows if subject == user}
    in_channels = [(pid, kind) for subject, pid, kind in rows if subject != user]
    made = Counter(kind for _pid, kind in in_channels)
    made.update(kind for pid, kind in theirs - set(in_channels))
    return made


def _kinds_text(kinds: Counter) -> str:
    """``4 saves, 1 share and 1 👍`` (the order of ``SIGNAL_KINDS``)."""
    parts = [f"{n:,} {KIND_WORDS[k][n != 1]}" for k in SIGNAL_KINDS if (n := kinds.get(k, 0))]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
