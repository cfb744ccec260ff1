"""Rendering: service replies → Block Kit messages (``bot.core.ports.Message``).

Pure functions. Every string from users or the corpus is escaped here, once
(``bot.render.mrkdwn.escape``); Block Kit is built with
``slack_sdk.models.blocks`` (``bot.render.blocks``) within Slack's limits, and
every message carries a plain ``text`` fallback. The console prints the same
messages through ``to_text``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from bot.core.models import PAGE_SIZE, Paper
from bot.core.ports import Message
from bot.core.replies import (
    EPHEMERAL,
    IN_CHANNEL,
    DigestReply,
    ErrorReply,
    ForYouReply,
    HelpReply,
    NoticeReply,
    PaperReply,
    PickListReply,
    ReadingListReply,
    Recommended,
    Reply,
    ResultsReply,
    ShareReply,
    SimilarReply,
    StatusReply,
    WelcomeReply,
)
from bot.daily.schedule_words import post_title
from bot.render import blocks as bk
from bot.render import counts
from bot.render import foryou as _foryou
from bot.render import mrkdwn as md
from bot.render import reading_list as _reading_list
from bot.render import views as _views
from bot.render.blocks import (
    ACTION_ANOTHER,
    ACTION_DETAILS,
    ACTION_HOME_SEARCH,
    ACTION_PAGE,
    ACTION_PAGE_INSTEAD,
    ACTION_PAGE_PREVIOUS,
    ACTION_READING_LIST_EXPORT,
    ACTION_READING_LIST_PAGE,
    ACTION_READING_LIST_REMOVE,
    ACTION_SAVE,
    ACTION_SHARE,
    ACTION_SIMILAR,
    PAGE_ACTIONS,
)
from bot.render.cards import chunks_of as _chunks
from bot.render.cards import share_message
from bot.render.echo import echo, length_note, query_value
from bot.render.terminal import to_text

__all__ = [
    "render",
    "render_digest",
    "render_post",
    "render_learned",
    "to_text",
    "escape",
    "ACTION_SHARE",
    "ACTION_DETAILS",
    "ACTION_SIMILAR",
    "ACTION_PAGE",
    "ACTION_PAGE_PREVIOUS",
    "ACTION_PAGE_INSTEAD",
    "PAGE_ACTIONS",
    "ACTION_ANOTHER",
    "ACTION_HOME_SEARCH",
    "PAGE_SIZE",
    "ACTION_SAVE",
    "ACTION_READING_LIST_REMOVE",
    "ACTION_READING_LIST_PAGE",
    "ACTION_READING_LIST_EXPORT",
    "digest_marker",
]

escape = md.escape
#: ``event_type`` of a digest post's message metadata (letters, digits, ``_``).
DIGEST_EVENT = "paperbot_digest"
TEXT_MAX = 3900  # fallback text; Slack advises ≤ 4,000 chars (docs/platform-facts.md)
#: Most papers listed under a card (``PaperReply.others``: the other papers of a post are up to 4).
OTHERS_MAX = 5


def render(reply: Reply) -> Message:
    """Render any service reply as a ``Message`` (blocks + text fallback).

    Raises:
        TypeError: for an unknown reply type (a programming error).
    """
    fn = _RENDERERS.get(type(reply))
    if fn is None:
        raise TypeError(f"no renderer for {type(reply).__name__}")
    message = fn(reply)
    notes = [md.escape(n) for n in (reply.note, length_note(reply)) if n]
    if notes:
        message = replace(
            message,
            text=f"{message.text}\n_{' '.join(notes)}_"[:TEXT_MAX],
            blocks=tuple(bk.fit(list(message.blocks)[: bk.MESSAGE_BLOCKS_MAX - 1] + [bk.context(*notes)])),
        )
    return message


def _message(blocks: list[dict], text: str, visibility: str, thread: tuple[Message, ...] = ()) -> Message:
    kept = bk.fit(blocks)[: bk.MESSAGE_BLOCKS_MAX]
    return Message(text=md.cut(text, TEXT_MAX), blocks=tuple(kept), visibility=visibility, thread=thread)


def _results(reply: ResultsReply) -> Message:
    page = reply.page
    first = page.offset + 1 if page.total else 0
    last = page.offset + len(page.hits) if page.total else 0
    head = _results_head(reply)
    blocks = [bk.section(head)]
    notes = _results_notes(reply)
    if notes:
        blocks.append(bk.context(*[n if n.startswith(("Showing", "Did")) else md.escape(n) for n in notes]))
    shared = dict(reply.shared)
    divider = counts.divider_at(page)
    for i, hit in enumerate(page.hits, start=first):
        if i - first == divider:
            blocks.append(bk.context(counts.SOME_WORDS))
        blocks.append(bk.section(bk.hit_text(i, hit)))
        where = shared.get(hit.paper.id)
        if where:
            blocks.append(bk.context(f"Shared in <#{md.escape(where)}> ✓"))
        blocks.append(bk.actions(*bk.paper_buttons(hit.paper, share=not where, origin=_page_value(reply, page.offset))))
    if page.total:
        blocks.append(
            bk.context(f"Showing {first}–{last} of {page.total} · `/paper show &lt;id&gt;` for a paper in full")
        )
    nav = _results_nav(reply)
    if nav:
        blocks.append(bk.actions(*nav))
    text = head + "".join(
        f"\n{i}. {md.cut_escaped(h.paper.title, 150)} ({md.escape(h.paper.id)})"
        for i, h in enumerate(page.hits, start=first)
    )
    return _message(blocks, text, reply.visibility)


def _results_head(reply: ResultsReply) -> str:
    """The first line: how many papers match (or "Not sure which paper …"), or none."""
    page = reply.page
    shown = md.quoted(echo(page.corrected_query or page.query))
    if not page.total:
        topic = reply.examples.topic()
        return f"No paper matches {shown}. Try fewer or other words" + (
            f", e.g. `{md.escape(topic)}`." if topic else "."
        )
    if reply.unsure:
        return f"Not sure which paper you mean — these match {shown} best:"
    return counts.headline(page, shown)


def _results_notes(reply: ResultsReply) -> list[str]:
    """The page's notes, after the spelling line ("Showing results for …", "Did you mean …?") if any."""
    page = reply.page
    notes = list(page.notes)
    typed_finds = reply.typed_total is None or reply.typed_total > 0
    if page.corrected_query and typed_finds:
        notes.insert(
            0,
            f"Showing results for *{md.escape(echo(page.corrected_query))}*; "
            f"search instead for {md.quoted(echo(page.query))}.",
        )
    elif page.corrected_query:
        notes.insert(
            0,
            f"Showing results for *{md.escape(echo(page.corrected_query))}*: "
            f"{md.quoted(echo(page.query))} matches no paper.",
        )
    elif page.suggestion:
        notes.insert(0, f"Did you mean *{md.escape(page.suggestion)}*?")
    return notes


def _results_nav(reply: ResultsReply) -> list[dict]:
    """*Search “…” instead*, *‹ Previous*, *Next ›* — those that apply and whose query fits a button."""
    page = reply.page
    shown = page.corrected_query or page.query
    nav = []
    typed_finds = reply.typed_total is None or reply.typed_total > 0
    typed = query_value(page.query, reply.query_keys)
    if page.corrected_query and typed_finds and typed:
        nav.append(_search_as_typed(page.query, typed, " instead", "as typed"))
    meant = query_value(page.suggestion, reply.query_keys) if page.suggestion and not page.total else None
    if meant and not page.corrected_query:  # "Did you mean …?" with nothing found: one click runs it
        nav.append(_search_as_typed(page.suggestion, meant, "", "instead"))
    before, after = _page_value(reply, page.offset - page.limit), _page_value(reply, page.offset + page.limit)
    if page.has_previous and before:
        nav.append(
            bk.button(
                "‹ Previous",
                ACTION_PAGE_PREVIOUS,
                before,
                accessible=f"Previous page of results for “{md.cut(shown, 30)}”",
            )
        )
    if page.has_next and after:
        nav.append(
            bk.button("Next ›", ACTION_PAGE, after, accessible=f"Next page of results for “{md.cut(shown, 30)}”")
        )
    return nav


def _search_as_typed(query: str, value: dict, after: str, how: str) -> dict:
    """The button that searches ``query`` without spelling correction (``exact``)."""
    return bk.button(
        f"Search “{md.cut(query, 40)}”{after}",
        ACTION_PAGE_INSTEAD,
        {**value, "o": 0, "exact": 1},
        accessible=f"Search for “{md.cut(query, 40)}” {how}",
    )


def _page_value(reply: ResultsReply, offset: int) -> dict | None:
    """Button value for another page of the same ranking (``q`` or ``k``, ``o``,
    ``exact``); None when the query cannot ride in a button (``echo.query_value``)."""
    page = reply.page
    query = query_value(page.corrected_query or page.query, reply.query_keys)
    if query is None:
        return None
    value = {**query, "o": max(0, offset)}
    if page.suggestion and not page.corrected_query:
        value["exact"] = 1  # keep showing the query as typed, as this page did
    return value


def _paper(reply: PaperReply) -> Message:
    p = reply.paper
    headline = f"*{md.cut_escaped(reply.headline, 300)}*" if reply.headline else ""
    blocks = [bk.section(headline)] if headline else []
    blocks += bk.paper_blocks(p)
    if reply.visibility == EPHEMERAL:  # the asker's own card: Share and Save redraw it in place
        blocks.append(bk.actions(*bk.paper_buttons(p, details=False, primary=True, origin={"card": 1})))
    else:
        blocks.append(bk.actions(*bk.paper_buttons(p, share=False, details=False)))
    if reply.others:
        blocks.append(bk.section(f"*{md.escape(reply.others_label)}*"))
        blocks += [bk.paper_line(h.paper) for h in reply.others[:OTHERS_MAX]]
    text = (
        f"{headline}\n" if headline else ""
    ) + f"{md.cut_escaped(p.title, 200)} ({md.escape(p.id)})\n{md.cut_escaped(p.tldr, 400)}"
    return _message(blocks, text, reply.visibility)


def _similar(reply: SimilarReply) -> Message:
    p = reply.paper
    head = f"*Papers like* {bk.paper_title(p, 200)} `{md.escape(p.id)}`"
    blocks = [bk.section(head)]
    if not reply.hits:
        blocks.append(bk.section("No similar paper found in this corpus."))
    for i, hit in enumerate(reply.hits, start=1):
        blocks.append(bk.section(bk.hit_text(i, hit)))
        blocks.append(bk.actions(*bk.paper_buttons(hit.paper, similar=False)))
    text = f"Papers like {md.cut_escaped(p.title, 150)}:\n" + bk.short_list(reply.hits, 10)
    return _message(blocks, text, reply.visibility)


def _pick(reply: PickListReply) -> Message:
    head = f"Several papers match {md.quoted(echo(reply.query))}. Which one?"
    blocks = [bk.section(head)]
    for p in reply.papers[:10]:
        blocks.append(bk.section(f"• *{bk.paper_title(p, 200)}* `{md.escape(p.id)}`"))
        blocks.append(bk.actions(*bk.paper_buttons(p, share=False, similar=False)))
    text = head + "".join(f"\n• {md.cut_escaped(p.title, 150)} ({md.escape(p.id)})" for p in reply.papers[:10])
    return _message(blocks, text, reply.visibility)


def _error(reply: ErrorReply) -> Message:
    text = f":warning: {md.escape(reply.message)}"
    if reply.example:
        text += f"\nExample: `{md.escape(reply.example)}`"
    return _message([bk.section(text)], text, reply.visibility)


def _notice(reply: NoticeReply) -> Message:
    text = md.escape(reply.text)
    if reply.when is not None:  # at "{when}" in the text, else after it
        token = md.date_token(reply.when)
        text = text.replace("{when}", token) if "{when}" in text else f"{text} {token}."
    if reply.actor and re.fullmatch(r"[UW][A-Z0-9]+", reply.actor):
        text = f"<@{reply.actor}> {text}"
    return _message([bk.section(text)], text, reply.visibility)


def render_post(papers: list[Paper], day: date, title: str | None = None) -> Message:
    """A digest post: ``render_digest`` for one paper, ``render_digest_many`` for several.

    Args:
        papers: the post's papers, 1 to 5.
        day: the subscription's local date.
        title: what the post is, plain text (``bot.daily.schedule_words.post_title``);
            None: "Paper of the day · YYYY-MM-DD" (or "N papers of the day · …").
    """
    if len(papers) == 1:
        return render_digest(papers[0], day, title)
    return render_digest_many(papers, day, title)


def render_digest(paper: Paper, day: date, title: str | None = None) -> Message:
    """The paper-of-the-day post for ``day`` (issue 3 item 3).

    Parent: its title ("Paper of the day · YYYY-MM-DD", or what ``title`` says: "Paper
    of the week · Mon …"), the paper's header, meta, TL;DR,
    keywords, code link and page link, *Similar papers* / *Another paper* / *Save* buttons; its
    ``thread`` holds the full abstract (split into ≤ 3000-char sections).
    The marker ``digest_marker(day, paper.id)`` is the first block's
    ``block_id`` and in the message metadata (``DIGEST_EVENT``), so a crashed
    run can find its post; the fallback ``text`` — what notifications, the
    sidebar and screen readers show — is for people only:
    "Paper of the day · YYYY-MM-DD: <title>".

    Args:
        paper: the paper of the day.
        day: the subscription's local date (in the header and the marker).
        title: what the post is, plain text (``bot.daily.schedule_words.post_title``), or None.
    """
    marker = digest_marker(day, paper.id)
    title = title or post_title((), 1, day)
    blocks = [bk.section(f"*{md.cut_escaped(title, 300)}*", block_id=marker)]
    blocks += bk.paper_blocks(paper, abstract=False)
    blocks.append(
        bk.actions(
            bk.button(
                "Similar papers",
                ACTION_SIMILAR,
                {"id": paper.id},
                accessible=bk.spoken_label("Papers similar to", paper),
            ),
            bk.button("Another paper", ACTION_ANOTHER, {"id": paper.id}, accessible="Another paper, chosen at random"),
            bk.button(
                "Save", ACTION_SAVE, {"id": paper.id}, accessible=bk.spoken_label("Save to your reading list:", paper)
            ),
        )
    )
    blocks.append(bk.context("Full abstract in the thread ↓"))
    text = f"{md.cut_escaped(title, 300)}: {md.cut_escaped(paper.title, 200)}"
    metadata = {
        "event_type": DIGEST_EVENT,
        "event_payload": {"marker": marker, "day": day.isoformat(), "paper_id": paper.id},
    }
    chunks = _chunks(md.escape(paper.abstract), bk.SECTION_MAX - 100)
    abstract = _message([bk.section(c) for c in chunks[:3]], md.cut(chunks[0] if chunks else "", 3000), IN_CHANNEL)
    return replace(_message(blocks, text, IN_CHANNEL, thread=(abstract,)), metadata=metadata)


def render_digest_many(papers: list[Paper], day: date, title: str | None = None) -> Message:
    """One post with several papers (``/paper subscribe … 3 papers``, issue 13).

    Parent: its title ("3 papers of the day · YYYY-MM-DD", or what ``title`` says:
    "3 papers of the week about “diffusion” · Mon …"), then per paper its title (a link
    to its page when it has one), venue and TL;DR with *Details* / *Similar papers* /
    *Save*, each button naming its paper to a screen reader; ``thread`` holds one reply per
    paper with its title and abstract (two sections at most). The marker is
    ``digest_marker(day, papers[0].id)``, as for one paper. Stays under
    ``blocks.MESSAGE_CHARS_MAX`` for 5 papers (titles ≤ 250, TL;DRs ≤ 600 characters).

    Args:
        papers: the day's papers, 1 to 5, the first one's id in the marker.
        day: the subscription's local date.
        title: what the post is, plain text (``bot.daily.schedule_words.post_title``), or None.
    """
    marker = digest_marker(day, papers[0].id)
    title = title or post_title((), len(papers), day)
    blocks = [bk.section(f"*{md.cut_escaped(title, 300)}*", block_id=marker)]
    thread = []
    for n, paper in enumerate(papers, 1):
        line = f"*{n}. {bk.paper_title(paper, 250)}*"
        line += f" · {md.cut_escaped(paper.venue, 100)}" if paper.venue else ""
        if paper.tldr:
            line += f"\n{md.cut_escaped(paper.tldr, 600)}"
        blocks.append(bk.section(line))
        blocks.append(
            bk.actions(
                bk.button("Details", ACTION_DETAILS, {"id": paper.id}, accessible=bk.spoken_label("Details of", paper)),
                bk.button(
                    "Similar papers",
                    ACTION_SIMILAR,
                    {"id": paper.id},
                    accessible=bk.spoken_label("Papers similar to", paper),
                ),
                bk.button(
                    "Save",
                    ACTION_SAVE,
                    {"id": paper.id},
                    accessible=bk.spoken_label("Save to your reading list:", paper),
                ),
            )
        )
        chunks = _chunks(md.escape(paper.abstract), bk.SECTION_MAX - 400)
        body = [bk.section(f"*{n}. {md.cut_escaped(paper.title, 250)}*")] + [bk.section(c) for c in chunks[:2]]
        thread.append(_message(body, f"{n}. {md.cut_escaped(paper.title, 200)}", IN_CHANNEL))
    blocks.append(bk.context("Each abstract is in the thread ↓"))
    text = f"{md.cut_escaped(title, 300)}: " + "; ".join(md.cut_escaped(p.title, 80) for p in papers)
    metadata = {
        "event_type": DIGEST_EVENT,
        "event_payload": {"marker": marker, "day": day.isoformat(), "paper_id": papers[0].id},
    }
    return replace(_message(blocks, md.cut(text, 3000), IN_CHANNEL, thread=tuple(thread)), metadata=metadata)


def render_learned(
    picks: list[Recommended], day: date, title: str, note: str | None = None, personal: bool = True
) -> Message:
    """The post of a ``for me`` / ``for this channel`` subscription (issue 22): ``render_post``
    of its papers with why under each pick (``bot.render.foryou.learned_post``).

    Args:
        picks: the post's papers with why, 1 to 5.
        day: the subscription's local date.
        title: what the post is (``bot.daily.schedule_words.post_title``).
        note: why the post is the rotation (said once), or None.
        personal: a person's feed (with *More like this* / *Not for me*), not a channel's.
    """
    return _foryou.learned_post(render_post([r.paper for r in picks], day, title), picks, note, personal)


def digest_marker(day: date, paper_id: str) -> str:
    """``potd-YYYY-MM-DD-<paper id>``: identifies a digest post (≤ 255 chars).

    Args:
        day: the local date of the post.
        paper_id: its (first) paper.
    """
    return f"potd-{day.isoformat()}-{paper_id}"[:255]


def _digest(reply: DigestReply) -> Message:
    return render_digest(reply.paper, reply.day)


_RENDERERS = {
    ResultsReply: _results,
    PaperReply: _paper,
    SimilarReply: _similar,
    PickListReply: _pick,
    HelpReply: lambda r: _views.help_message(r.prefix, r.note, r.visibility, r.examples),
    ErrorReply: _error,
    NoticeReply: _notice,
    StatusReply: lambda r: _views.status_message(r),
    ReadingListReply: lambda r: _reading_list.reading_list_message(r),
    DigestReply: _digest,
    WelcomeReply: _views.welcome_message,
    ShareReply: share_message,
    ForYouReply: _foryou.foryou_message,
}
