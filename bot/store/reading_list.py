"""Reading lists in the SQL store: one row per (team, user, paper) with a
snapshot of the paper's fields (docs/interfaces.md "Reading list").

Part of ``bot.store.Store``; the methods use ``self._engine``. Every query is
scoped to one team and one user: nothing of one user is visible to another.
The table and its columns keep their first names (``saved_papers``,
``saved_at``) so existing databases open unchanged; in the code the concept
is the reading list, and "save" names only the user's action (the *Save* button).
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from bot.core.models import ReadingListEntry
from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import saved_papers as reading_list_t

#: Authors are stored one per line (names never contain a newline).
_SEP = "\n"
#: Most entries one reading list keeps (a Save beyond it is refused).
MAX_ENTRIES = 1000


def _entry(row) -> ReadingListEntry:
    return ReadingListEntry(
        paper_id=row.paper_id,
        title=row.title,
        title_derived=bool(row.title_derived),
        authors=tuple(a for a in (row.authors or "").split(_SEP) if a),
        venue=row.venue or "",
        year=row.year,
        url=row.url,
        saved_at=row.saved_at,
    )


def _mine(team: str, user: str):
    return sa.and_(reading_list_t.c.team == team, reading_list_t.c.user_id == user)


class ReadingListStore:
    """Add, remove and list the entries of a user's reading list."""

    _engine: sa.Engine

    def add_reading_list_entry(
        self, team: str, user: str, entry: ReadingListEntry, now: datetime | None = None
    ) -> bool:
        """Add ``entry`` to the user's reading list.

        Args:
            team, user: Slack ids.
            entry: the snapshot (``saved_at`` is set to ``now``).
            now: aware UTC time (default: the real clock).

        Returns:
            bool: True when it was added, False when it was already there or
            the list holds ``MAX_ENTRIES`` entries (see ``reading_list_count``).
        """
        if self.reading_list_count(team, user) >= MAX_ENTRIES:
            return False
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    reading_list_t.insert().values(
                        team=team,
                        user_id=user,
                        paper_id=entry.paper_id,
                        saved_at=now if now is not None else utc_now(),
                        title=entry.title,
                        title_derived=entry.title_derived,
                        authors=_SEP.join(entry.authors),
                        venue=entry.venue[:200],
                        year=entry.year,
                        url=entry.url,
                    )
                )
            return True
        except sa.exc.IntegrityError:
            return False

    def remove_reading_list_entry(self, team: str, user: str, paper_id: str) -> bool:
        """Remove a paper from the user's list; True when it was there.

        Args:
            team, user: Slack ids (the list's owner).
            paper_id: the entry's paper id.
        """
        with transaction(self._engine, write=True) as conn:
            return (
                conn.execute(
                    reading_list_t.delete().where(_mine(team, user), reading_list_t.c.paper_id == paper_id)
                ).rowcount
                > 0
            )

    def clear_reading_list(self, team: str, user: str) -> int:
        """Remove every entry of the user's reading list (``/paper forget everything``).

        Args:
            team, user: Slack ids (the list's owner).

        Returns:
            int: how many entries were removed.
        """
        with transaction(self._engine, write=True) as conn:
            return int(conn.execute(reading_list_t.delete().where(_mine(team, user))).rowcount or 0)

    def get_reading_list_entry(self, team: str, user: str, paper_id: str) -> ReadingListEntry | None:
        """The user's entry for ``paper_id``, or None when it is not in their list.

        Args:
            team, user: Slack ids (the list's owner).
            paper_id: the entry's paper id.
        """
        with transaction(self._engine) as conn:
            row = conn.execute(
                sa.select(reading_list_t).where(_mine(team, user), reading_list_t.c.paper_id == paper_id)
            ).first()
        return _entry(row) if row is not None else None

    def reading_list_count(self, team: str, user: str) -> int:
        """How many entries the user's reading list holds.

        Args:
            team, user: Slack ids (the list's owner).
        """
        with transaction(self._engine) as conn:
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(reading_list_t).where(_mine(team, user))).scalar()
                or 0
            )

    def reading_list_entries(
        self, team: str, user: str, offset: int = 0, limit: int | None = None
    ) -> list[ReadingListEntry]:
        """The entries of the user's reading list, newest first (ties by paper id).

        Args:
            team, user: Slack ids (the list's owner).
            offset, limit: a page of them (``limit`` None: all from ``offset``).
        """
        query = (
            sa.select(reading_list_t)
            .where(_mine(team, user))
            .order_by(reading_list_t.c.saved_at.desc(), reading_list_t.c.paper_id)
            .offset(max(0, int(offset)))
        )
        if limit is not None:
            query = query.limit(max(0, int(limit)))
        with transaction(self._engine) as conn:
            return [_entry(r) for r in conn.execute(query)]
