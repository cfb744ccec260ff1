"""Signals in the SQL store (issue 22; docs/interfaces.md "Signals"): what each
user and each channel told paperbot about papers, and the bot's posts about one
paper, so a reaction on one can name its paper.

A signal row is ``(team, subject, actor, paper_id, kind)``: ``subject`` is whom
it counts for (a user, or a channel), ``actor`` the user who gave it. A removed
signal (a reaction taken back, a paper removed from a reading list) stays as a
row with ``active`` False and the time of the removal: Slack does not promise to
deliver ``reaction_added`` before ``reaction_removed``, and the work queue may
run both at once, so each write wins only over an older one (last writer wins on
``at``, one atomic ``INSERT … ON CONFLICT DO UPDATE … WHERE`` on SQLite and
PostgreSQL: https://sqlite.org/lang_upsert.html,
https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT).
``forget_signals`` deletes every row a user gave or that counts for them.

Which paper a post is about: ``bot_posts`` (shares, mention answers, recorded
when posted) and the digest's ``deliveries`` (``message_ts``), the latter only
when that day's post held one paper (a channel's own rotation of ``N papers``
stores one ``topic_picks`` row per paper). Part of ``bot.store.Store``; the
methods use ``self._engine``.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import bot_posts as posts_t
from bot.store.schema import deliveries as deliv_t
from bot.store.schema import signals as signals_t
from bot.store.schema import topic_picks as picks_t

#: Most signals read for one subject (the newest): a model trains on these.
MAX_SIGNALS = 2000
#: Longest id or kind stored (the columns' sizes); longer input is not stored.
_SIZES = {"team": 32, "subject": 32, "actor": 32, "paper_id": 200, "kind": 16, "channel": 32, "ts": 32}
_KEY = ["team", "subject", "actor", "paper_id", "kind"]


def _fits(**values: str) -> bool:
    """True when every value is a non-empty string within its column's size."""
    return all(isinstance(v, str) and 0 < len(v) <= _SIZES[k] for k, v in values.items())


def _upsert(dialect: str):
    """The dialect's ``INSERT`` construct that knows ``ON CONFLICT``."""
    return (postgresql if dialect == "postgresql" else sqlite).insert


class SignalStore:
    """Signals per team and subject, and the bot's single-paper posts."""

    _engine: sa.Engine

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
        """Record (``active``) or remove (not ``active``) one signal, unless the
        row holds a newer write (then nothing changes).

        Args:
            team: Slack team id.
            subject: whom it counts for: a user id or a channel id.
            actor: the user who gave it.
            paper_id: the paper.
            kind: ``bot.core.models.SIGNAL_KINDS`` (not checked here).
            active: True records it, False removes it.
            at: aware UTC time it happened (default: now).

        Returns:
            bool: False when an id is empty or too long for its column (nothing
            stored), else True.
        """
        if not _fits(team=team, subject=subject, actor=actor, paper_id=paper_id, kind=kind):
            return False
        when = at if at is not None else utc_now()
        row = dict(team=team, subject=subject, actor=actor, paper_id=paper_id, kind=kind, active=active, at=when)
        insert = _upsert(self._engine.dialect.name)(signals_t).values(**row)
        statement = insert.on_conflict_do_update(
            index_elements=_KEY,
            set_={"active": insert.excluded.active, "at": insert.excluded.at},
            where=signals_t.c.at <= insert.excluded.at,
        )
        with transaction(self._engine, write=True) as conn:
            conn.execute(statement)
        return True

    def signal_rows(self, team: str, subject: str, limit: int = MAX_SIGNALS) -> list[tuple[str, str, datetime]]:
        """The subject's signals in force, newest first: ``(paper_id, kind, at)``.

        Args:
            team: Slack team id.
            subject: a user id or a channel id.
            limit: most rows (the newest).
        """
        query = (
            sa.select(signals_t.c.paper_id, signals_t.c.kind, signals_t.c.at)
            .where(signals_t.c.team == team, signals_t.c.subject == subject, signals_t.c.active.is_(True))
            .order_by(signals_t.c.at.desc(), signals_t.c.paper_id, signals_t.c.kind)
            .limit(max(0, int(limit)))
        )
        with transaction(self._engine) as conn:
            return [(r.paper_id, r.kind, r.at) for r in conn.execute(query)]

    def forget_signals(self, team: str, user: str) -> list[tuple[str, str, str]]:
        """Delete every signal ``user`` gave (for themselves or for a channel) or
        that counts for them.

        Args:
            team: Slack team id.
            user: the user's id.

        Returns:
            list[tuple[str, str, str]]: the signals in force deleted, as
            ``(subject, paper_id, kind)`` (removed ones, kept only for their time,
            are deleted too but not returned).
        """
        mine = sa.and_(signals_t.c.team == team, sa.or_(signals_t.c.actor == user, signals_t.c.subject == user))
        with transaction(self._engine, write=True) as conn:
            rows = conn.execute(
                sa.select(signals_t.c.subject, signals_t.c.paper_id, signals_t.c.kind).where(
                    mine, signals_t.c.active.is_(True)
                )
            ).all()
            conn.execute(signals_t.delete().where(mine))
        return [(r.subject, r.paper_id, r.kind) for r in rows]

    # ------------------------------------------------------------ the bot's posts
    def record_post(self, team: str, channel: str, ts: str, paper_id: str, now: datetime | None = None) -> bool:
        """Remember that the bot's message ``ts`` in ``channel`` is about ``paper_id``.

        Args:
            team: Slack team id.
            channel: the conversation id the message is in.
            ts: the message's ``ts``.
            paper_id: the one paper it shows.
            now: aware UTC time (default: now).

        Returns:
            bool: True when recorded; False when it was recorded before or an id
            does not fit.
        """
        if not _fits(team=team, channel=channel, ts=ts, paper_id=paper_id):
            return False
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    posts_t.insert().values(
                        team=team, channel=channel, ts=ts, paper_id=paper_id, at=now if now is not None else utc_now()
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def post_paper(self, team: str, channel: str, ts: str, user: str = "") -> str | None:
        """The paper the bot's message ``ts`` is about, or None (not the bot's, or
        about several papers or none).

        A digest post is found by its ``message_ts`` in ``channel`` — or, for a
        personal feed (whose subscription's channel is the user id while the post
        is in their DM), under ``user``.

        Args:
            team: Slack team id.
            channel: the conversation the message is in.
            ts: the message's ``ts``.
            user: who reacted (finds their personal feed's posts).
        """
        if not _fits(team=team, channel=channel, ts=ts):
            return None
        channels = [channel] + ([user] if user and user != channel else [])
        with transaction(self._engine) as conn:
            found = conn.execute(
                sa.select(posts_t.c.paper_id).where(
                    posts_t.c.team == team, posts_t.c.channel == channel, posts_t.c.ts == ts
                )
            ).scalar()
            if found is not None:
                return found
            row = conn.execute(
                sa.select(deliv_t.c.channel, deliv_t.c.local_date, deliv_t.c.paper_id)
                .where(deliv_t.c.team == team, deliv_t.c.message_ts == ts, deliv_t.c.channel.in_(channels))
                .limit(1)
            ).first()
            if row is None or not row.paper_id:
                return None
            papers = conn.execute(
                sa.select(sa.func.count(sa.distinct(picks_t.c.position))).where(
                    picks_t.c.team == team, picks_t.c.channel == row.channel, picks_t.c.local_date == row.local_date
                )
            ).scalar()
        return row.paper_id if int(papers or 0) <= 1 else None
