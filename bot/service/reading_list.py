"""The reading list from the user's side: save, remove, list, export
(issue 13 point 5; docs/interfaces.md "Reading list").

A saved entry is a snapshot of the paper's fields at the time (title and
whether it was derived, authors, venue, year, url, id), so it still lists and
exports after an index rebuild removed the paper — marked as no longer in the
index. Everything is per team and per user (the ``Context``'s ids).
Service layer: no Slack, SQL or Whoosh types.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from bot.core.models import Context, Paper, SavedPaper
from bot.core.replies import EPHEMERAL, NoticeReply, Reply, SavedReply
from bot.service import bibtex

#: Entries per page of ``/paper saved`` and the App Home's list.
SAVED_PAGE = 5


@dataclass(frozen=True)
class Export:
    """A reading list ready to send.

    Attributes:
        markdown: the list for the message text (Slack shows it as is).
        bibtex: the ``.bib`` file's content.
        filename: e.g. "paperbot-reading-list.bib".
        count: number of entries.
    """

    markdown: str
    bibtex: str
    filename: str
    count: int


def snapshot(paper: Paper) -> SavedPaper:
    """The fields of ``paper`` a reading list keeps."""
    return SavedPaper(
        paper_id=paper.id,
        title=paper.title,
        title_derived=paper.title_derived,
        authors=tuple(paper.authors),
        venue=paper.venue or "",
        year=bibtex.year_of(paper.venue),
        url=paper.url,
    )


class ReadingList:
    """Reading lists over the store, checked against the index.

    Args:
        index: ``get(id) -> Paper | None``.
        store: ``bot.store.Store`` (``save_paper``, ``remove_saved``,
            ``saved_papers``, ``saved_count``).
        now: the clock (aware UTC).
    """

    def __init__(self, index, store, now: Callable[[], datetime]) -> None:
        self.index, self.store, self.now = index, store, now

    def save(self, paper_id: str, ctx: Context) -> Reply:
        """Add the paper to ``ctx.user_id``'s list; a short ephemeral note."""
        paper = self.index.get(paper_id) if paper_id else None
        if paper is None:
            return NoticeReply(text="That paper is no longer in the index, so I can't save it.")
        if self.store.save_paper(ctx.team_id, ctx.user_id, snapshot(paper), self.now()):
            return NoticeReply(
                text=f"Saved “{_short(paper.title)}” to your reading list (`/paper saved` or my Home tab)."
            )
        if self.store.get_saved(ctx.team_id, ctx.user_id, paper.id) is not None:
            return NoticeReply(text=f"“{_short(paper.title)}” is already in your reading list.")
        return NoticeReply(text="Your reading list is full; remove a few papers first.")

    def remove(self, paper_id: str, ctx: Context) -> Reply:
        """Remove the paper from ``ctx.user_id``'s list."""
        if self.store.remove_saved(ctx.team_id, ctx.user_id, paper_id):
            return NoticeReply(text="Removed from your reading list.")
        return NoticeReply(text="That paper was not in your reading list.")

    def page(self, ctx: Context, offset: int = 0, visibility: str = EPHEMERAL) -> SavedReply:
        """One page of the list, newest first (``SavedReply``)."""
        total = self.store.saved_count(ctx.team_id, ctx.user_id)
        offset = max(0, min(int(offset), max(0, total - 1)))
        entries = tuple(self.store.saved_papers(ctx.team_id, ctx.user_id, offset, SAVED_PAGE))
        return SavedReply(
            entries=entries,
            total=total,
            offset=offset,
            limit=SAVED_PAGE,
            gone=self._gone(entries),
            visibility=visibility,
        )

    def export(self, ctx: Context) -> Export | None:
        """The whole list as Markdown and BibTeX; None when it is empty."""
        entries = self.store.saved_papers(ctx.team_id, ctx.user_id)
        if not entries:
            return None
        gone = self._gone(entries)
        return Export(
            markdown=bibtex.markdown(entries, gone),
            bibtex=bibtex.bibtex(entries, gone),
            filename="paperbot-reading-list.bib",
            count=len(entries),
        )

    def _gone(self, entries) -> frozenset[str]:
        return frozenset(e.paper_id for e in entries if self.index.get(e.paper_id) is None)


def _short(title: str) -> str:
    return title if len(title) <= 80 else title[:79] + "…"
