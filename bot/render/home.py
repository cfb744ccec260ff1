"""App Home tab and the search modal (issue 5 item 4), as Block Kit view dicts.

Views allow up to 100 blocks (docs/platform-facts.md); modal titles are ≤ 24
characters of plain text. Built with ``slack_sdk.models.views.View``, whose
``to_dict()`` validates the limits.
"""
from __future__ import annotations

from datetime import date, datetime

from slack_sdk.models.blocks import InputBlock, PlainTextInputElement, PlainTextObject
from slack_sdk.models.views import View

from bot.models import Paper, SearchPage, Subscription
from bot.render import blocks as bk
from bot.render import mrkdwn as md
from bot.render.views import help_lines

VIEW_BLOCKS_MAX = 100          # Slack: ≤ 100 blocks in a Home tab or modal
SEARCH_MODAL_ID = "search_modal"
SEARCH_INPUT_BLOCK = "search_query"
SEARCH_INPUT_ACTION = "query"
MODAL_RESULTS = 10


def home_view(today: Paper | None, day: date, channels: list[tuple[Subscription, datetime | None]]) -> dict:
    """The Home tab: today's paper, the viewer's subscribed channels, a search
    button and a short how-to.

    Args:
        today: the paper of the day (default zone) or None for an empty index.
        day: its date.
        channels: (subscription, next post or None) for channels the viewer is in.
    """
    blocks: list[dict] = [bk.header("paperbot"),
                          bk.actions(bk.button("Search papers", bk.ACTION_HOME_SEARCH, {"open": 1},
                                               style="primary"))]
    blocks.append(bk.section(f"*Paper of the day · {day.isoformat()}*"))
    if today is not None:
        blocks.append(bk.section(f"*{md.cut_escaped(today.title, 300)}*\n{md.cut_escaped(today.tldr, 600)}"))
        blocks.append(bk.context(bk.meta_line(today)))
        blocks.append(bk.actions(*bk.paper_buttons(today, share=False)))
    else:
        blocks.append(bk.section("The index has no papers yet."))
    blocks.append(bk.divider())
    blocks.append(bk.section("*Your channels with a paper of the day*"))
    if not channels:
        blocks.append(bk.context("None yet. In a channel, type `/paper subscribe 09:30 Europe/Berlin`."))
    for sub, nxt in channels[:40]:
        if sub.active:
            when = f" · next {nxt.strftime('%a %d %b, %H:%M %Z')}" if nxt else ""
            line = f"<#{md.escape(sub.channel_id)}> · {sub.local_time} {md.escape(sub.tz)}{when}"
        else:
            line = (f"<#{md.escape(sub.channel_id)}> · *off*: {md.escape(sub.inactive_reason or 'deactivated')}"
                    " — `/paper subscribe` there to turn it back on")
        blocks.append(bk.section(line))
    blocks.append(bk.divider())
    blocks.append(bk.section("*How to use paperbot*\n" + "\n".join(help_lines("/paper")[:6])))
    blocks.append(bk.context("Mention `@paperbot &lt;id | name | words&gt;` in a channel, or write to me here."))
    return View(type="home", blocks=[b for b in blocks if b][:VIEW_BLOCKS_MAX]).to_dict()


def search_modal(query: str = "", page: SearchPage | None = None, status: str | None = None,
                 error: str | None = None) -> dict:
    """The search modal: a text input, then (after submission) results or a status.

    Args:
        query: the query to pre-fill.
        page: results to show under the input, or None.
        status: a line such as "Searching…" (plain text), or None.
        error: a user-facing explanation of a bad query, or None.
    """
    element = PlainTextInputElement(action_id=SEARCH_INPUT_ACTION, initial_value=query or None,
                                    placeholder=PlainTextObject(text="e.g. sparse attention"),
                                    max_length=300)
    blocks: list[dict] = [InputBlock(block_id=SEARCH_INPUT_BLOCK, label=PlainTextObject(text="Search the papers"),
                                     element=element).to_dict()]
    if status:
        blocks.append(bk.context(md.escape(status)))
    if error:
        blocks.append(bk.section(f":warning: {md.escape(error)}"))
    if page is not None:
        shown = page.corrected_query or page.query
        if page.total:
            verb = "matches" if page.total == 1 else "match"
            blocks.append(bk.section(f"*{page.total} paper{'s' if page.total != 1 else ''}* {verb} "
                                     f"{md.quoted(shown)}"))
        else:
            blocks.append(bk.section(f"No paper matches {md.quoted(shown)}."))
        if page.corrected_query:
            blocks.append(bk.context(f"Showing results for *{md.escape(page.corrected_query)}*; "
                                     f"you typed {md.quoted(page.query)}."))
        for i, hit in enumerate(page.hits[:MODAL_RESULTS], start=1):
            blocks.append(bk.section(bk.hit_text(i, hit)))
    return View(type="modal", callback_id=SEARCH_MODAL_ID, title=PlainTextObject(text="Search papers"),
                submit=PlainTextObject(text="Search"), close=PlainTextObject(text="Close"),
                blocks=blocks[:VIEW_BLOCKS_MAX]).to_dict()
