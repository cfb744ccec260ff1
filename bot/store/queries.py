"""Long queries kept for the buttons that page through them (issue 11 point 2).

A Slack button ``value`` holds at most 2,000 characters (docs/slack-rules.md),
and a query may hold 4,000 (docs/interfaces.md "Rules every reply obeys"). So a
long query is stored here under a short key — a hash of its text chosen by the
caller (``bot.service.query_keys``) — and the button carries the key. Table
``query_keys(key, text, used_at)`` (schema version 6, ``bot.store.schema``):
each use moves ``used_at`` on; rows unused for a while are purged.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from bot.core.parsing import MAX_INPUT
from bot.store.db import transaction
from bot.store.schema import query_keys as keys_t

KEY_MAX = 32
TEXT_MAX = MAX_INPUT  # nothing longer is ever searched, so nothing longer is kept


class QueryStore:
    """``keep_query`` / ``query_text`` / ``purge_queries``; mixed into
    ``bot.store.Store`` (needs ``_engine``)."""

    def keep_query(self, key: str, text: str, now: datetime) -> None:
        """Store ``text`` under ``key`` (or, already there, mark it used at ``now``).

        Args:
            key: 1..32 characters (a hash of ``text``).
            text: the query, 1..4,000 characters.
            now: aware UTC time of this use.

        Raises:
            ValueError: ``key`` or ``text`` empty or too long.
        """
        if not key or len(key) > KEY_MAX or not text or len(text) > TEXT_MAX:
            raise ValueError(f"query key must be 1..{KEY_MAX} and text 1..{TEXT_MAX} characters")
        try:
            with transaction(self._engine, write=True) as conn:
                done = conn.execute(keys_t.update().where(keys_t.c.key == key).values(text=text, used_at=now)).rowcount
                if not done:
                    conn.execute(keys_t.insert().values(key=key, text=text, used_at=now))
        except sa.exc.IntegrityError:
            pass  # another process stored the same key (and so the same text) meanwhile

    def query_text(self, key: str) -> str | None:
        """The query stored under ``key``, or None (never stored, or purged)."""
        if not isinstance(key, str) or not key or len(key) > KEY_MAX:
            return None
        with transaction(self._engine) as conn:
            return conn.execute(sa.select(keys_t.c.text).where(keys_t.c.key == key)).scalar()

    def purge_queries(self, before: datetime) -> int:
        """Delete the queries last used before ``before`` (aware UTC); returns how many."""
        with transaction(self._engine, write=True) as conn:
            return conn.execute(keys_t.delete().where(keys_t.c.used_at < before)).rowcount or 0
