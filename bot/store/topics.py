"""A channel's own rotation in the SQL store: the papers picked for each local
date, per topic, and which pass ("cycle") of the topic's papers each belongs to.

Part of ``bot.store.Store``; the methods use ``self._engine``. The first
caller for a (team, channel, date, topic) INSERTs the whole pick in one
transaction; a concurrent caller's INSERT hits the primary key and reads the
winner's rows instead, so the digest, ``/paper today`` and every process
agree (docs/interfaces.md "Paper of the day").
"""

from __future__ import annotations

from datetime import date
from typing import Callable

import sqlalchemy as sa

from bot.store.db import transaction
from bot.store.schema import topic_picks as picks_t

#: ``choose(cycle, seen) -> [(paper id, cycle)]``: the pick given the latest
#: cycle number and the ids already picked in it.
Choose = Callable[[int, set], list]


def _topic_key(topic: str | None) -> str:
    return (topic or "")[:200]


class TopicPickStore:
    """Per-channel picks: read a date's, or make them once."""

    _engine: sa.Engine

    def channel_picks(self, team: str, channel: str, day: date, topic: str | None) -> list[str]:
        """The paper ids already picked for this channel, date and topic, in order ([] if none).

        Args:
            team: Slack team id.
            channel: Slack channel id (a user id for a personal feed).
            day: the local date.
            topic: the channel's topic (None: none).
        """
        with transaction(self._engine) as conn:
            return [
                r.paper_id
                for r in conn.execute(
                    sa.select(picks_t.c.paper_id)
                    .where(*self._where(team, channel, topic), picks_t.c.local_date == day)
                    .order_by(picks_t.c.position)
                )
            ]

    def picks_for_date(self, team: str, channel: str, day: date, topic: str | None, choose: Choose) -> list[str]:
        """This channel's papers of ``day`` for ``topic``, picked with ``choose`` the first time.

        Args:
            team, channel: Slack ids (a user id for a personal feed).
            day: the channel's local date.
            topic: the topic query (None/"" = the whole corpus).
            choose: ``choose(cycle, seen)`` → ``[(paper_id, cycle), …]``, given
                the channel's latest cycle for this topic and the ids picked
                in it (on any earlier date). Called only when ``day`` has no
                pick; an empty list stores nothing.

        Returns:
            list[str]: the ids, in post order — the stored ones when another
            caller picked first.
        """
        have = self.channel_picks(team, channel, day, topic)
        if have:
            return have
        cycle, seen = self.channel_cycle(team, channel, topic, before=day)
        chosen = choose(cycle, seen)
        if not chosen:
            return []
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    picks_t.insert(),
                    [
                        {
                            "team": team,
                            "channel": channel,
                            "local_date": day,
                            "topic": _topic_key(topic),
                            "position": i,
                            "paper_id": pid,
                            "cycle": c,
                        }
                        for i, (pid, c) in enumerate(chosen)
                    ],
                )
        except sa.exc.IntegrityError:
            pass  # another process picked first: read its pick
        return self.channel_picks(team, channel, day, topic)

    def drop_channel_picks(self, team: str, channel: str, day: date, topic: str | None) -> int:
        """Forget a date's pick (every paper of it left the index before it was
        posted), so the next ``picks_for_date`` picks again; returns rows deleted.

        Args:
            team: Slack team id.
            channel: Slack channel id (a user id for a personal feed).
            day: the local date.
            topic: the channel's topic (None: none).
        """
        with transaction(self._engine, write=True) as conn:
            return conn.execute(
                picks_t.delete().where(*self._where(team, channel, topic), picks_t.c.local_date == day)
            ).rowcount

    def channel_cycle(self, team: str, channel: str, topic: str | None, before: date | None = None) -> tuple[int, set]:
        """(latest cycle number, ids picked in it) of a channel's topic rotation.

        Args:
            team: Slack team id.
            channel: Slack channel id (a user id for a personal feed).
            topic: the channel's topic (None: none).
            before: only picks of dates before this one count (None: all).
        """
        where = list(self._where(team, channel, topic))
        if before is not None:
            where.append(picks_t.c.local_date < before)
        with transaction(self._engine) as conn:
            cycle = conn.execute(sa.select(sa.func.max(picks_t.c.cycle)).where(*where)).scalar()
            if cycle is None:
                return 0, set()
            seen = {
                r.paper_id for r in conn.execute(sa.select(picks_t.c.paper_id).where(*where, picks_t.c.cycle == cycle))
            }
        return int(cycle), seen

    @staticmethod
    def _where(team: str, channel: str, topic: str | None):
        return (picks_t.c.team == team, picks_t.c.channel == channel, picks_t.c.topic == _topic_key(topic))
