"""The compact card a paper link unfurls into (issue 12 item 1).

``unfurl(paper)`` is one ``chat.unfurl`` entry, ``{"blocks": [...]}``: the
title (bold), authors when known and the venue, the TL;DR, and *Details* /
*Similar* buttons (``bot.render.blocks``; answered like the buttons of a
result). Everything from the corpus is escaped once (``bot.render.mrkdwn``);
Block Kit limits as everywhere (docs/slack-rules.md [unfurl]).
"""

from __future__ import annotations

from bot.core.models import Paper
from bot.render import blocks as bk
from bot.render import mrkdwn as md

TLDR_MAX = 400


def unfurl(paper: Paper) -> dict:
    """``{"blocks": [section, context?, actions]}`` for ``paper``'s link."""
    title = md.cut_escaped(paper.title, 200)
    lines = [f"*{title}*"]
    if paper.tldr:
        lines.append(md.cut_escaped(paper.tldr, TLDR_MAX))
    byline = []
    if paper.authors:
        names = ", ".join(md.cut(a, 60) for a in paper.authors[:3])
        byline.append(md.cut_escaped(names + (" et al." if len(paper.authors) > 3 else ""), 200))
    if paper.venue:
        byline.append(md.cut_escaped(paper.venue, 100))
    byline.append(f"`{md.escape(paper.id)}`")
    blocks = [
        bk.section("\n".join(lines)),
        bk.context(" · ".join(byline)),
        bk.actions(*bk.paper_buttons(paper, share=False)),
    ]
    return {"blocks": [b for b in blocks if b]}


def unfurl_text(paper: Paper) -> dict:
    """The plain fallback entry (no blocks) when Slack refuses the card."""
    return {"text": f"{md.cut_escaped(paper.title, 200)} — {md.cut_escaped(paper.tldr, TLDR_MAX)}"}
