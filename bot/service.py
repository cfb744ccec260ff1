"""What the bot does, independent of Slack: commands and mentions → replies.

``Service`` is the one object the Slack listeners, the console and the CLI
call. It talks to the search index, the store and a ``ChannelAnnouncer``
(``bot.ports``) through their own interfaces — no Slack, SQL, Whoosh or Block
Kit here, and nothing from the digest above it (docs/architecture.md
"Layers"); ``import bot.service`` works without slack_sdk installed.
"""
from __future__ import annotations

import logging
import random
import re
from dataclasses import replace
from datetime import datetime
from typing import Callable

from bot import budget, parsing
from bot.config import Settings
from bot.models import PAGE_SIZE, Context, Hit, Paper, QueryError, SearchPage
from bot.ports import ChannelAnnouncer
from bot.replies import (EPHEMERAL, IN_CHANNEL, ErrorReply, HelpReply, NoticeReply, PaperReply,
                         PickListReply, Reply, ResultsReply, SimilarReply)
from bot.slots import next_post_time, utc_now
from bot.subscriptions import Subscriptions

log = logging.getLogger(__name__)

OTHER_MATCHES = 3      # other matches under a mention's paper ("two or three")
SIMILAR_LIMIT = 5
#: CPU seconds one index call may use before scoring stops with what it has
#: (``bot.budget``; docs/architecture.md "Work slots and the CPU budget"): a query cannot hold a
#: work slot longer than this, whatever its input.
SEARCH_CPU_S = 0.5


class Service:
    """The bot's behaviour.

    Args:
        index: a ``bot.search.SearchIndex`` (search, get, resolve, similar, ids).
        store: a ``bot.store.Store``.
        settings: ``bot.config.Settings`` (defaults for time and zone).
        announcer: tells a channel about a change (the subscribe confirmation);
            None disables those posts.
        now: the clock, returning an aware UTC datetime (tests inject one).
        rng: random source for ``/paper random`` (tests inject a seeded one).
    """

    def __init__(self, index, store, settings: Settings, announcer: ChannelAnnouncer | None = None,
                 now: Callable[[], datetime] = utc_now, rng: random.Random | None = None) -> None:
        self.index = index
        self.store = store
        self.settings = settings
        self.now = now
        self.rng = rng or random.Random()
        self.subs = Subscriptions(index, store, settings, announcer, now)

    # ------------------------------------------------------------------ entry points
    def command(self, text: str, ctx: Context) -> Reply:
        """Answer ``/paper <text>`` (``text`` already entity-decoded). Never raises
        for bad input: returns an ``ErrorReply`` explaining it."""
        cmd = parsing.parse_command(text)
        return _with_cut_note(cmd, self._dispatch(cmd, ctx, prefix="/paper", visibility=EPHEMERAL))

    def mention(self, text: str, ctx: Context) -> Reply:
        """Answer ``@paperbot <text>`` (tokens stripped, entity-decoded).

        Sub-commands work as in ``/paper``; otherwise id → name → words. The
        reply is visible in the thread; no confident match → a short notice.
        """
        cmd = parsing.parse_command(text)
        typed_search = cmd.name == "search" and text.split(maxsplit=1)[0].lower() == "search"
        if cmd.name != "search" or typed_search:   # `@paperbot search x` lists results
            reply = self._dispatch(cmd, ctx, prefix="@paperbot", visibility=IN_CHANNEL)
        else:
            reply = self.read_paper(cmd.arg, visibility=IN_CHANNEL)
        return _with_cut_note(cmd, reply)

    # ------------------------------------------------------------------ operations
    def search(self, query: str, offset: int = 0, limit: int = PAGE_SIZE,
               exact: bool = False) -> Reply:
        """A page of results (``ResultsReply``) or an ``ErrorReply`` for bad input.

        ``exact`` turns auto-correction off ("search instead for …").
        """
        offset = max(0, int(offset))
        try:
            page = self._search(query, offset, limit, exact)
        except QueryError as e:
            return ErrorReply(message=e.message, example=f"/paper search {e.example}")
        return ResultsReply(page=page)

    def show(self, text: str, visibility: str = EPHEMERAL, headline: str | None = None) -> Reply:
        """One paper in full from an id, a name or words.

        Resolution order: docs/interfaces.md "/paper slash command".
        """
        paper = self._resolve(text, "show", visibility)
        if not isinstance(paper, Paper):
            return paper
        return PaperReply(paper=paper, others=tuple(self._similar(paper.id, OTHER_MATCHES)),
                          others_label="Similar papers", headline=headline, visibility=visibility)

    def paper(self, paper_id: str, visibility: str = EPHEMERAL, headline: str | None = None) -> Reply:
        """The paper with exactly this id, in full; a polite notice when unknown."""
        paper = self.index.get(paper_id) if isinstance(paper_id, str) and paper_id else None
        if paper is None:
            shown = paper_id if isinstance(paper_id, str) and len(paper_id) <= 40 else "that id"
            return NoticeReply(text=f"I have no paper with the id “{shown}” (it may have left the "
                                    "index). Try `/paper search <words>`.")
        return PaperReply(paper=paper, others=tuple(self._similar(paper.id, OTHER_MATCHES)),
                          headline=headline, visibility=visibility)

    def similar(self, text: str, visibility: str = EPHEMERAL) -> Reply:
        """Papers like the one ``text`` resolves to (``SimilarReply``)."""
        paper = self._resolve(text, "similar", visibility)
        if not isinstance(paper, Paper):
            return paper
        return SimilarReply(paper=paper, hits=tuple(self._similar(paper.id, SIMILAR_LIMIT)),
                            visibility=visibility)

    def _resolve(self, text: str, verb: str, visibility: str) -> Paper | Reply:
        """``text`` → the paper (exact id → unique name → best match), or the reply
        to give instead: an explanation, a pick list, or "no paper"."""
        if not text.strip():
            return ErrorReply(message="Which paper? Give an id, a method name or a few words.",
                              example=f"/paper {verb} UniSparse")
        try:
            with budget.limit(SEARCH_CPU_S):
                paper, choices = self.index.resolve(text)
        except QueryError as e:
            return ErrorReply(message=e.message, example=f"/paper {verb} {e.example}")
        if paper is None and choices:
            return PickListReply(query=text, papers=tuple(choices), visibility=visibility)
        if paper is None:
            return NoticeReply(text=f"I found no paper for “{_quote(text)}”. "
                                    "Try `/paper search <words>`.")
        return paper

    def read_paper(self, text: str, visibility: str = IN_CHANNEL) -> Reply:
        """Mention/DM reading: id or name anywhere in the text → that paper; else
        the best search match when it is confident, with two or three others."""
        words = text.strip()
        if not words:
            return HelpReply(prefix="@paperbot", visibility=visibility)
        for token in re.findall(r"[\w.\-+]+", words):
            paper = self.index.get(token) or _unique(self.index.by_name(token))
            if paper is not None:
                return PaperReply(paper=paper, others=tuple(self._similar(paper.id, OTHER_MATCHES)),
                                  others_label="Similar papers", visibility=visibility)
        try:
            page = self._search(words, 0, OTHER_MATCHES + 1, exact=False)
        except QueryError as e:
            return ErrorReply(message=e.message, example=f"@paperbot {e.example}", visibility=visibility)
        if not page.confident:
            return NoticeReply(text=f"I'm not confident any paper matches “{_quote(words)}”. "
                                    "Try other words, an id, or `/paper search`.", visibility=visibility)
        best, others = page.hits[0], page.hits[1:]
        return PaperReply(paper=best.paper, others=tuple(others), others_label="Other matches",
                          visibility=visibility)

    def today(self, ctx: Context, visibility: str = EPHEMERAL) -> Reply:
        """The paper of the day for this channel's local date (same as the digest)."""
        paper, day = self.subs.paper_of_the_day(ctx)
        if paper is None:
            return NoticeReply(text="The index has no papers yet.")
        return PaperReply(paper=paper, headline=f"*Paper of the day · {day.isoformat()}*",
                          others=tuple(self._similar(paper.id, OTHER_MATCHES)), visibility=visibility)

    def random_paper(self, visibility: str = EPHEMERAL) -> Reply:
        """A uniformly random paper of the corpus."""
        ids = self.index.ids()
        if not ids:
            return NoticeReply(text="The index has no papers yet.")
        return self.paper(self.rng.choice(ids), visibility=visibility)

    def share(self, paper_id: str, ctx: Context) -> Reply:
        """The paper posted visibly to the channel, naming who shared it (issue 5)."""
        who = f"<@{ctx.user_id}>" if re.fullmatch(r"[UW][A-Z0-9]{1,20}", ctx.user_id or "") else "someone"
        return self.paper(paper_id, visibility=IN_CHANNEL, headline=f"*Shared by* {who}")

    def home(self, ctx: Context, is_member: Callable[[str], bool]):
        """What the App Home shows for ``ctx.user_id``.

        Args:
            ctx: the viewer (team and user).
            is_member: ``is_member(channel_id) -> bool`` — whether the viewer is
                in that channel (the Slack layer asks Slack; errors → False).

        Returns:
            ``(today: Paper | None, day: date, channels: [(Subscription, next post | None)])``
            — today's paper in ``PAPERBOT_DEFAULT_TZ``, then the team's
            subscriptions (active and deactivated) the viewer is a member of.
        """
        today, day = self.subs.paper_of_the_day(Context(ctx.team_id, "", ctx.user_id))
        channels = []
        for sub in self.store.subscriptions(team=ctx.team_id):
            if is_member(sub.channel_id):
                channels.append((sub, next_post_time(sub, self.now()) if sub.active else None))
        return today, day, channels

    # ------------------------------------------------------------------ internals
    def _dispatch(self, cmd: parsing.Command, ctx: Context, prefix: str, visibility: str) -> Reply:
        if cmd.name == "help":
            return HelpReply(prefix=prefix)
        if cmd.name == "search":
            if not cmd.arg:
                return ErrorReply(message="What should I search for?",
                                  example=f"{prefix} search sparse attention")
            return self.search(cmd.arg)
        if cmd.name == "show":
            return self.show(cmd.arg, visibility=visibility)
        if cmd.name == "similar":
            return self.similar(cmd.arg, visibility=visibility)
        if cmd.name == "today":
            return self.today(ctx, visibility=visibility)
        if cmd.name == "random":
            return self.random_paper(visibility=visibility)
        if cmd.name == "subscribe":
            return self.subs.subscribe(cmd.arg, ctx)
        if cmd.name == "unsubscribe":
            return self.subs.unsubscribe(ctx)
        if cmd.name == "status":
            return self.subs.status(ctx)
        return HelpReply(prefix=prefix)

    def related(self, text: str, limit: int = PAGE_SIZE) -> Reply:
        """Papers most like a piece of text (a message, a pasted abstract): a
        ``ResultsReply``, or an ``ErrorReply`` when the text has no words.
        The text is read as prose (``bot.search.SearchIndex.related``)."""
        try:
            return ResultsReply(page=self.index.related(text, limit=limit))
        except QueryError as e:
            return ErrorReply(message=e.message, example=e.example)

    def _search(self, query: str, offset: int, limit: int, exact: bool) -> SearchPage:
        with budget.limit(SEARCH_CPU_S):
            return self.index.search(query, limit=limit, offset=offset, correct=not exact)

    def _similar(self, paper_id: str, limit: int) -> list[Hit]:
        try:
            with budget.limit(SEARCH_CPU_S):
                return list(self.index.similar(paper_id, limit=limit))
        except Exception:  # similar papers are a bonus: never fail the main reply
            log.exception("similar(%s) failed", paper_id)
            return []


def _with_cut_note(cmd: parsing.Command, reply: Reply) -> Reply:
    """Add "cut to 300 characters" to any reply to an over-long input
    (docs/interfaces.md "Rules every reply obeys": cut there, with a note, everywhere)."""
    if not cmd.cut:
        return reply
    note = f"Your input was cut to {parsing.MAX_INPUT} characters."
    page = getattr(reply, "page", None)
    if page is not None and any("cut" in n for n in page.notes):
        return reply
    return replace(reply, note=note)


def _unique(papers: list[Paper]) -> Paper | None:
    return papers[0] if len(papers) == 1 else None


def _quote(text: str) -> str:
    """User text quoted inside a NoticeReply, cut to 80 characters (render escapes it)."""
    return text if len(text) <= 80 else text[:79] + "…"
