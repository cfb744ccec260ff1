"""Block Kit builders over ``slack_sdk.models.blocks`` — with Slack's limits applied.

Limits (docs/platform-facts.md, "Slack message and Block Kit limits"): ≤ 50 blocks per
message (100 in a modal or Home tab), section text ≤ 3000 characters, header
≤ 150 (plain_text), context ≤ 10 elements, button text ≤ 75, value ≤ 2000,
``action_id``/``block_id`` ≤ 255. ``slack_sdk`` validates these in
``to_dict()`` and raises ``SlackObjectFormationError``; we cut before that.
"""

from __future__ import annotations

import json
import re

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.core.json_values import json_object
from bot.core.models import Hit, Paper
from bot.core.pages import page_url
from bot.render import mrkdwn as md
from bot.render.tldr import tldr_parts

SECTION_MAX = 3000  # Slack: section text ≤ 3000 chars
HEADER_MAX = 150  # Slack: header text ≤ 150 chars
BUTTON_TEXT_MAX = 75  # Slack: button text ≤ 75 chars
VALUE_MAX = 2000  # Slack: button value ≤ 2000 chars
MESSAGE_BLOCKS_MAX = 50  # Slack: ≤ 50 blocks per message
ABSTRACT_MAX = 2800  # an abstract section, leaving room for a label
LABEL_MAX = 75  # Slack: button accessibility_label ≤ 75 chars
URL_MAX = 500  # longer code URLs are not shown (Slack allows 3000 in a button)
MESSAGE_CHARS_MAX = 11_000  # all block text; Slack refuses ~13.2k (bolt-js#2509, docs/platform-facts.md)

# action_id values: the Slack adapter (bot.slack.listeners.buttons) routes on these.
ACTION_SHARE = "paper_share"
ACTION_DETAILS = "paper_details"
ACTION_SIMILAR = "paper_similar"
ACTION_PAGE = "results_page"  # Next ›
ACTION_PAGE_PREVIOUS = "results_page_previous"  # ‹ Previous
ACTION_PAGE_INSTEAD = "results_page_instead"  # Search "…" instead
#: Every page button: same value shape, same answer. Distinct ids because
#: Slack refuses a block whose elements share an action_id (docs/slack-rules.md [action-id]).
PAGE_ACTIONS = (ACTION_PAGE, ACTION_PAGE_PREVIOUS, ACTION_PAGE_INSTEAD)
ACTION_ANOTHER = "paper_another"
ACTION_SHARE_TO = "paper_share_to"  # Share to… (in a modal: pick a conversation)
ACTION_MODAL_PAGE = "modal_page"  # the search modal's Next ›
ACTION_MODAL_PAGE_PREVIOUS = "modal_page_previous"
ACTION_MODAL_PAGE_INSTEAD = "modal_page_instead"
MODAL_PAGE_ACTIONS = (ACTION_MODAL_PAGE, ACTION_MODAL_PAGE_PREVIOUS, ACTION_MODAL_PAGE_INSTEAD)
ACTION_HOME_SEARCH = "home_search"
# the reading list (issue 13): Save on every paper card; Remove, paging and Export in the list.
# The action ids keep their first names ("saved_…"): buttons already posted in Slack carry them.
ACTION_SAVE = "paper_save"
ACTION_READING_LIST_REMOVE = "saved_remove"
ACTION_READING_LIST_PAGE = "saved_page"
ACTION_READING_LIST_EXPORT = "saved_export"


def section(text: str, block_id: str | None = None) -> dict:
    """A mrkdwn section; ``text`` is already-escaped mrkdwn, cut to 3000 chars.

    Args:
        text: already-escaped mrkdwn.
        block_id: the block's id (a digest marker), or None.
    """
    return SectionBlock(text=MarkdownTextObject(text=md.cut(text, SECTION_MAX)), block_id=block_id).to_dict()


def header(text: str) -> dict:
    """A header block, cut to 150 chars.

    ``plain_text`` gets no mrkdwn parsing, but ``<``/``>`` are still replaced
    by look-alikes (‹ ›) so no control sequence can reach Slack from a title.
    """
    safe = (text or "").replace("<", "‹").replace(">", "›")
    return HeaderBlock(text=PlainTextObject(text=md.cut(safe, HEADER_MAX), emoji=False)).to_dict()


def context(*parts: str) -> dict:
    """A context block of up to 10 mrkdwn parts (already escaped); empty parts dropped."""
    elements = [MarkdownTextObject(text=md.cut(p, SECTION_MAX)) for p in parts if p][:10]
    return ContextBlock(elements=elements).to_dict()


def fit(blocks: list[dict | None], limit: int = MESSAGE_CHARS_MAX) -> list[dict]:
    """Drop ``None`` blocks and keep the message's total text under ``limit``
    characters: blocks past the budget are left out and a note says so.

    Args:
        blocks: blocks in order; None entries are dropped.
        limit: most characters of the blocks' JSON together.
    """
    out, used = [], 0
    for b in blocks:
        if b is None:
            continue
        size = len(json.dumps(b, ensure_ascii=False))
        if used + size > limit:
            out.append(context("(Shortened to fit Slack's message size.)"))
            break
        out.append(b)
        used += size
    return out


def divider() -> dict:
    """A divider block."""
    return DividerBlock().to_dict()


def button(
    label: str,
    action_id: str,
    value: dict,
    style: str | None = None,
    accessible: str | None = None,
    confirm: ConfirmObject | None = None,
) -> ButtonElement:
    """A button whose ``value`` is compact JSON (≤ 2000 chars, else ValueError).

    Buttons carry everything needed to answer them, so any process can
    (issue 5: nothing is kept in memory between requests). ``accessible`` is
    what a screen reader says instead of ``label`` (``accessibility_label``,
    ≤ 75 chars, D/block-kit/block-elements/button-element in docs/slack-rules.md);
    default ``label``. At most one ``style="primary"`` button per message
    (docs/slack-rules.md [button]; issue 12 point 4).

    Args:
        label: the button's text (cut to 75 characters).
        action_id: the listener's action id.
        value: what the click carries back, as a dict.
        style: "primary", "danger" or None.
        accessible: what a screen reader says instead of ``label``, or None.
        confirm: a dialog Slack shows before the click is sent (``confirm_dialog``), or None.
    """
    data = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if len(data) > VALUE_MAX:
        raise ValueError(f"button value is {len(data)} chars; Slack allows {VALUE_MAX}")
    safe = label.replace("<", "‹").replace(">", "›")  # plain_text, but never a live sequence
    spoken = (accessible or label).replace("<", "‹").replace(">", "›")
    return ButtonElement(
        text=PlainTextObject(text=md.cut(safe, BUTTON_TEXT_MAX), emoji=True),
        action_id=action_id,
        value=data,
        style=style,
        accessibility_label=md.cut(spoken, LABEL_MAX),
        confirm=confirm,
    )


def confirm_dialog(title: str, text: str, yes: str, no: str, style: str | None = None) -> ConfirmObject:
    """A confirmation dialog for a button, within Slack's limits (docs/slack-rules.md
    [confirm]: title ≤ 100, text ≤ 300, the two buttons ≤ 30 characters, all plain text).

    Args:
        title: the dialog's title.
        text: what the click will do (plain text, cut to 300).
        yes: the confirming button ("Remove").
        no: the cancelling button ("Keep it").
        style: "danger" or "primary" for ``yes``, or None.
    """
    return ConfirmObject(
        title=PlainTextObject(text=md.cut(title, 100)),
        text=PlainTextObject(text=md.cut(text, 300)),
        confirm=PlainTextObject(text=md.cut(yes, 30)),
        deny=PlainTextObject(text=md.cut(no, 30)),
        style=style,
    )


def actions(*buttons: ButtonElement, block_id: str | None = None) -> dict | None:
    """An actions block of up to 25 buttons (Slack's limit); None without buttons.

    Args:
        buttons: the buttons, in order; past 25 are left out.
        block_id: the block's id, or None.
    """
    if not buttons:
        return None
    return ActionsBlock(elements=list(buttons)[:25], block_id=block_id).to_dict()


def paper_buttons(
    paper: Paper,
    *,
    share: bool = True,
    details: bool = True,
    similar: bool = True,
    primary: bool = False,
    origin: dict | None = None,
    save: bool = True,
) -> list[ButtonElement]:
    """Share / Details / Similar / Save buttons for one paper (value ``{"id": …}``),
    each with an ``accessibility_label`` naming the paper ("Share “UniSparse: …”");
    none for an id too long to carry in a button (ids are ≤ 64 chars from
    ``bot.corpus``, so only a hand-made index could have one). ``primary``
    styles *Share* — only for a message showing one paper. ``origin`` adds to
    *Share*'s and *Save*'s values the message they are in — a results page's
    ``{"q" or "k", "o"[, "exact"]}``, or ``{"card": 1}`` for a paper card — so a
    click can draw it again in place with that row marked shared or saved
    (``bot.slack.listeners.clicks.redraw``).

    Args:
        paper: the paper the buttons act on.
        share: with *Share*.
        details: with *Details*.
        similar: with *Similar*.
        primary: *Details* styled as the primary button.
        origin: the message the buttons are in (see above), or None.
        save: with *Save* (to the reading list).
    """
    out = []
    if len(paper.id) > 200:
        return out
    if share:
        out.append(
            button(
                "Share",
                ACTION_SHARE,
                {**(origin or {}), "id": paper.id},
                style="primary" if primary else None,
                accessible=spoken_label("Share", paper),
            )
        )
    if details:
        out.append(button("Details", ACTION_DETAILS, {"id": paper.id}, accessible=spoken_label("Details of", paper)))
    if similar:
        out.append(
            button("Similar", ACTION_SIMILAR, {"id": paper.id}, accessible=spoken_label("Papers similar to", paper))
        )
    if save:
        out.append(
            button(
                "Save",
                ACTION_SAVE,
                {**(origin or {}), "id": paper.id},
                accessible=spoken_label("Save to your reading list:", paper),
            )
        )
    return out


#: Said under a paper's buttons once it is in the clicker's reading list (``mark_done``).
SAVED = "Saved to your reading list ✓"


def mark_done(
    blocks: list[dict] | tuple[dict, ...], action_id: str, paper_ids: frozenset[str], note: str
) -> list[dict]:
    """``blocks`` with the ``action_id`` buttons of ``paper_ids`` taken out and
    ``note`` said under each block they were in — a message or view redrawn in
    place after a click ("Saved to your reading list ✓"). A block left without
    buttons becomes the note. Other blocks are unchanged.

    Args:
        blocks: a message's or view's blocks (dicts, as Slack sends them back).
        action_id: the button done (``ACTION_SAVE``, ``ACTION_SHARE``).
        paper_ids: the papers it was done for (the button's ``value`` ``id``).
        note: mrkdwn, already escaped.
    """
    out: list[dict] = []
    for block in blocks:
        if block.get("type") != "actions":
            out.append(block)
            continue
        kept = [e for e in block.get("elements") or [] if not _done(e, action_id, paper_ids)]
        if len(kept) == len(block.get("elements") or []):
            out.append(block)
            continue
        if kept:
            out.append({**block, "elements": kept})
        out.append(context(note))
    return out


def _done(element: dict, action_id: str, paper_ids: frozenset[str]) -> bool:
    if element.get("action_id") != action_id:
        return False
    return (json_object(element.get("value") or "{}") or {}).get("id") in paper_ids


def share_to_button(paper: Paper) -> ButtonElement:
    """*Share to…* (in a modal, where no channel is implied): opens a conversation picker."""
    return button("Share to…", ACTION_SHARE_TO, {"id": paper.id}, accessible=spoken_label("Share to a channel:", paper))


def spoken_label(verb: str, paper: Paper) -> str:
    """``verb “title”`` cut to the 75 characters of an ``accessibility_label``.

    Args:
        verb: what the button does ("Share", "Details of").
        paper: the paper (its title, else its id).
    """
    return spoken(verb, paper.title or paper.id)


def spoken(verb: str, title: str) -> str:
    """``verb “title”`` within the 75 characters of an ``accessibility_label`` (the title is cut).

    Args:
        verb: what the button does ("Remove from your reading list:").
        title: the paper's title (plain text).
    """
    room = LABEL_MAX - len(verb) - 3
    return f"{verb} “{md.cut(title, max(10, room))}”"


def linked_title(title: str, url: str | None, limit: int) -> str:
    """The title as mrkdwn, a link to ``url`` when it is a safe web address of at most
    ``URL_MAX`` characters (``<url|title>``), else the title alone; escaped either way.

    Args:
        title: plain text (not escaped).
        url: the paper's page (``bot.core.pages.page_url``), or None.
        limit: most characters of the title shown (``…`` when cut).
    """
    if url and len(url) <= URL_MAX and md.is_safe_url(url):
        return md.link(url, md.cut(title, limit))
    return md.cut_escaped(title, limit)


def paper_title(paper: Paper, limit: int) -> str:
    """``linked_title`` of a paper: its title linked to its page (``bot.core.pages.page_url``).

    Args:
        paper: the paper.
        limit: most characters of the title shown.
    """
    return linked_title(paper.title, page_url(paper), limit)


def paper_line(paper: Paper) -> dict:
    """``• title `id``` (the title a link to its page) with a small *Details* button beside
    it (a list under a card that can be clicked, issue 12 point 4)."""
    text = f"• {paper_title(paper, 150)} `{md.escape(paper.id)}`"
    if len(paper.id) > 200:
        return section(text)
    accessory = button("Details", ACTION_DETAILS, {"id": paper.id}, accessible=spoken_label("Details of", paper))
    return SectionBlock(text=MarkdownTextObject(text=md.cut(text, SECTION_MAX)), accessory=accessory).to_dict()


#: Shown beside a title the source did not give (``Paper.title_derived``): researchers
#: must not cite a made-up title (issue 12 point 4).
DERIVED_TITLE = "Title derived from the abstract"


def title_note(paper: Paper) -> str:
    """``_Title derived from the abstract_`` for a derived title, else "" (mrkdwn)."""
    return f"_{DERIVED_TITLE}_" if paper.title_derived else ""


def meta_line(paper: Paper) -> str:
    """``id`` · name · venue · authors — escaped mrkdwn for a context block."""
    parts = [f"`{md.escape(paper.id)}`"]
    if paper.name:
        parts.append(md.cut_escaped(paper.name, 100))
    if paper.venue:
        parts.append(md.cut_escaped(paper.venue, 100))
    if paper.authors:
        names = ", ".join(md.cut(a, 80) for a in paper.authors[:4]) + (" et al." if len(paper.authors) > 4 else "")
        parts.append(md.cut_escaped(names, 300))
    return " · ".join(parts)


def code_line(paper: Paper) -> str:
    """Code links as mrkdwn (escaped, safe URLs only), or "" when there are none."""
    links = [
        md.link(u, md.cut(re.sub(r"^https?://", "", u), 60))
        for u in paper.code_urls
        if md.is_safe_url(u) and len(u) <= URL_MAX
    ][:3]
    return ("Code: " + " · ".join(links)) if links else ""


def hit_text(rank: int, hit: Hit) -> str:
    """One result's section text: rank, bold title (a link to the paper's page when it has
    one, ``paper_title``), snippet, id and code link.

    Args:
        rank: the result's position, from 1.
        hit: the result.
    """
    p = hit.paper
    about = md.snippet(hit.snippet) if hit.snippet else md.cut_escaped(p.tldr, 300)
    lines = [f"*{rank}. {paper_title(p, 200)}*", about]
    tail = [f"`{md.escape(p.id)}`"]
    if p.title_derived:
        tail.append("_title derived_")  # short in a result row; cards say it in full
    if p.authors:
        tail.append(
            md.cut_escaped(
                ", ".join(md.cut(a, 60) for a in p.authors[:3]) + (" et al." if len(p.authors) > 3 else ""), 150
            )
        )
    code = code_line(p)
    if code:
        tail.append(code)
    lines.append(" · ".join(tail))
    return "\n".join(x for x in lines if x)


def short_list(hits: tuple[Hit, ...] | list[Hit], limit: int = 5) -> str:
    """A compact bulleted list of papers: ``• title `id```.

    Args:
        hits: the papers, best first.
        limit: most lines.
    """
    return "\n".join(f"• {md.cut_escaped(h.paper.title, 150)} `{md.escape(h.paper.id)}`" for h in list(hits)[:limit])


def paper_blocks(paper: Paper, *, abstract: bool = True) -> list[dict]:
    """The full paper: header title, meta, TL;DR, abstract (cut), keywords, code and
    "Paper:" its page (``bot.core.pages.page_url``; nothing for a paper without one).
    A TL;DR made of sentences the abstract shows is not repeated above it: those
    sentences are bold in the abstract (``bot.render.tldr.tldr_parts``).

    Args:
        paper: the paper.
        abstract: with the abstract (cut); False for a card whose thread holds it.
    """
    blocks = [header(paper.title), context(meta_line(paper), title_note(paper))]
    shown = md.cut_escaped(paper.abstract, ABSTRACT_MAX) if abstract else ""
    inside, rest = tldr_parts(paper.tldr, shown) if abstract else ((), paper.tldr)
    if rest:
        blocks.append(section(f"*TL;DR* {md.cut_escaped(rest, 600)}"))
    if abstract:
        for sentence in inside:  # the TL;DR's sentences in bold where the abstract says them
            shown = shown.replace(sentence, f"*{sentence}*", 1)
        blocks.append(section(shown))
    extra = []
    if paper.keywords:
        extra.append("Keywords: " + md.escape(", ".join(paper.keywords[:8])))
    code = code_line(paper)
    if code:
        extra.append(code)
    page = page_url(paper)
    if page and len(page) <= URL_MAX:
        extra.append("Paper: " + linked_title(re.sub(r"^https?://", "", page), page, 60))
    if extra:
        blocks.append(context(*extra))
    return blocks
