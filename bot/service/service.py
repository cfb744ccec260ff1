"""What the bot does, independent of Slack: commands and mentions → replies.

``Service`` is the one object the Slack listeners, the console and the CLI
call. It talks to the search index, the store and a ``ChannelAnnouncer``
(``bot.core.ports``) through their own interfaces — no Slack, SQL, Whoosh or Block
Kit here, and nothing from the digest above it (docs/architecture.md
"Layers"); ``import bot.service.service`` works without slack_sdk installed.
"""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from datetime import datetime
from typing import Callable

from bot.core import budget, parsing
from bot.core.config import Settings
from bot.core.index_port import ServiceIndex
from bot.core.models import PAGE_SIZE, Context, Examples, Hit, Paper, QueryError, SearchPage, Signals
from bot.core.parsing import MAX_INPUT, cut_input
from bot.core.ports import ChannelAnnouncer
from bot.core.recommend_port import PaperRecommender
from bot.core.replies import (
    EPHEMERAL,
    IN_CHANNEL,
    ErrorReply,
    HelpReply,
    NoticeReply,
    PaperReply,
    PickListReply,
    Reply,
    ResultsReply,
    ShareReply,
    SimilarReply,
    StatusReply,
    WelcomeReply,
)
from bot.core.store_port import ServiceStore
from bot.daily.post_times import utc_now
from bot.daily.schedule_words import quoted_topic
from bot.service import verb_typos
from bot.service.home import AppHome, HomeTab
from bot.service.query_keys import QueryKeys
from bot.service.reading_list import ReadingList
from bot.service.recommendations import Recommendations
from bot.service.sharing import Sharing
from bot.service.signals import SignalLog
from bot.service.subscriptions import Subscriptions
from bot.service.welcome import Welcomes, greeting

log = logging.getLogger(__name__)

OTHER_MATCHES = 3  # other matches under a mention's paper ("two or three")
SIMILAR_LIMIT = 5
#: Least number of a mention's content groups its best hit must match for a list of matches
#: (docs/search.md "Mentions: is the best hit the paper meant?").
MENTION_LIST_MIN = 1
PASSAGE_MIN = 300  # characters: a longer mention or DM is a passage, answered with results
#: CPU seconds one index call may use before scoring stops with what it has
#: (``bot.core.budget``; docs/architecture.md "Work slots and the CPU budget"): a query cannot hold a
#: work slot longer than this, whatever its input.
SEARCH_CPU_S = 0.5


class Service:
    """The bot's behaviour.

    Args:
        index: the search index (``bot.core.index_port.ServiceIndex``; ``bot.search.SearchIndex``).
        store: the store (``bot.core.store_port.ServiceStore``; ``bot.store.Store``).
        settings: ``bot.core.config.Settings`` (defaults for time and zone).
        announcer: tells a channel about a change (the subscribe confirmation);
            None disables those posts.
        now: the clock, returning an aware UTC datetime (tests inject one).
        rng: random source for ``/paper random`` (tests inject a seeded one).
        recommender: the model behind ``/paper foryou`` and learning subscriptions
            (``bot.core.recommend_port.PaperRecommender``); None: none runs here.
    """

    def __init__(
        self,
        index: ServiceIndex,
        store: ServiceStore,
        settings: Settings,
        announcer: ChannelAnnouncer | None = None,
        now: Callable[[], datetime] = utc_now,
        rng: random.Random | None = None,
        recommender: PaperRecommender | None = None,
    ) -> None:
        self.index = index
        self.store = store
        self.settings = settings
        self.now = now
        self.rng = rng or random.Random()
        self.subs = Subscriptions(index, store, settings, announcer, now)
        self.sharing = Sharing(store, now)
        self.queries = QueryKeys(store, now)
        self.welcomes = Welcomes(store, now)
        self.signal_log = SignalLog(store, now)
        self.reading_list = ReadingList(index, store, now, self.signal_log)
        self.app_home = AppHome(self.subs, store, now)
        self.recommendations = Recommendations(index, store, recommender, self.signals, now)
        self.subs.learned = self.recommendations  # for me / for this channel (issue 22)

    # ------------------------------------------------------------------ entry points
    def command(self, text: str, ctx: Context) -> Reply:
        """Answer ``/paper <text>`` (``text`` already entity-decoded). Never raises
        for bad input: returns an ``ErrorReply`` explaining it.

        Args:
            text: what followed ``/paper``, entity-decoded.
            ctx: who asked and where (team, channel, user).
        """
        cmd = parsing.parse_command(text)
        reply = self._mistyped(cmd, text, "/paper") or self._dispatch(cmd, ctx, prefix="/paper", visibility=EPHEMERAL)
        return _with_cut_note(cmd, reply)

    def mention(self, text: str, ctx: Context) -> Reply:
        """Answer ``@paperbot <text>`` (tokens stripped, entity-decoded).

        Sub-commands work as in ``/paper``; otherwise id → name → words. The
        reply is visible in the thread; help, "did you mean", errors and "no
        confident match" are ``EPHEMERAL`` (the Slack layer shows them to the
        asker only, issue 12 point 4).

        Args:
            text: the mention's text without the bot's token, entity-decoded.
            ctx: who asked and where (team, channel, user).
        """
        cmd = parsing.parse_command(text)
        typed_search = cmd.name == "search" and text.split(maxsplit=1)[0].lower() == "search"
        direct = ctx.channel_id[:1] == "D"  # a DM with the bot: no `@paperbot` before commands
        prefix = "" if direct else "@paperbot"
        talk = parsing.small_talk(text) if cmd.name == "search" and not typed_search else None
        early = greeting(talk, direct, self.index.examples().topic()) if talk else self._mistyped(cmd, text, prefix)
        if early is not None:
            return early
        if cmd.name != "search" or typed_search:  # `@paperbot search x` lists results
            reply = self._dispatch(cmd, ctx, prefix=prefix, visibility=IN_CHANNEL)
        else:
            reply = self.read_paper(cmd.arg, visibility=IN_CHANNEL, prefix=prefix)
        if isinstance(reply, (ResultsReply, StatusReply)):
            reply = replace(reply, visibility=IN_CHANNEL)  # the thread sees these; help,
        elif isinstance(reply, (ErrorReply, HelpReply)):  # errors and "no match": the asker only
            reply = replace(reply, visibility=EPHEMERAL)
        return _with_cut_note(cmd, reply)

    # ------------------------------------------------------------------ operations
    def search(self, query: str, offset: int = 0, limit: int = PAGE_SIZE, exact: bool = False) -> Reply:
        """A page of results (``ResultsReply``) or an ``ErrorReply`` for bad input.

        ``exact`` turns auto-correction off ("search instead for …"). A query
        over ``bot.core.parsing.MAX_INPUT`` characters is cut (``cut_to`` says so); one
        too long for a button gets a key for its buttons (``query_keys``).

        Args:
            query: the query as typed.
            offset: results to skip (a later page).
            limit: results per page.
            exact: True runs the query as typed, without spelling correction.
        """
        offset = max(0, int(offset))
        query, cut = cut_input(query.strip())
        try:
            page = self._search(query, offset, limit, exact)
        except QueryError as e:
            return ErrorReply(message=e.message, example=f"/paper search {e.example}")
        typed = None
        if page.corrected_query:  # offer the typed query only where it finds something
            typed = self._search(page.query, 0, 1, exact=True).total
        return ResultsReply(
            page=page,
            typed_total=typed,
            query_keys=self.queries.for_page(page),
            cut_to=MAX_INPUT if cut else None,
            examples=self.index.examples() if not page.total else Examples(),
        )

    def show(self, text: str, visibility: str = EPHEMERAL, headline: str | None = None) -> Reply:
        """One paper in full from an id, a name or words.

        Resolution order: docs/interfaces.md "/paper slash command".

        Args:
            text: an id, a method name or words.
            visibility: "ephemeral" (the asker only) or "in_channel".
            headline: a line above the paper (plain text, shown in bold), or None.
        """
        paper = self._resolve(text, "show", visibility)
        if not isinstance(paper, Paper):
            return paper
        return PaperReply(
            paper=paper,
            others=tuple(self._similar(paper.id, OTHER_MATCHES)),
            others_label="Similar papers",
            headline=headline,
            visibility=visibility,
        )

    def paper(self, paper_id: str, visibility: str = EPHEMERAL, headline: str | None = None) -> Reply:
        """The paper with exactly this id, in full; a polite notice when unknown.

        Args:
            paper_id: the paper's id (a button's value: any string).
            visibility: "ephemeral" (the asker only) or "in_channel".
            headline: a line above the paper (plain text, shown in bold), or None.
        """
        paper = self.index.get(paper_id) if isinstance(paper_id, str) and paper_id else None
        if paper is None:
            shown = paper_id if isinstance(paper_id, str) and len(paper_id) <= 40 else "that id"
            return NoticeReply(
                text=f"I have no paper with the id “{shown}” (it may have left the index). Try `/paper search <words>`."
            )
        return PaperReply(
            paper=paper, others=tuple(self._similar(paper.id, OTHER_MATCHES)), headline=headline, visibility=visibility
        )

    def similar(self, text: str, visibility: str = EPHEMERAL) -> Reply:
        """Papers like the one ``text`` resolves to (``SimilarReply``).

        Args:
            text: an id, a method name or words naming the paper.
            visibility: "ephemeral" (the asker only) or "in_channel".
        """
        paper = self._resolve(text, "similar", visibility)
        if not isinstance(paper, Paper):
            return paper
        return SimilarReply(paper=paper, hits=tuple(self._similar(paper.id, SIMILAR_LIMIT)), visibility=visibility)

    def _resolve(self, text: str, verb: str, visibility: str) -> Paper | Reply:
        """``text`` → the paper (exact id → unique name → best match), or the reply
        to give instead: an explanation, a pick list, or "no paper"."""
        if not text.strip():
            named = self.index.examples().paper()
            return ErrorReply(
                message="Which paper? Give an id, a method name or a few words.",
                example=f"/paper {verb} {named}" if named else None,
            )
        try:
            with budget.limit(SEARCH_CPU_S):
                paper, choices = self.index.resolve(text)
        except QueryError as e:
            return ErrorReply(message=e.message, example=f"/paper {verb} {e.example}")
        if paper is None and choices:
            return PickListReply(query=text, papers=tuple(choices), visibility=visibility)
        if paper is None:
            return NoticeReply(text=f"I found no paper for “{_quote(text)}”. Try `/paper search <words>`.")
        return paper

    def read_paper(self, text: str, visibility: str = IN_CHANNEL, prefix: str = "@paperbot") -> Reply:
        """Mention/DM reading: a link, id or name in the text → that paper (several: pick
        list); else the link-free words' best match if confident, with 3 others; else their
        best ``PAGE_SIZE`` as an ``unsure`` list; small talk or nothing → a notice; a passage
        (> ``PASSAGE_MIN``) → results. Rules: docs/search.md "Mentions: is the best hit the paper meant?".

        Args:
            text: the mention or DM text (tokens stripped).
            visibility: of the answer when it names a paper; help and notices are ephemeral.
            prefix: how the help's and errors' examples start ("@paperbot"; "" in a DM).
        """
        words = text.strip()
        if not words or len(words) > PASSAGE_MIN:  # help to the asker only; a passage: results
            return self.search(words) if words else self.help(prefix)
        with budget.limit(SEARCH_CPU_S):
            meant = self.index.mentioned(words)
        if meant.paper is not None:
            return self.paper(meant.paper.id, visibility=visibility)
        if meant.choices:
            return PickListReply(query=words, papers=meant.choices, visibility=visibility)
        if not meant.words:
            return NoticeReply(text="I have no paper at that link. Try `/paper search <words>`.", visibility=EPHEMERAL)
        try:
            page = self._search(meant.words, 0, PAGE_SIZE, exact=False)
        except QueryError as e:
            return ErrorReply(message=e.message, example=parsing.as_typed(prefix, e.example), visibility=visibility)
        if page.confident:
            return PaperReply(
                paper=page.hits[0].paper,
                others=page.hits[1 : OTHER_MATCHES + 1],
                others_label="Other matches",
                visibility=visibility,
            )
        if page.hits and page.best_matched >= MENTION_LIST_MIN:
            return ResultsReply(page=page, unsure=True, query_keys=self.queries.for_page(page), visibility=visibility)
        return NoticeReply(
            text=f"I'm not confident any paper matches “{_quote(words)}”. Try other words, an id, or `/paper search`.",
            visibility=EPHEMERAL,
        )

    def today(self, ctx: Context, visibility: str = EPHEMERAL) -> Reply:
        """The post of the day for this channel's local date (the digest's papers), under
        the post's title ("Paper of the week · Mon 2026-12-07", ``Subscriptions.post_of_the_day``);
        a post of several papers shows the first in full and the others below it, each
        with a *Details* button.

        Args:
            ctx: the channel (or DM) whose local date and subscription count.
            visibility: "ephemeral" (the asker only) or "in_channel".
        """
        papers, _day, title = self.subs.post_of_the_day(ctx)
        if not papers:
            sub = self.subs.for_context(ctx)
            if sub is not None and sub.topic:
                return NoticeReply(
                    text=f"No paper in the index matches this channel's topic "
                    f"{quoted_topic(sub.topic, 80)} now. Change it with "
                    "`/paper subscribe about <words>`."
                )
            return NoticeReply(text="The index has no papers yet.")
        paper = papers[0]
        if len(papers) == 1:
            return PaperReply(
                paper=paper, headline=title, others=tuple(self._similar(paper.id, OTHER_MATCHES)), visibility=visibility
            )
        rest = len(papers) - 1
        return PaperReply(
            paper=paper,
            headline=f"{title} · 1 of {len(papers)}",
            others=tuple(Hit(p, 0.0, "") for p in papers[1:]),
            others_label=f"The other {rest} paper{'s' if rest != 1 else ''} of this post",
            visibility=visibility,
        )

    def random_paper(self, visibility: str = EPHEMERAL) -> Reply:
        """A uniformly random paper of the corpus."""
        ids = self.index.ids()
        if not ids:
            return NoticeReply(text="The index has no papers yet.")
        return self.paper(self.rng.choice(ids), visibility=visibility)

    def share(self, paper_id: str, ctx: Context, sharer: str = "someone") -> Reply:
        """The compact card posted when ``sharer`` (a display name, never a live
        mention) shares a paper (``ShareReply``), or a notice for an unknown id.

        Args:
            paper_id: the paper to share.
            ctx: where it is shared (unused by the card itself).
            sharer: the sharer's display name.
        """
        paper = self.index.get(paper_id) if isinstance(paper_id, str) and paper_id else None
        if paper is None:
            return self.paper(paper_id)
        return ShareReply(paper=paper, sharer=sharer, visibility=IN_CHANNEL)

    def home(self, ctx: Context, is_member: Callable[[str], bool]) -> HomeTab:
        """What the App Home shows for ``ctx.user_id`` (``bot.service.home``).

        Args:
            ctx: the viewer (team and user).
            is_member: ``is_member(channel_id) -> bool`` — whether the viewer is in that channel.
        """
        return replace(self.app_home.for_viewer(ctx, is_member), examples=self.index.examples())

    def welcome(self, ctx: Context, audience: str) -> Reply | None:
        """The first hello for a "user" or a "channel", once ever (``bot.service.welcome.Welcomes``),
        else None; ``forget_welcome`` when it could not be delivered.

        Args:
            ctx: the user or channel and its team.
            audience: "user" (the Messages tab) or "channel" (the bot was added).
        """
        if not self.welcomes.first(ctx, audience):
            return None
        return WelcomeReply(audience=audience, visibility=IN_CHANNEL, examples=self.index.examples())

    def forget_welcome(self, ctx: Context, audience: str) -> None:
        """Forget that ``welcome`` was given (its post failed): it is tried again.

        Args:
            ctx: the user or channel and its team.
            audience: "user" or "channel".
        """
        self.welcomes.forget(ctx, audience)

    # ------------------------------------------------------------------ signals (bot/service/signals.py)
    def record_signal(self, team: str, subject: str, paper_id: str, kind: str, *, by: str | None = None) -> None:
        """Record one signal for ``subject`` (a user or a channel; ``SignalLog.record``).

        Args:
            team, subject, paper_id, kind, by: as ``bot.service.signals.SignalLog.record``.
        """
        self.signal_log.record(team, subject, paper_id, kind, by=by)

    def remove_signal(self, team: str, subject: str, paper_id: str, kind: str, *, by: str | None = None) -> None:
        """Take one signal back (``SignalLog.remove``).

        Args:
            team, subject, paper_id, kind, by: as ``bot.service.signals.SignalLog.remove``.
        """
        self.signal_log.remove(team, subject, paper_id, kind, by=by)

    def signals(self, team: str, subject: str) -> Signals:
        """The positives and negatives of a user or a channel (``SignalLog.signals``).

        Args:
            team, subject: as ``bot.service.signals.SignalLog.signals``.
        """
        return self.signal_log.signals(team, subject)

    def forget(self, team: str, user: str, reading_list: bool = False) -> int:
        """Delete a user's signals (and their reading list); how many, as ``SignalLog.forget`` counts.

        Args:
            team, user, reading_list: as ``bot.service.signals.SignalLog.forget``.
        """
        return self.signal_log.forget(team, user, reading_list)

    # ------------------------------------------------------------------ internals
    def _mistyped(self, cmd: parsing.Command, text: str, prefix: str) -> Reply | None:
        """``bot.service.verb_typos.did_you_mean``, within the CPU budget of a search;
        None at once when a sub-command was typed (``Command.free``: ``search typo``
        searches "typo")."""
        if not cmd.free:
            return None
        with budget.limit(SEARCH_CPU_S):
            return verb_typos.did_you_mean(cmd, text, prefix, self.index)

    def _dispatch(self, cmd: parsing.Command, ctx: Context, prefix: str, visibility: str) -> Reply:
        """The reply to a parsed command; ``help`` (and anything unknown) gets the help."""
        if cmd.name == parsing.SUGGEST:
            return verb_typos.alone_meant(cmd.arg, prefix)
        if cmd.name == "search":
            if not cmd.arg:
                topic = self.index.examples().topic()
                example = parsing.as_typed(prefix, f"search {topic}") if topic else None
                return ErrorReply(message="What should I search for?", example=example)
            return self.search(cmd.arg)
        verbs: dict[str, Callable[[], Reply]] = {
            "show": lambda: self.show(cmd.arg, visibility=visibility),
            "similar": lambda: self.similar(cmd.arg, visibility=visibility),
            "today": lambda: self.today(ctx, visibility=visibility),
            "random": lambda: self.random_paper(visibility=visibility),
            "saved": lambda: self.reading_list.page(ctx),
            "subscribe": lambda: self.subs.subscribe(cmd.arg, ctx),
            "unsubscribe": lambda: self.subs.unsubscribe(ctx, me=cmd.arg == "me"),
            "status": lambda: self.subs.status(ctx),
            "foryou": lambda: self.recommendations.for_you(ctx),
            "forget": lambda: self.signal_log.forget_reply(ctx, everything=cmd.arg == "everything"),
        }
        return verbs[cmd.name]() if cmd.name in verbs else self.help(prefix)

    def help(self, prefix: str = "/paper") -> HelpReply:
        """The help, its examples drawn from the loaded index (``ServiceIndex.examples``).

        Args:
            prefix: "/paper" or "@paperbot": how the examples start.
        """
        return HelpReply(prefix=prefix, visibility=EPHEMERAL, examples=self.index.examples())

    def related(self, text: str, limit: int = PAGE_SIZE) -> Reply:
        """Papers most like a piece of text (a message, a pasted abstract): a
        ``ResultsReply``, or an ``ErrorReply`` when the text has no words.
        The text is read as prose (``bot.search.SearchIndex.related``).

        Args:
            text: the message or pasted abstract.
            limit: most papers.
        """
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
    """Mark any reply to an over-long input as cut, so it says so in one note
    (docs/interfaces.md "Rules every reply obeys"; ``bot.render.echo.length_note``)."""
    return replace(reply, cut_to=MAX_INPUT) if cmd.cut else reply


def _quote(text: str) -> str:
    """User text quoted inside a NoticeReply, cut to 80 characters (render escapes it)."""
    return text if len(text) <= 80 else text[:79] + "…"
