"""Domain types shared by every layer: papers, search results, replies.

Leaf module: no third-party imports. Every object here is immutable and
carries plain Python values only, so it can cross threads and processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

#: Results per page of a search (Slack pages, the console's ``more``/``back``).
PAGE_SIZE = 5
#: The team id ``paperbot console`` acts as: its subscriptions share the
#: database but are never posted to Slack by the digest.
CONSOLE_TEAM = "T0CONSOLE"


@dataclass(frozen=True)
class Paper:
    """One paper of the corpus (docs/interfaces.md "Papers").

    Attributes:
        id: the product's id — stable across rebuilds and re-orderings, unique,
            typeable (lowercase letters and digits, e.g. ``"p7k2"``).
        title: display title; given by the source or derived (``title_derived``).
        abstract: clean Unicode text (no LaTeX, no Markdown markers).
        title_derived: True when the source had no title and we derived one.
        source_id: the id in the source file (arXiv id, SciFact ``_id``) or None.
        name: the method/system the paper introduces ("KIStego") or None.
        authors: author names in source order.
        url: the paper's landing page, or None.
        tldr: one or two sentences taken from the abstract.
        keywords: a few key phrases, most telling first.
        code_urls: code links found in the abstract or given by the source.
        venue: e.g. "ICML 2026".
        source: where it came from, ``"<file name>#<paragraph or line number>"``.
        categories: source categories (arXiv ``cs.LG`` …), may be empty.
        doi: the DOI ("10.1103/PhysRevD.76.013009") when the source gives one, else None.
    """

    id: str
    title: str
    abstract: str
    title_derived: bool = False
    source_id: str | None = None
    name: str | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    tldr: str = ""
    keywords: tuple[str, ...] = ()
    code_urls: tuple[str, ...] = ()
    venue: str = ""
    source: str = ""
    categories: tuple[str, ...] = ()
    doi: str | None = None


@dataclass(frozen=True)
class Hit:
    """One ranked search result.

    Attributes:
        paper: the matching paper.
        score: ranking score (BM25F-based; higher is better; only comparable
            within one query).
        snippet: plain text (NOT escaped) with matched words wrapped in ``*…*``.
    """

    paper: Paper
    score: float
    snippet: str


@dataclass(frozen=True)
class SearchPage:
    """A page of results for one query.

    Attributes:
        query: the query as run (after the 4,000-character cut), as typed.
        total: number of matching papers (all pages).
        offset: index of ``hits[0]`` in the full ranking (0-based).
        limit: page size asked for.
        hits: this page's results, best first; ties broken by paper id.
        took_ms: search time in milliseconds (search plus snippets).
        suggestion: a spelling suggestion for the query, or None.
        corrected_query: set when the results are for this auto-corrected
            query instead of ``query``.
        notes: short user-facing notes (e.g. "Your query was cut to 4000
            characters.").
        confident: the best hit contains nearly all of the query's content
            words, so a mention may answer with it (``bot.search.scoring.rank.confident``).
        best_matched: how many of the query's content groups the
            best hit matches; 0 for small talk ("hello world") or no content
            word (``bot.search.scoring.rank.content_match``). A mention lists the
            results only from ``bot.service.service.MENTION_LIST_MIN`` (docs/search.md
            "Mentions: is the best hit the paper meant?").
        all_words: for a query of up to ``bot.search.engine.SHORT_QUERY`` (3) words (phrases,
            groups), the papers holding all of them (a quoted phrase: the
            papers with it) — they come first, the papers with only some of
            them after; None for a longer text (pasted prose), whose ``total``
            counts nearly every paper and is no count to show ("best matches").
    """

    query: str
    total: int
    offset: int
    limit: int
    hits: tuple[Hit, ...]
    took_ms: float
    suggestion: str | None = None
    corrected_query: str | None = None
    notes: tuple[str, ...] = ()
    confident: bool = False
    best_matched: int = 0
    all_words: int | None = None

    @property
    def has_next(self) -> bool:
        """True when results exist after this page."""
        return self.offset + len(self.hits) < self.total

    @property
    def has_previous(self) -> bool:
        """True when this page is not the first."""
        return self.offset > 0


@dataclass(frozen=True)
class Meant:
    """What a mention names before any search (``SearchIndex.mentioned``).

    Attributes:
        paper: the one paper its link, id or name means, or None.
        choices: several papers it names equally (its links, a shared name).
        words: the text without links and Slack tokens, for a search.
    """

    paper: Paper | None
    choices: tuple[Paper, ...]
    words: str


@dataclass(frozen=True)
class Examples:
    """What help and hints suggest, drawn from the loaded index (``SearchIndex.examples``),
    never hard-coded paper names (issue 18 point 7).

    Attributes:
        names: distinctive method names of papers in the index ("KAG-Thinker"), best first.
        topics: frequent key phrases of the index ("dark matter"), most frequent first.
        ids: paper ids, for an index whose papers have no method name.
    """

    names: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    def paper(self, second: bool = False) -> str | None:
        """A paper to name in an example: a method name, else an id; with ``second``,
        another one when there is one. None for an empty index."""
        given = self.names or self.ids
        if not given:
            return None
        return given[1] if second and len(given) > 1 else given[0]

    def topic(self) -> str | None:
        """A topic to search for, or None."""
        return self.topics[0] if self.topics else None


class QueryError(ValueError):
    """A query that cannot run, with a short explanation for the user.

    Args:
        message: one sentence saying what is wrong (plain text, not escaped);
            kept as the attribute ``message``.
        example: a query that would work, e.g. ``"sparse attention"``; kept as
            the attribute ``example``.
    """

    def __init__(self, message: str, example: str = "sparse attention") -> None:
        super().__init__(message)
        self.message = message
        self.example = example


@dataclass(frozen=True)
class Subscription:
    """A channel's daily digest subscription (one per team and channel).

    Attributes:
        team_id, channel_id: Slack ids.
        local_time: "HH:MM", 24-hour wall-clock time in ``tz``.
        tz: IANA time zone name, e.g. "Europe/Berlin".
        active: False once deactivated (see ``inactive_reason``).
        inactive_reason: Slack error code or text, e.g. "is_archived".
        subscribed_by: Slack user id of who subscribed or last changed it.
        created_at: when it was first made (UTC, aware).
        updated_at: when it was last changed (UTC, aware).
        topic: the topic query the channel's papers must match (None: the
            whole corpus, the paper of the day everyone shares).
        days: posting weekdays, Monday 0 … Sunday 6; ``()`` = every day.
        papers: papers per post, 1..5 (one message; abstracts in the thread).
        recommend: ``for me`` (a personal feed) or ``for this channel``: posts the best unseen
            papers learned from the reader's signals instead of the rotation (issue 22).

    A ``channel_id`` that is a user id (``U…``/``W…``) is that user's
    personal feed, posted to their DM with the bot (``personal``).
    """

    team_id: str
    channel_id: str
    local_time: str
    tz: str
    active: bool = True
    inactive_reason: str | None = None
    subscribed_by: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    topic: str | None = None
    days: tuple[int, ...] = ()
    papers: int = 1
    recommend: bool = False

    @property
    def personal(self) -> bool:
        """True for a user's personal feed (``subscribe me``), keyed by their user id."""
        return self.channel_id[:1] in ("U", "W")


@dataclass(frozen=True)
class ReadingListEntry:
    """One entry of a user's reading list: a snapshot of the paper when the
    user clicked *Save* (so it still exports after a rebuild removed the
    paper; issue 13).

    Attributes:
        paper_id: the paper's id.
        title: its title; ``title_derived`` when we derived it (no source title).
        authors: author names in source order.
        venue: e.g. "ICML 2026" ("" when unknown).
        year: four digits from the venue, or None.
        url: the landing page, or None.
        saved_at: when it was added to the list (UTC, aware).
    """

    paper_id: str
    title: str
    title_derived: bool = False
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: str | None = None
    url: str | None = None
    saved_at: datetime | None = None


class DeliveryState(StrEnum):
    """The state of a paper-of-the-day delivery row (docs/architecture.md "The path of a digest").

    ``CLAIMED``: a process owns the post; ``POSTED``: done, with ``message_ts``;
    ``FAILED``: Slack refused it (nothing was posted; may be claimed again);
    ``UNKNOWN``: a claim whose outcome cannot be known — never posted again;
    ``SKIPPED``: a missed day that is not back-filled. A ``StrEnum``: the
    values are the strings stored in the ``deliveries.state`` column.
    """

    CLAIMED = "claimed"
    POSTED = "posted"
    FAILED = "failed"
    UNKNOWN = "unknown"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Delivery:
    """A claimed or finished paper-of-the-day post for one channel and date.

    Attributes:
        team_id, channel_id: Slack ids.
        local_date: the channel's local date the post is for.
        paper_id: the paper posted.
        state: a ``DeliveryState``.
        message_ts: Slack ``ts`` of the post once posted, else None.
    """

    team_id: str
    channel_id: str
    local_date: date
    paper_id: str
    state: DeliveryState
    message_ts: str | None = None


@dataclass(frozen=True)
class Context:
    """Who asked, and where — everything the service needs from Slack.

    Attributes:
        team_id, channel_id, user_id: Slack ids (console: ``CONSOLE_TEAM`` …).
        user_tz: the user's IANA time zone from Slack (``users.info``); ""
            when Slack was asked but gave none (the call failed, or no zone);
            None when it was not asked (not a subscribe, or the console).
        channel_name: e.g. "general" or "directmessage", when known.
    """

    team_id: str
    channel_id: str
    user_id: str
    user_tz: str | None = None
    channel_name: str | None = None


#: Signal kinds that count for a paper (docs/interfaces.md "Signals").
POSITIVE_KINDS = ("saved", "shared", "more", "up")
#: Signal kinds that count against a paper.
NEGATIVE_KINDS = ("not_for_me", "down")
#: Every signal kind a subject can record.
SIGNAL_KINDS = POSITIVE_KINDS + NEGATIVE_KINDS


@dataclass(frozen=True)
class Signals:
    """What a user or a channel told paperbot about papers (issue 22), as the
    recommender reads it: paper ids, most recent first, each in one tuple only.

    Attributes:
        positives: papers saved, shared, "More like this" or 👍 — most recent first.
        negatives: papers "Not for me" or 👎 — most recent first.
    """

    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()
