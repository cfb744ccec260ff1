"""The compact card of a shared paper (issue 12 point 4): title, TL;DR, link and
who shared it — by name, not a live mention, so the sharer is not notified —
with *Details* / *Similar* buttons and the abstract in the thread, as the
digest does (``bot.render.render_digest``)."""
from __future__ import annotations

import re

from bot.ports import Message
from bot.render import blocks as bk
from bot.render import mrkdwn as md
from bot.replies import IN_CHANNEL, ShareReply

TEXT_MAX = 3900
title_note = bk.title_note


def share_message(reply: ShareReply) -> Message:
    """The channel post for a share; ``thread`` holds the abstract in ≤ 3 sections."""
    p = reply.paper
    sharer = md.cut_escaped(reply.sharer or "someone", 80)
    body = f"*{md.cut_escaped(p.title, 250)}*"
    if p.tldr:
        body += f"\n{md.cut_escaped(p.tldr, 600)}"
    parts = [f"Shared by {sharer}", f"`{md.escape(p.id)}`"]
    if p.url and md.is_safe_url(p.url) and len(p.url) <= bk.URL_MAX:
        parts.append(md.link(p.url, md.cut(re.sub(r"^https?://", "", p.url), 60)))
    parts.append(title_note(p))
    blocks = [bk.section(body), bk.context(*parts),
              bk.actions(*bk.paper_buttons(p, share=False)),
              bk.context("Abstract in the thread ↓")]
    text = f"{sharer} shared: {md.cut_escaped(p.title, 200)}"
    chunks = chunks_of(md.escape(p.abstract), bk.SECTION_MAX - 100)
    thread = (Message(text=md.cut(chunks[0], 3000), blocks=tuple(bk.section(c) for c in chunks[:3]),
                      visibility=IN_CHANNEL),) if chunks else ()
    return Message(text=md.cut(text, TEXT_MAX), blocks=tuple(b for b in bk.fit(blocks) if b),
                   visibility=IN_CHANNEL, thread=thread)


def chunks_of(text: str, size: int) -> list[str]:
    """``text`` cut at spaces into pieces of ≤ ``size`` characters."""
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
