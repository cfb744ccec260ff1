"""Share once per message and paper (issue 12 point 4), over the store's marks
(``Store.mark_once``).

A share is keyed by where it was clicked — ``<team>:<channel>:<message ts>:<paper id>`` —
and claimed with ``Store.mark_once`` before anything is posted, so two clicks
(or two processes) post one card. A post that fails releases the claim.
No Slack types here (docs/architecture.md "Layers").
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterable

from bot.core.store_port import OnceMarks

KIND = "share"


def share_key(team: str, channel: str, message_ts: str, paper_id: str) -> str:
    """The claim key of one share (≤ 255 chars).

    Args:
        team: Slack team id.
        channel: the channel of the clicked message.
        message_ts: the clicked message's ``ts``.
        paper_id: the shared paper.
    """
    return f"{team}:{channel}:{message_ts}:{paper_id}"[:255]


class Sharing:
    """Claims, releases and looks up shares.

    Args:
        store: the store's once-only marks (``mark_once``, ``mark``, ``unmark``).
        now: the clock (aware UTC datetimes).
    """

    def __init__(self, store: OnceMarks, now: Callable[[], datetime]) -> None:
        self._store = store
        self._now = now

    def claim(self, key: str, target: str) -> tuple[bool, str | None]:
        """``(True, target)`` when this caller may post the share into ``target``,
        else ``(False, where it was shared before)``.

        Args:
            key: the share's ``share_key``.
            target: the channel id the share would be posted into.
        """
        if self._store.mark_once(KIND, key, detail=target, now=self._now()):
            return True, target
        return False, self._store.mark(KIND, key)[1]

    def release(self, key: str) -> None:
        """Forget the claim (the post failed), so a new click may try again."""
        self._store.unmark(KIND, key)

    def where(self, keys: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        """``(paper id, channel)`` for each ``(paper id, key)`` already shared."""
        out = []
        for paper_id, key in keys:
            found, target = self._store.mark(KIND, key)
            if found and target:
                out.append((paper_id, target))
        return tuple(out)
