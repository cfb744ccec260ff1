"""Related papers for a message (the *Find related papers* shortcut, issue 12
point 2): in a modal (``related_modal``) or, when no modal can be opened, an
ephemeral message (``related_message``). Each paper has *Details*, *Similar*
and *Share* (*Share to…* in a modal, where no channel is implied)."""

from __future__ import annotations

from slack_sdk.models.blocks import PlainTextObject
from slack_sdk.models.views import View

from bot.core.models import SearchPage
from bot.core.ports import Message
from bot.render import blocks as bk
from bot.render import mrkdwn as md

RELATED_RESULTS = 8
HEAD = "*Papers related to this message*"
#: The answer for a message without text (an image, a file, a deleted message).
NO_TEXT = (
    "That message has no text to read — Find related papers works on a message that "
    "describes an idea or quotes a paper. Try it on another message, or `/paper search …`."
)


def _rows(page: SearchPage, *, in_modal: bool) -> list[dict]:
    blocks: list[dict] = []
    if page.notes:
        blocks.append(bk.context(*[md.escape(n) for n in page.notes[:3]]))
    for i, hit in enumerate(page.hits[:RELATED_RESULTS], start=1):
        blocks.append(bk.section(bk.hit_text(i, hit)))
        buttons = bk.paper_buttons(hit.paper, share=not in_modal)
        if in_modal:
            buttons.append(bk.share_to_button(hit.paper))
        blocks.append(bk.actions(*buttons))
    if not page.hits:
        blocks.append(bk.section("No paper in this corpus looks related to that message."))
    return [b for b in blocks if b]


def related_modal(page: SearchPage | None = None, status: str | None = None, error: str | None = None) -> dict:
    """The modal: a status line ("Searching…"), an explanation, or the papers.

    Args:
        page: the related papers, or None.
        status: a line such as "Searching…", or None.
        error: a user-facing explanation, or None.

    Returns:
        dict: a modal view (≤ 100 blocks; title ≤ 24 chars).
    """
    blocks = [bk.section(HEAD)]
    if status:
        blocks.append(bk.context(md.escape(status)))
    if error:
        blocks = [bk.section(md.escape(error) if error != NO_TEXT else NO_TEXT)]
    if page is not None:
        blocks += _rows(page, in_modal=True)
    return View(
        type="modal",
        title=PlainTextObject(text="Related papers"),
        close=PlainTextObject(text="Close"),
        private_metadata='{"depth": 1}',
        blocks=blocks[:100],
    ).to_dict()


def related_message(page: SearchPage) -> Message:
    """The ephemeral answer: the same papers with *Share* / *Details* / *Similar*."""
    blocks = bk.fit([bk.section(HEAD)] + _rows(page, in_modal=False))[: bk.MESSAGE_BLOCKS_MAX]
    text = "Papers related to this message:\n" + bk.short_list(page.hits, RELATED_RESULTS)
    return Message(text=md.cut(text, 3900), blocks=tuple(blocks))
