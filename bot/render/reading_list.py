"""The reading list as blocks: the ``/paper saved`` message and the App Home's
"Saved papers" section (issue 13 point 5).

Each entry: its title (marked when derived or no longer in the index), a
meta line, and *Details* / *Remove* buttons (value ``{"id"}``); under the
page, *‹ Newer* / *Older ›* (value ``{"o": offset}``) and *Export BibTeX*.
"""

from __future__ import annotations

from typing import Sequence

from slack_sdk.models.blocks import ButtonElement

from bot.core.models import ReadingListEntry
from bot.core.ports import Message
from bot.core.replies import ReadingListReply
from bot.render import blocks as bk
from bot.render import mrkdwn as md

#: Most characters of the export DM's list (Slack advises ≤ 4,000 in a message's text,
#: docs/slack-rules.md [message-text]).
EXPORT_LIST_MAX = 3500
EMPTY = (
    "Your reading list is empty. Click *Save* on any paper — in search results, "
    "a paper's details or the paper of the day."
)


def entry_line(e: ReadingListEntry, gone: bool) -> str:
    """One entry as mrkdwn: title (a link to the paper's page when the entry has one, with
    marks) and a short meta line.

    Args:
        e: the reading-list entry.
        gone: True when its paper is no longer in the index.
    """
    title = bk.linked_title(e.title, e.url, 250)
    marks = (" _(derived title)_" if e.title_derived else "") + (" _(no longer in the index)_" if gone else "")
    who = ", ".join(md.cut(a, 60) for a in e.authors[:3]) + (" et al." if len(e.authors) > 3 else "")
    meta = " · ".join(x for x in (f"`{md.escape(e.paper_id)}`", md.cut_escaped(e.venue, 80), md.escape(who)) if x)
    return f"*{title}*{marks}\n{meta}"


def reading_list_blocks(reply: ReadingListReply, primary: bool = True) -> list[dict]:
    """The list's blocks (shared by the message and the Home tab). Each entry's buttons
    name its paper to a screen reader (``accessibility_label``, issue 19 point 7).

    Args:
        reply: the page of the list.
        primary: *Export BibTeX* is the primary button (False in the Home tab, whose
            primary button is *Search papers*: one per view, docs/slack-rules.md [button]).
    """
    blocks: list[dict] = []
    if not reply.entries:
        return [bk.section(EMPTY)]
    first, last = reply.offset + 1, reply.offset + len(reply.entries)
    blocks.append(bk.context(f"{first}–{last} of {reply.total}, newest first"))
    for e in reply.entries:
        gone = e.paper_id in reply.gone
        blocks.append(bk.section(entry_line(e, gone)))
        value = {"id": e.paper_id}
        details = bk.button("Details", bk.ACTION_DETAILS, value, accessible=bk.spoken("Details of", e.title))
        buttons = [] if gone or len(e.paper_id) > 200 else [details]
        if len(e.paper_id) <= 200:
            buttons.append(remove_button(e))
        if buttons:
            blocks.append(bk.actions(*buttons))
    nav = []
    if reply.offset > 0:
        nav.append(bk.button("‹ Newer", bk.ACTION_READING_LIST_PAGE, {"o": max(0, reply.offset - reply.limit)}))
    if last < reply.total:
        nav.append(bk.button("Older ›", bk.ACTION_READING_LIST_PAGE, {"o": last}))
    nav.append(
        bk.button(
            "Export BibTeX",
            bk.ACTION_READING_LIST_EXPORT,
            {"all": 1},
            style="primary" if primary else None,
            accessible="Export your reading list as a BibTeX file",
        )
    )
    blocks.append(bk.actions(*nav))
    return blocks


def remove_button(e: ReadingListEntry) -> ButtonElement:
    """*Remove* for one entry: Slack asks first, naming the paper (a ``confirm``
    dialog, docs/slack-rules.md [confirm]; issue 19 point 7).

    Args:
        e: the reading-list entry (its title, else its id, is named).
    """
    title = md.cut(e.title or e.paper_id, 200)
    ask = bk.confirm_dialog(
        "Remove this paper?", f"Remove “{title}” from your reading list?", "Remove", "Keep it", style="danger"
    )
    return bk.button(
        "Remove",
        bk.ACTION_READING_LIST_REMOVE,
        {"id": e.paper_id},
        style="danger",
        confirm=ask,
        accessible=bk.spoken("Remove from your reading list:", e.title),
    )


def reading_list_message(reply: ReadingListReply) -> Message:
    """``/paper saved``: the page as an ephemeral message (its ``note`` — "Removed
    “…” from your reading list." — is said once, under it, by ``bot.render.render``)."""
    head = [bk.section("*Your reading list*")]
    text = f"Your reading list: {reply.total} paper{'s' if reply.total != 1 else ''}."
    return Message(text=text, blocks=tuple(head + reading_list_blocks(reply)), visibility=reply.visibility)


def export_message(entries: Sequence[ReadingListEntry], gone: frozenset[str] = frozenset()) -> Message:
    """The DM that carries an export: a line, then one mrkdwn line per entry — its title a
    Slack link ``<url|title>`` to the paper's page when it has one (Slack shows Markdown's
    ``[title](url)`` literally: docs/platform-facts.md "Slack text escaping and mentions"),
    then id, venue and authors (``entry_line`` on one line). The ``.bib`` file follows in
    its thread. Past ``EXPORT_LIST_MAX`` characters the list ends with how many more the
    file holds.

    Args:
        entries: the reading list's entries, in order.
        gone: ids no longer in the index (marked "(no longer in the index)").
    """
    count = len(entries)
    lines: list[str] = []
    used = 0
    for n, e in enumerate(entries):
        line = "• " + entry_line(e, e.paper_id in gone).replace("\n", " · ")
        if used + len(line) > EXPORT_LIST_MAX:
            lines.append(f"… and {count - n} more: all {count} are in the file.")
            break
        lines.append(line)
        used += len(line) + 1
    head = f"*Your paperbot reading list* — {count} paper{'s' if count != 1 else ''}; the BibTeX file is in the thread."
    return Message(text="\n".join([head, *lines]))
