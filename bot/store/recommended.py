"""What a learning subscription posts (issue 22): the papers of each local date of a
``for me`` or ``for this channel`` subscription, kept for good, so no paper goes twice to
the same person or channel.

Part of ``bot.store.Store``; the methods use ``self._engine``. The first caller for a
(team, target, date) INSERTs the date's papers in one transaction; a concurrent caller's
INSERT hits the primary key (or the unique (team, target, paper_id) index) and reads the
winner's rows instead, so the digest, ``/paper today`` and every process agree — the
pattern of ``bot.store.topics``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Callable

import sqlalchemy as sa

from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import recommended_posts as rec_t

#: ``choose(posted) -> [(paper id, how, why)]``: a date's papers given every id the target had
#: (``how``: "pick", "fallback" or "rotation"; ``why``: the explanation as text, or None).
ChoosePosted = Callable[[set], list]


def _key(team: str, target: str):
    return sa.and_(rec_t.c.team == team, rec_t.c.target == target)


class RecommendedStore:
    """A learning subscription's papers per date: read them, or choose them once."""

    _engine: sa.Engine

    def recommended_on(self, team: str, target: str, day: date) -> list[tuple[str, str, str | None]]:
        """``[(paper id, how, why)]`` of ``day`` in order ([] before they are chosen).

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
        """
        with transaction(self._engine) as conn:
            return [
                (r.paper_id, r.how, r.why)
                for r in conn.execute(
                    sa.select(rec_t.c.paper_id, rec_t.c.how, rec_t.c.why)
                    .where(_key(team, target), rec_t.c.local_date == day)
                    .order_by(rec_t.c.position)
                )
            ]

    def fell_back_before(self, team: str, target: str, day: date) -> bool:
        """True when a date before ``day`` already posted the rotation instead of picks
        (the post that first falls back says why, once).

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
        """
        with transaction(self._engine) as conn:
            found = conn.execute(
                sa.select(rec_t.c.paper_id)
                .where(_key(team, target), rec_t.c.local_date < day, rec_t.c.how == "fallback")
                .limit(1)
            ).first()
        return found is not None

    def recommend_once(
        self, team: str, target: str, day: date, choose: ChoosePosted, now: datetime | None = None
    ) -> list[tuple[str, str, str | None]]:
        """``day``'s ``[(paper id, how, why)]``, chosen with ``choose(posted ids)`` the first time.

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
            day: the local date.
            choose: the date's papers given every id the target already had; a chosen id
                the target had is dropped.
            now: aware UTC time (default: the real clock).
        """
        have = self.recommended_on(team, target, day)
        if have:
            return have
        with transaction(self._engine) as conn:
            posted = {r.paper_id for r in conn.execute(sa.select(rec_t.c.paper_id).where(_key(team, target)))}
        chosen, seen = [], set(posted)
        for pid, how, why in choose(posted):
            if pid not in seen:
                chosen.append((pid, how, why))
                seen.add(pid)
        if not chosen:
            return []
        at = now if now is not None else utc_now()
        rows = [
            dict(team=team, target=target, local_date=day, position=i, paper_id=pid, how=how, why=why, at=at)
            for i, (pid, how, why) in enumerate(chosen)
        ]
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(rec_t.insert(), rows)
        except sa.exc.IntegrityError:  # another process chose this date (or one of these papers) first
            return self.recommended_on(team, target, day)
        return chosen

    def recommended_ids(self, team: str, target: str) -> set[str]:
        """Every paper id chosen for ``target`` on any date.

        Args:
            team: Slack team id.
            target: the channel id, or the user id of a personal feed.
        """
        with transaction(self._engine) as conn:
            return {r.paper_id for r in conn.execute(sa.select(rec_t.c.paper_id).where(_key(team, target)))}
