"""The reading list from the user's side: save, remove, list, export
(issue 13 point 5; docs/interfaces.md "Reading list").

An entry is a snapshot of the paper's fields at the time (title and
whether it was derived, authors, venue, year, url, id), so it still lists and
exports after an index rebuild removed the paper — marked as no longer in the
index. Everything is per team and per user (the ``Context``'s ids).
Service layer: no Slack, SQL or Whoosh types. "Save" names the user's action
(the *Save* button); ``/paper saved`` keeps the sub-command users know.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterable

from bot.core.index_port import ServiceIndex
from bot.core.models import Context, Paper, ReadingListEntry
from bot.core.pages import page_url
from bot.core.replies import EPHEMERAL, NoticeReply, ReadingListReply, Reply
from bot.core.store_port import ReadingLists
from bot.service import reading_list_export
from bot.service.reading_list_export import Export
from bot.service.signals import SignalLog

#: Entries per page of ``/paper saved`` and the App Home's list.
ENTRIES_PER_PAGE = 5


def snapshot(paper: Paper) -> ReadingListEntry:
    """The fields of ``paper`` a reading list keeps; ``url`` is its page (``bot.core.pages.page_url``)."""
    return ReadingListEntry(
        paper_id=paper.id,
        title=paper.title,
        title_derived=paper.title_derived,
        authors=tuple(paper.authors),
        venue=paper.venue or "",
        year=reading_list_export.year_of(paper.venue),
        url=page_url(paper),
    )


class ReadingList:
    """Reading lists over the store, checked against the index.

    Args:
        index: ``get(id) -> Paper | None``.
        store: the store's reading lists (``bot.core.store_port.ReadingLists``).
        now: the clock (aware UTC).
        signals: where a save and a removal are recorded as the user's ``saved``
            signal (``bot.service.signals``); None records nothing.
    """

    def __init__(
        self, index: ServiceIndex, store: ReadingLists, now: Callable[[], datetime], signals: SignalLog | None = None
    ) -> None:
        self.index, self.store, self.now, self.signals = index, store, now, signals

    def save(self, paper_id: str, ctx: Context) -> Reply:
        """Add the paper to ``ctx.user_id``'s list; a short ephemeral note.

        Args:
            paper_id: the paper to add (must be in the index).
            ctx: whose list (team and user).
        """
        paper = self.index.get(paper_id) if paper_id else None
        if paper is None:
            return NoticeReply(text="That paper is no longer in the index, so I can't save it.")
        if self.store.add_reading_list_entry(ctx.team_id, ctx.user_id, snapshot(paper), self.now()):
            self._signal(ctx, paper.id, kept=True)
            return NoticeReply(
                text=f"Saved “{_short(paper.title)}” to your reading list (`/paper saved` or my Home tab)."
            )
        if self.store.get_reading_list_entry(ctx.team_id, ctx.user_id, paper.id) is not None:
            self._signal(ctx, paper.id, kept=True)  # counts again after `/paper forget`
            return NoticeReply(text=f"“{_short(paper.title)}” is already in your reading list.")
        return NoticeReply(text="Your reading list is full; remove a few papers first.")

    def remove(self, paper_id: str, ctx: Context) -> Reply:
        """Remove the paper from ``ctx.user_id``'s list; the note names it.

        Args:
            paper_id: the entry's paper id (it may have left the index).
            ctx: whose list (team and user).
        """
        entry = self.store.get_reading_list_entry(ctx.team_id, ctx.user_id, paper_id)
        if entry is not None and self.store.remove_reading_list_entry(ctx.team_id, ctx.user_id, paper_id):
            self._signal(ctx, paper_id, kept=False)
            return NoticeReply(text=f"Removed “{_short(entry.title or paper_id)}” from your reading list.")
        return NoticeReply(text="That paper was not in your reading list.")

    def saved_among(self, ctx: Context, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of ``paper_ids`` are in ``ctx.user_id``'s list (one look-up each:
        a page or a card holds a few).

        Args:
            ctx: whose list (team and user).
            paper_ids: the papers to look for.
        """
        return frozenset(
            pid for pid in paper_ids if self.store.get_reading_list_entry(ctx.team_id, ctx.user_id, pid) is not None
        )

    def page(self, ctx: Context, offset: int = 0, visibility: str = EPHEMERAL) -> ReadingListReply:
        """One page of the list, newest first (``ReadingListReply``).

        Args:
            ctx: whose list (team and user).
            offset: entries to skip, newest first; clamped to the list.
            visibility: "ephemeral" (the asker only) or "in_channel".
        """
        total = self.store.reading_list_count(ctx.team_id, ctx.user_id)
        offset = max(0, min(int(offset), max(0, total - 1)))
        entries = tuple(self.store.reading_list_entries(ctx.team_id, ctx.user_id, offset, ENTRIES_PER_PAGE))
        return ReadingListReply(
            entries=entries,
            total=total,
            offset=offset,
            limit=ENTRIES_PER_PAGE,
            gone=self._gone(entries),
            visibility=visibility,
        )

    def export(self, ctx: Context) -> Export | None:
        """The whole list as Markdown and BibTeX; None when it is empty."""
        entries = self.store.reading_list_entries(ctx.team_id, ctx.user_id)
        if not entries:
            return None
        papers = {e.paper_id: p for e in entries if (p := self.index.get(e.paper_id)) is not None}
        return reading_list_export.export(entries, papers)

    def _signal(self, ctx: Context, paper_id: str, kept: bool) -> None:
        if self.signals is not None:
            self.signals.saved(ctx, paper_id, kept)

    def _gone(self, entries) -> frozenset[str]:
        return frozenset(e.paper_id for e in entries if self.index.get(e.paper_id) is None)


def _short(title: str) -> str:
    return title if len(title) <= 80 else title[:79] + "…"
