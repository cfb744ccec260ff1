"""What the service answers, before rendering: one small type per kind of reply.

The service (``bot.service.service``) returns these; ``bot.render`` turns them into
Block Kit messages, and the console prints the rendered messages as text.
Leaf module: no third-party imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from bot.core.models import Examples, Hit, Paper, ReadingListEntry, SearchPage, Subscription

EPHEMERAL = "ephemeral"
IN_CHANNEL = "in_channel"
#: Longest query a button value carries as text (counted JSON-encoded); longer
#: ones are kept in the store and the button carries a short key (``bot.service.query_keys``).
QUERY_INLINE_MAX = 300


def carried_inline(text: str) -> bool:
    """True when a button value may hold the query ``text`` itself: at most
    ``QUERY_INLINE_MAX`` characters once JSON-encoded (quotes and control
    characters take more than one), so the value stays far under Slack's 2,000."""
    return len(json.dumps(text, ensure_ascii=False)) - 2 <= QUERY_INLINE_MAX


@dataclass(frozen=True)
class Reply:
    """Base of every reply.

    Attributes:
        visibility: "ephemeral" or "in_channel".
        note: a short plain-text note shown under the reply, or None.
        cut_to: the input was longer than this many characters and was cut
            to them (``bot.core.parsing.MAX_INPUT``); None when not cut. The render
            says so in one note (``bot.render.echo.length_note``).
    """

    visibility: str = EPHEMERAL
    note: str | None = None
    cut_to: int | None = None


@dataclass(frozen=True)
class ResultsReply(Reply):
    """A page of search results; ``page.hits`` may be empty (then ``total`` is 0).

    Attributes:
        shared: ``(paper id, channel id)`` of results already shared from this
            message: their row says "Shared in #channel ✓" instead of *Share*.
        typed_total: for an auto-corrected page, how many papers the query as
            typed finds (0: no *Search "…" instead*, it would be a dead end);
            None when not counted.
        query_keys: ``(query text, key)`` for each query of this page (as run,
            or its correction) too long for ``carried_inline``: its buttons
            carry the key, the text is in the store (``bot.service.query_keys``).
        unsure: a mention's answer when no paper is confidently the one meant:
            the page is introduced as "Not sure which paper you mean — these
            match …" (docs/interfaces.md "Mentions and direct messages").
        examples: what the index holds, for the hint of a page that finds nothing.
    """

    page: SearchPage | None = None
    shared: tuple[tuple[str, str], ...] = ()
    typed_total: int | None = None
    query_keys: tuple[tuple[str, str], ...] = ()
    unsure: bool = False
    examples: Examples = Examples()


@dataclass(frozen=True)
class PaperReply(Reply):
    """One paper in full, optionally with similar papers or other matches.

    Attributes:
        paper: the paper shown.
        others: other matches (mentions with free words) or similar papers.
        others_label: heading for ``others``, e.g. "Other matches".
        headline: a line above the paper in plain text (the render escapes it and sets it
            in bold), e.g. "Paper of the week · Mon 2026-12-07", or None.
    """

    paper: Paper | None = None
    others: tuple[Hit, ...] = ()
    others_label: str = "Similar papers"
    headline: str | None = None


@dataclass(frozen=True)
class SimilarReply(Reply):
    """Papers like ``paper`` (never including it), best first."""

    paper: Paper | None = None
    hits: tuple[Hit, ...] = ()


@dataclass(frozen=True)
class PickListReply(Reply):
    """Several papers match a name equally well: ask the user to pick one."""

    query: str = ""
    papers: tuple[Paper, ...] = ()


@dataclass(frozen=True)
class HelpReply(Reply):
    """Usage with examples. ``prefix`` is "/paper", "@paperbot", or "" in a DM with the bot;
    ``examples`` names papers and topics of the loaded index."""

    prefix: str = "/paper"
    note: str | None = None
    examples: Examples = Examples()


@dataclass(frozen=True)
class ErrorReply(Reply):
    """A short explanation of bad input, with an example that works."""

    message: str = ""
    example: str | None = None


@dataclass(frozen=True)
class NoticeReply(Reply):
    """A plain sentence (confirmations, "no confident match", …).

    Attributes:
        text: plain text; the renderer escapes it (backticks stay code).
        actor: a Slack user id shown as a live mention before ``text``
            (e.g. who subscribed the channel), or None.
        when: an aware time shown at ``{when}`` in ``text`` (else after it), in
            each reader's own zone (``bot.render.mrkdwn.date_token``), or None.
    """

    text: str = ""
    actor: str | None = None
    when: datetime | None = None


@dataclass(frozen=True)
class StatusReply(Reply):
    """This channel's subscription and its next post, or why it is inactive.

    Attributes:
        subscription: the channel's subscription or None when there is none.
        next_post: the next post time, aware, in the subscription's zone.
        match_count: papers matching the channel's topic now (None: no topic).
        summary: the schedule in words ("3 papers about … on Mondays at …").
        feed: the asking user's personal feed in words, or None.
    """

    subscription: Subscription | None = None
    next_post: datetime | None = None
    match_count: int | None = None
    summary: str | None = None
    feed: str | None = None


@dataclass(frozen=True)
class DigestReply(Reply):
    """The paper-of-the-day post for ``day``; the abstract goes in its thread."""

    paper: Paper | None = None
    day: date | None = None


@dataclass(frozen=True)
class WelcomeReply(Reply):
    """A first hello: what paperbot does and how to subscribe (issue 12 point 5).

    Attributes:
        audience: "user" (the Messages tab, first open) or "channel" (the bot
            was just added to it).
        examples: papers and topics of the loaded index to suggest.
    """

    audience: str = "user"
    examples: Examples = Examples()


@dataclass(frozen=True)
class ShareReply(Reply):
    """A paper shared to a channel: a compact card, the abstract in its thread.

    Attributes:
        paper: the paper shared.
        sharer: who shared it, as a display name (plain text, never a live
            mention: sharing must not notify the sharer).
    """

    paper: Paper | None = None
    sharer: str = "someone"


@dataclass(frozen=True)
class ReadingListReply(Reply):
    """A page of the user's reading list (``/paper saved``, App Home), newest first.

    Attributes:
        entries: this page's entries.
        total: entries in the whole list.
        offset: index of ``entries[0]`` in the list.
        limit: page size.
        gone: ids of entries no longer in the index.
    """

    entries: tuple[ReadingListEntry, ...] = ()
    total: int = 0
    offset: int = 0
    limit: int = 5
    gone: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Recommended:
    """A paper picked for a reader, with why (issue 22 point 4).

    Attributes:
        paper: the paper.
        terms: 3-5 words or phrases that weighed most for it (each occurs in the paper).
        like: the reader's positive it is most like, or None.
        because: what the reader did to ``like``, as the explanation says it (its strongest
            signal): "you saved", "you liked", "you shared", "this channel liked" or
            "shared here".
        how: "pick" (the model's), "fallback" (the rotation: too few positives) or
            "rotation" (the rotation filling a post the model could not fill).
    """

    paper: Paper
    terms: tuple[str, ...] = ()
    like: Paper | None = None
    because: str = "you saved"
    how: str = "pick"


@dataclass(frozen=True)
class ForYouReply(Reply):
    """``/paper foryou`` and the App Home's "For you": a page of picks, or why there are none.

    Attributes:
        picks: this page's picks, best first (empty when ``have`` is set).
        offset: index of ``picks[0]`` in the whole ranking.
        has_more: a further page exists.
        have: with too few positives, how many the reader has (else None).
        needed: positives a model needs (``bot.core.recommend_port.MIN_POSITIVES``).
        example: a paper of the index to save, shown with too few positives, or None.
        example_like: the reader's positive ``example`` is similar to, or None (any paper).
        unavailable: no recommender runs here (the page says so).
        done: ``(paper id, note)`` of picks already answered from this page ("Noted ✓").
    """

    picks: tuple[Recommended, ...] = ()
    offset: int = 0
    has_more: bool = False
    have: int | None = None
    needed: int = 3
    example: Paper | None = None
    example_like: Paper | None = None
    unavailable: bool = False
    done: tuple[tuple[str, str], ...] = ()
