"""App Home tab and the search modal (issue 5 item 4), as Block Kit view dicts.

Views allow up to 100 blocks (docs/platform-facts.md); modal titles are ≤ 24
characters of plain text. Built with ``slack_sdk.models.views.View``, whose
``to_dict()`` validates the limits.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Sequence

from slack_sdk.models.blocks import InputBlock, PlainTextInputElement, PlainTextObject
from slack_sdk.models.views import View

from bot.core.models import Examples, Paper, SearchPage, Subscription
from bot.core.replies import ForYouReply, ReadingListReply, ResultsReply
from bot.daily.schedule_words import describe
from bot.render import blocks as bk
from bot.render import mrkdwn as md
from bot.render.echo import echo, length_note, query_value
from bot.render.foryou import foryou_blocks
from bot.render.reading_list import reading_list_blocks
from bot.render.views import HELP_EXAMPLES, HOME_HELP, NO_EXAMPLES, help_lines

VIEW_BLOCKS_MAX = 100  # Slack: ≤ 100 blocks in a Home tab or modal
SEARCH_MODAL_ID = "search_modal"
SEARCH_INPUT_BLOCK = "search_query"
SEARCH_INPUT_ACTION = "query"
MODAL_RESULTS = 10
#: Longest text the modal's input takes: Slack's ``max_length`` limit for a
#: ``plain_text_input`` (docs/slack-rules.md [plain-text-input]).
MODAL_INPUT_MAX = 3000


def home_view(
    today: Paper | None,
    day: date,
    channels: Sequence[tuple[Subscription, datetime | None]],
    reading_list: ReadingListReply | None = None,
    picks: ForYouReply | None = None,
    examples: Examples = NO_EXAMPLES,
) -> dict:
    """The Home tab: today's paper, the papers picked for the viewer ("For you", each with
    why, issue 22), the viewer's subscribed channels (and
    personal feed) each with its schedule in words (days, papers per post, topic, time:
    ``bot.daily.schedule_words.describe``), a page of their reading list, a search
    button — the tab's one primary button — and a short how-to.

    Args:
        today: the paper of the day (default zone) or None for an empty index.
        day: its date.
        channels: (subscription, next post or None) for channels the viewer is in
            (``bot.service.home.HomeChannel`` pairs).
        reading_list: a page of the viewer's reading list (shown under the
            heading "Saved papers"), or None.
        picks: the viewer's picks (``bot.service.recommendations.Recommendations.home``), or None.
        examples: papers and topics of the loaded index for the how-to (``views.help_lines``).
    """
    blocks: list[dict] = [
        bk.header("paperbot"),
        bk.actions(
            bk.button(
                "Search papers",
                bk.ACTION_HOME_SEARCH,
                {"open": 1},
                style="primary",
                accessible="Search the papers in a window",
            )
        ),
    ]
    blocks.append(bk.section(f"*Paper of the day · {day.isoformat()}*"))
    if today is not None:
        blocks.append(bk.section(f"*{bk.paper_title(today, 300)}*\n{md.cut_escaped(today.tldr, 600)}"))
        blocks.append(bk.context(bk.meta_line(today), bk.title_note(today)))
        blocks.append(bk.actions(*bk.paper_buttons(today, share=False), bk.share_to_button(today)))
    else:
        blocks.append(bk.section("The index has no papers yet."))
    if picks is not None:
        blocks.append(bk.divider())
        blocks.append(bk.section("*For you*"))
        blocks += foryou_blocks(picks, home=True)
        blocks.append(bk.context("`/paper foryou` for more · *More like this* and *Not for me* teach me."))
    blocks.append(bk.divider())
    blocks.append(bk.section("*Your subscriptions*"))  # channels and your feed, daily or weekly
    if not channels:
        blocks.append(bk.context("None yet. In a channel, type `/paper subscribe 09:30 Europe/Berlin`."))
    for sub, nxt in channels[:40]:
        where = "Your personal feed (here, in Messages)" if sub.personal else f"<#{md.escape(sub.channel_id)}>"
        if sub.active:
            when = f" · next {md.date_token(nxt, '%a %d %b, %H:%M %Z')}" if nxt else ""
            line = f"{where} · {md.escape(describe(sub))}{when}"
        else:
            line = (
                f"{where} · *off*: {md.escape(sub.inactive_reason or 'deactivated')}"
                " — `/paper subscribe` there to turn it back on"
            )
        blocks.append(bk.section(line))
    if reading_list is not None:
        blocks.append(bk.divider())
        blocks.append(bk.section("*Saved papers*"))
        blocks += reading_list_blocks(reading_list, primary=False)  # *Search papers* is the one primary
    blocks.append(bk.divider())
    usage = [line for (cmd, _), line in zip(HELP_EXAMPLES, help_lines("/paper", examples)) if cmd in HOME_HELP]
    blocks.append(bk.section("*How to use paperbot*\n" + "\n".join(usage)))
    blocks.append(bk.context("Mention `@paperbot &lt;id | name | words&gt;` in a channel, or write to me here."))
    return View(type="home", blocks=[b for b in blocks if b][:VIEW_BLOCKS_MAX]).to_dict()


def _modal_hits(page: SearchPage, typed_finds: bool, keys: tuple[tuple[str, str], ...]) -> list[dict]:
    """Result rows with their buttons, the "Showing a–b of n" line and the page buttons."""
    blocks: list[dict] = []
    first = page.offset + 1
    for i, hit in enumerate(page.hits[:MODAL_RESULTS], start=first):
        blocks.append(bk.section(bk.hit_text(i, hit)))
        blocks.append(bk.actions(*bk.paper_buttons(hit.paper, share=False), bk.share_to_button(hit.paper)))
    if page.total:
        last = page.offset + len(page.hits[:MODAL_RESULTS])
        blocks.append(bk.context(f"Showing {first}–{last} of {page.total}"))
    shown = page.corrected_query or page.query
    base, typed = query_value(shown, keys), query_value(page.query, keys)  # None: too long to carry
    if base is not None and page.suggestion and not page.corrected_query:
        base["exact"] = 1
    nav = []
    if page.corrected_query and typed_finds and typed:
        nav.append(
            bk.button(
                f"Search “{md.cut(page.query, 40)}” instead",
                bk.ACTION_MODAL_PAGE_INSTEAD,
                {**typed, "o": 0, "exact": 1},
                accessible=f"Search for “{md.cut(page.query, 40)}” as typed",
            )
        )
    if page.has_previous and base is not None:
        nav.append(
            bk.button(
                "‹ Previous",
                bk.ACTION_MODAL_PAGE_PREVIOUS,
                {**base, "o": max(0, page.offset - page.limit)},
                accessible=f"Previous page of results for “{md.cut(shown, 30)}”",
            )
        )
    if page.has_next and base is not None:
        nav.append(
            bk.button(
                "Next ›",
                bk.ACTION_MODAL_PAGE,
                {**base, "o": page.offset + page.limit},
                accessible=f"Next page of results for “{md.cut(shown, 30)}”",
            )
        )
    if nav:
        blocks.append(bk.actions(*nav))
    return [b for b in blocks if b]


def search_modal(
    query: str = "",
    page: SearchPage | None = None,
    status: str | None = None,
    error: str | None = None,
    typed_finds: bool = True,
    keys: tuple[tuple[str, str], ...] = (),
) -> dict:
    """The search modal: a text input, then (after submission) results or a status.

    Results act like channel results (issue 12 point 4): each has *Details*,
    *Similar* and *Share to…*; "Showing 1–10 of 34" and *‹ Previous* / *Next ›*
    (``MODAL_PAGE_ACTIONS``, answered with ``views.update`` of this view).

    Args:
        query: the query to pre-fill.
        page: results to show under the input, or None.
        status: a line such as "Searching…" (plain text), or None.
        error: a user-facing explanation of a bad query, or None.
        typed_finds: for a corrected page, whether the query as typed finds
            papers (only then is *Search "…" instead* offered).
        keys: ``ResultsReply.query_keys``: the page buttons of a long query
            carry its key (``bot.render.echo.query_value``).
    """
    element = PlainTextInputElement(
        action_id=SEARCH_INPUT_ACTION,
        initial_value=query or None,
        placeholder=PlainTextObject(text="e.g. sparse attention"),
        max_length=MODAL_INPUT_MAX,
    )
    blocks: list[dict] = [
        InputBlock(
            block_id=SEARCH_INPUT_BLOCK, label=PlainTextObject(text="Search the papers"), element=element
        ).to_dict()
    ]
    if status:
        blocks.append(bk.context(md.escape(status)))
    if error:
        blocks.append(bk.section(f":warning: {md.escape(error)}"))
    if page is not None:
        shown = page.corrected_query or page.query
        if page.total:
            verb = "matches" if page.total == 1 else "match"
            blocks.append(
                bk.section(f"*{page.total} paper{'s' if page.total != 1 else ''}* {verb} {md.quoted(echo(shown))}")
            )
        else:
            blocks.append(bk.section(f"No paper matches {md.quoted(echo(shown))}."))
        if page.corrected_query:
            blocks.append(
                bk.context(
                    f"Showing results for *{md.escape(echo(page.corrected_query))}*; "
                    f"you typed {md.quoted(echo(page.query))}."
                )
            )
        note = length_note(ResultsReply(page=page))  # a long query: said once
        if note:
            blocks.append(bk.context(md.escape(note)))
        blocks += _modal_hits(page, typed_finds, keys)
    return View(
        type="modal",
        callback_id=SEARCH_MODAL_ID,
        title=PlainTextObject(text="Search papers"),
        submit=PlainTextObject(text="Search"),
        close=PlainTextObject(text="Close"),
        blocks=blocks[:VIEW_BLOCKS_MAX],
    ).to_dict()
