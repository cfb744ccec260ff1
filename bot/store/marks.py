"""Things done once and remembered for good: onboarding notes and shares.

Table ``marks(kind, key, at, detail)`` (schema version 5, ``bot.store.schema``):
the primary key ``(kind, key)`` makes ``mark_once`` true for exactly one
caller, across threads, processes and restarts — the same INSERT-claim as
``deliveries`` (docs/architecture.md "Where a digest is claimed"). Unlike
``handled_events`` these rows are never purged.

Kinds used: ``"onboard"`` (key ``user:<team>:<user>`` or
``channel:<team>:<channel>``) and ``"share"`` (key
``<team>:<channel>:<message ts>:<paper id>``, detail: where it was shared).
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlalchemy as sa

from bot.store.db import transaction
from bot.store.schema import marks as marks_t

KEY_MAX = 255
DETAIL_MAX = 200


class MarkStore:
    """``mark_once`` / ``mark``; mixed into ``bot.store.Store`` (needs ``_engine``)."""

    def mark_once(self, kind: str, key: str, detail: str | None = None, now: datetime | None = None) -> bool:
        """Record ``(kind, key)``; True the first time, False ever after.

        Args:
            kind: "onboard" or "share" (≤ 32 chars).
            key: what was done (≤ 255 chars).
            detail: a short note kept with it (≤ 200 chars; cut), or None.
            now: aware UTC time stored with it (default: the real clock).

        Raises:
            ValueError: ``kind`` or ``key`` empty or too long.
        """
        if not kind or len(kind) > 32 or not key or len(key) > KEY_MAX:
            raise ValueError("mark kind must be 1..32 and key 1..255 characters")
        at = now or datetime.now(timezone.utc)
        try:
            with transaction(self._engine, write=True) as conn:
                conn.execute(
                    marks_t.insert().values(kind=kind, key=key, at=at, detail=(detail or None) and detail[:DETAIL_MAX])
                )
            return True
        except sa.exc.IntegrityError:
            return False

    def mark(self, kind: str, key: str) -> tuple[bool, str | None]:
        """``(found, detail)`` for ``(kind, key)``: whether it was recorded, and its note."""
        with transaction(self._engine) as conn:
            row = conn.execute(sa.select(marks_t.c.detail).where(marks_t.c.kind == kind, marks_t.c.key == key)).first()
        return (row is not None, row.detail if row is not None else None)

    def unmark(self, kind: str, key: str) -> None:
        """Forget ``(kind, key)`` (a share whose post failed may be tried again)."""
        with transaction(self._engine, write=True) as conn:
            conn.execute(marks_t.delete().where(marks_t.c.kind == kind, marks_t.c.key == key))
