"""Papers picked for a reader (issue 22): ``/paper foryou``, the App Home's "For you" and the
posts of ``for me`` / ``for this channel`` subscriptions — each pick with why it was picked
("because you saved *X*; words: *a*, *b*, *c*", ``why_text``) and, for a person, *More like
this* / *Not for me* (``ACTION_MORE``, ``ACTION_NOT_FOR_ME``: value ``{"id"[, "o"]}``, ``o``
the ``/paper foryou`` page the button is on).

Pure functions over ``bot.core.replies`` types; Slack's limits: docs/slack-rules.md (blocks
within ``bot.render.blocks``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from bot.core.models import Paper
from bot.core.ports import Message
from bot.core.replies import ForYouReply, Recommended
from bot.render import blocks as bk
from bot.render import mrkdwn as md

ACTION_MORE = "rec_more"
ACTION_NOT_FOR_ME = "rec_not_for_me"
ACTION_FORYOU_PAGE = "foryou_page"  # More picks ›
ACTION_FORYOU_PREVIOUS = "foryou_page_previous"  # ‹ Previous
#: Said under a pick once its button was clicked (``bot.render.blocks.mark_done``).
NOTED = {ACTION_MORE: "Noted: more like this ✓", ACTION_NOT_FOR_ME: "Noted: not for you ✓"}
TLDR_MAX = 200
#: Help under a person's picks.
TEACH = "*More like this* and *Not for me* teach me; so do *Save* and sharing."
TEXT_MAX = 3900
#: ``Recommended.because`` of a channel's positive that was only shared there ("because *X* was
#: shared here").
SHARED_HERE = "shared here"


def why_text(rec: Recommended) -> str:
    """Why ``rec`` was picked, as mrkdwn: "Why: because you saved *X*; words: *a*, *b*, *c*";
    "" for a paper of the rotation (nothing was learned for it).

    Args:
        rec: the pick.
    """
    if rec.how != "pick":
        return ""
    parts = []
    if rec.like is not None:
        title = f"*{md.cut_escaped(rec.like.title, 120)}*"
        if rec.because == SHARED_HERE:
            parts.append(f"because {title} was shared here")
        else:
            parts.append(f"because {md.escape(rec.because)} {title}")
    if rec.terms:
        parts.append("words: " + ", ".join(f"*{md.cut_escaped(t, 40)}*" for t in rec.terms[:5]))
    return ("Why: " + "; ".join(parts)) if parts else ""


def feedback_buttons(paper: Paper, origin: dict | None = None) -> list:
    """*More like this* and *Not for me* for ``paper`` (``origin``: the foryou page's ``{"o"}``).

    Args:
        paper: the pick.
        origin: merged into each value (the page the button is on), or None.
    """
    if len(paper.id) > 200:
        return []
    value = {**(origin or {}), "id": paper.id}
    return [
        bk.button("More like this", ACTION_MORE, value, accessible=bk.spoken_label("More papers like", paper)),
        bk.button("Not for me", ACTION_NOT_FOR_ME, value, accessible=bk.spoken_label("Fewer papers like", paper)),
    ]


def _pick_blocks(n: int, rec: Recommended, origin: dict | None, compact: bool) -> list[dict | None]:
    """One pick: its title (a link to its page), TL;DR, id and authors; why; its buttons."""
    p = rec.paper
    lines = [f"*{n}. {bk.paper_title(p, 200)}*"]
    if p.tldr and not compact:
        lines.append(md.cut_escaped(p.tldr, TLDR_MAX))
    lines.append(bk.meta_line(p))
    # no *Similar* here: six buttons a pick outgrow Slack's message size (``MESSAGE_CHARS_MAX``)
    buttons = bk.paper_buttons(p, similar=False, share=not compact)
    return [
        bk.section("\n".join(lines)),
        bk.context(why_text(rec)) if why_text(rec) else None,
        bk.actions(*buttons, *feedback_buttons(p, origin)),
    ]


def too_few_blocks(reply: ForYouReply, origin: dict | None = None) -> list[dict | None]:
    """With too few positives: how many the reader has, how to add some, a paper to save.

    Args:
        reply: the answer (its ``have``, ``needed``, ``example``).
        origin: merged into the example's feedback buttons' values, or None.
    """
    have = reply.have or 0
    out: list[dict | None] = [
        bk.section(
            f"I pick papers from the ones you like, and I need at least {reply.needed}: you have {have} so far. "
            "Click *Save* on papers you like (in any search result or paper), or *More like this*."
        )
    ]
    if reply.example is not None:
        p = reply.example
        like = reply.example_like
        where = f"like *{md.cut_escaped(like.title, 120)}*" if like is not None else "from the index"
        out.append(bk.section(f"For example, {where}: *{bk.paper_title(p, 200)}*\n{bk.meta_line(p)}"))
        out.append(bk.actions(*bk.paper_buttons(p, share=False, similar=False), *feedback_buttons(p, origin)))
    out.append(bk.context("Find more with `/paper search &lt;words&gt;`."))
    return out


def foryou_blocks(reply: ForYouReply, home: bool = False) -> list[dict]:
    """The picks (or why there are none) as blocks: for ``/paper foryou`` and, ``home``,
    the App Home's "For you" (compact: no TL;DR, no *Share*, no paging).

    Args:
        reply: the answer.
        home: draw the App Home's section.
    """
    origin = None if home else {"o": reply.offset}
    if reply.unavailable:
        return [bk.section("Picks for you are not available on this server.")]
    if reply.have is not None:
        return [b for b in too_few_blocks(reply, origin) if b]
    if not reply.picks:
        return [bk.section("I have no new paper to pick for you right now.")]
    out: list[dict | None] = []
    for n, rec in enumerate(reply.picks, start=reply.offset + 1):
        out += _pick_blocks(n, rec, origin, compact=home)
    if not home:
        out.append(_nav(reply))
        out.append(bk.context(TEACH))
    done = dict(reply.done)
    blocks = [b for b in out if b]
    for pid, note in done.items():
        for action in (ACTION_MORE, ACTION_NOT_FOR_ME):
            blocks = bk.mark_done(blocks, action, frozenset({pid}), md.escape(note))
    return blocks


def _nav(reply: ForYouReply) -> dict | None:
    """*‹ Previous* / *More picks ›* under a page of picks."""
    nav = []
    if reply.offset > 0:
        prev = max(0, reply.offset - len(reply.picks) if reply.picks else 0)
        nav.append(bk.button("‹ Previous", ACTION_FORYOU_PREVIOUS, {"o": prev}, accessible="Previous picks for you"))
    if reply.has_more:
        nav.append(
            bk.button(
                "More picks ›",
                ACTION_FORYOU_PAGE,
                {"o": reply.offset + len(reply.picks)},
                accessible="More papers picked for you",
            )
        )
    return bk.actions(*nav)


def foryou_message(reply: ForYouReply) -> Message:
    """``/paper foryou``: "Picked for you", then the page (``foryou_blocks``).

    Args:
        reply: the answer.
    """
    head = "*Picked for you*" if reply.picks else "*Papers for you*"
    blocks = bk.fit([bk.section(head), *foryou_blocks(reply)])[: bk.MESSAGE_BLOCKS_MAX]
    if reply.have is not None:
        text = f"I need at least {reply.needed} papers you like to pick papers for you; you have {reply.have or 0}."
    else:
        text = "Picked for you:" + "".join(
            f"\n{n}. {md.cut_escaped(r.paper.title, 150)} ({md.escape(r.paper.id)})"
            for n, r in enumerate(reply.picks, start=reply.offset + 1)
        )
    return Message(text=md.cut(text, TEXT_MAX), blocks=tuple(blocks), visibility=reply.visibility)


def learned_post(post: Message, picks: Sequence[Recommended], note: str | None, personal: bool) -> Message:
    """A digest post (``bot.render.render_post``) of a ``for me`` / ``for this channel``
    subscription, with why under each pick, *More like this* / *Not for me* beside a person's
    picks, and ``note`` (why it is the rotation, said once) at its foot.

    Args:
        post: the post as ``render_post`` drew it (one ``actions`` block per paper, in order).
        picks: its papers, in the same order.
        note: plain text, or None.
        personal: a person's feed (with the feedback buttons) rather than a channel's.
    """
    out: list[dict] = []
    at = 0
    for block in post.blocks:
        if block.get("type") == "actions" and at < len(picks):
            rec = picks[at]
            extra = [b.to_dict() for b in feedback_buttons(rec.paper)] if personal else []
            out.append({**block, "elements": list(block.get("elements") or []) + extra})
            why = why_text(rec)
            if why:
                out.append(bk.context(why))
            at += 1
        else:
            out.append(block)
    if not personal:
        out.append(bk.context("React 👍 or 👎 to teach me what this channel likes."))
    if note:
        out.append(bk.context(md.escape(note)))
    return replace(post, blocks=tuple(bk.fit(out)[: bk.MESSAGE_BLOCKS_MAX]))
