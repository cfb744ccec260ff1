"""The compact card of a shared paper (issue 12 point 4): title (a link to the paper's
page when it has one), TL;DR and who shared it — by name, not a live mention, so the sharer is not notified —
with *Details* / *Similar* buttons and the abstract in the thread, as the
digest does (``bot.render.render_digest``)."""

from __future__ import annotations

import json

from slack_sdk.models.blocks import (
    ConversationFilter,
    ConversationSelectElement,
    InputBlock,
    PlainTextObject,
    UserSelectElement,
)
from slack_sdk.models.views import View

from bot.core.pages import page_url
from bot.core.ports import Message
from bot.core.replies import IN_CHANNEL, ShareReply
from bot.render import blocks as bk
from bot.render import mrkdwn as md

TEXT_MAX = 3900
title_note = bk.title_note


#: Most characters of the abstract on a card that has no thread (``share_message(threaded=False)``).
EXCERPT_MAX = 700


def share_message(reply: ShareReply, threaded: bool = True) -> Message:
    """The channel post for a share; ``thread`` holds the abstract in ≤ 3 sections.

    ``threaded=False`` is the card for where the bot cannot reply in a thread (it reaches the
    conversation through a ``response_url``: a private channel it is not in, a DM between
    people): no thread and no "Abstract in the thread ↓", but the abstract's start on the card
    (``EXCERPT_MAX`` characters) and, when cut, where the rest is (*Details*, the paper's page).

    Args:
        reply: the share.
        threaded: False for a card that will get no thread replies.
    """
    p = reply.paper
    sharer = md.cut_escaped(reply.sharer or "someone", 80)
    body = f"*{bk.paper_title(p, 250)}*"
    if p.tldr:
        body += f"\n{md.cut_escaped(p.tldr, 600)}"
    parts = [f"Shared by {sharer}", f"`{md.escape(p.id)}`", title_note(p)]
    blocks = [bk.section(body), bk.context(*parts), bk.actions(*bk.paper_buttons(p, share=False))]
    text = f"{sharer} shared: {md.cut_escaped(p.title, 200)}"
    chunks = chunks_of(md.escape(p.abstract), bk.SECTION_MAX - 100)
    if not threaded:
        blocks += _excerpt(p)
        chunks = []
    elif chunks:
        blocks.append(bk.context("Abstract in the thread ↓"))
    thread = (
        (Message(text=md.cut(chunks[0], 3000), blocks=tuple(bk.section(c) for c in chunks[:3]), visibility=IN_CHANNEL),)
        if chunks
        else ()
    )
    return Message(
        text=md.cut(text, TEXT_MAX), blocks=tuple(b for b in bk.fit(blocks) if b), visibility=IN_CHANNEL, thread=thread
    )


def _excerpt(p) -> list[dict]:
    """The abstract's start on a card without a thread; when cut, a line saying where the rest is."""
    if not p.abstract.strip():
        return []
    blocks = [bk.section(md.cut_escaped(p.abstract, EXCERPT_MAX))]
    if len(p.abstract) > EXCERPT_MAX:
        page = bk.linked_title("the paper's page", page_url(p), 40) if page_url(p) else ""
        blocks.append(bk.context("The full abstract: *Details*" + (f" or {page}" if page else "")))
    return blocks


def chunks_of(text: str, size: int) -> list[str]:
    """``text`` cut at spaces into pieces of ≤ ``size`` characters.

    Args:
        text: the text to split.
        size: most characters per piece.
    """
    out = []
    while text:
        if len(text) <= size:
            out.append(text)
            break
        cut_at = text.rfind(" ", 0, size)
        cut_at = cut_at if cut_at > size // 2 else size
        out.append(text[:cut_at])
        text = text[cut_at:].lstrip()
    return out


SHARE_MODAL_ID = "share_modal"
SHARE_TARGET_BLOCK = "share_target"
SHARE_TARGET_ACTION = "target"
SHARE_PERSON_BLOCK = "share_person"
SHARE_PERSON_ACTION = "person"


def share_modal(paper, depth: int) -> dict:
    """*Share to…*: the paper, a conversation picker and a person picker, either
    or both. The conversation picker (``conversations_select`` with
    ``response_url_enabled``) gives the submission a ``response_url`` for the
    conversation chosen, the one way into a DM the bot is not in; the person
    picker (``users_select``) always reaches them, in the bot's own DM with them
    (docs/slack-rules.md [response-url-enabled], [dm-membership], [users-select]).
    Nothing is preselected: a person picked alone gets it alone.

    Args:
        paper: the paper to share.
        depth: this view's place in the modal stack (``private_metadata``).
    """
    picker = ConversationSelectElement(
        action_id=SHARE_TARGET_ACTION,
        placeholder=PlainTextObject(text="Pick a channel or conversation"),
        response_url_enabled=True,
        filter=ConversationFilter(include=["public", "private", "im", "mpim"], exclude_bot_users=True),
    )
    person = UserSelectElement(action_id=SHARE_PERSON_ACTION, placeholder=PlainTextObject(text="Pick a person"))
    blocks = [
        bk.section(f"*{md.cut_escaped(paper.title, 250)}*\n{md.cut_escaped(paper.tldr, 600)}"),
        InputBlock(
            block_id=SHARE_TARGET_BLOCK, label=PlainTextObject(text="Share in"), element=picker, optional=True
        ).to_dict(),
        InputBlock(
            block_id=SHARE_PERSON_BLOCK,
            label=PlainTextObject(text="Or send to a person"),
            hint=PlainTextObject(text="They get it in a direct message from paperbot, saying you shared it."),
            element=person,
            optional=True,
        ).to_dict(),
        bk.context("Posts a short card with the abstract, saying you shared it."),
    ]
    return View(
        type="modal",
        callback_id=SHARE_MODAL_ID,
        title=PlainTextObject(text="Share a paper"),
        submit=PlainTextObject(text="Share"),
        close=PlainTextObject(text="Back"),
        private_metadata=json.dumps({"id": paper.id, "depth": depth}),
        blocks=blocks,
    ).to_dict()


def shared_modal(text: str, depth: int) -> dict:
    """The share modal after the post: one line ("Shared in #channel ✓", mrkdwn).

    Args:
        text: the line, mrkdwn ("Shared in #channel ✓").
        depth: how many views deep the modal is (kept in ``private_metadata``).
    """
    return View(
        type="modal",
        title=PlainTextObject(text="Share a paper"),
        close=PlainTextObject(text="Done"),
        private_metadata=json.dumps({"depth": depth}),
        blocks=[bk.section(text)],
    ).to_dict()
