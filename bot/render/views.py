"""Help, status and App Home renderings (text-heavy views kept apart from results)."""

from __future__ import annotations

from bot.core.models import Examples
from bot.core.ports import Message
from bot.core.replies import StatusReply, WelcomeReply
from bot.render import blocks as bk
from bot.render import mrkdwn as md

#: An index with nothing to suggest (no paper).
NO_EXAMPLES = Examples()
#: ``(command, what it does)``; ``{p}`` is the prefix, ``{topic}``/``{paper}``/``{other}`` an
#: example from the loaded index (``help_lines``: the "e.g." goes when the index has none).
HELP_EXAMPLES = (
    ("search <words>", "search the papers, e.g. `{p} search {topic}`"),
    ("show <id|name>", "one paper in full, e.g. `{p} show {paper}`"),
    ("similar <id|name>", "papers like one, e.g. `{p} similar {other}`"),
    ("today", "today's paper of the day"),
    ("random", "a random paper"),
    ("foryou", "papers picked for you from what you save, share and like (👍, *More like this*)"),
    ("subscribe [HH:MM] [zone]", "a paper of the day in this channel, e.g. `{p} subscribe 09:30 Europe/Berlin`"),
    (
        "subscribe [weekdays|mon wed|weekly mon] [N papers] about <topic>",
        "a channel topic and schedule, e.g. `{p} subscribe weekly mon 10:00 3 papers about {topic}`",
    ),
    ("subscribe me [HH:MM] about <topic>", "your own feed in your DM with me"),
    ("subscribe for me [HH:MM]", "your feed posts a paper picked for you each day"),
    ("subscribe for this channel [about <topic>]", "papers picked from what this channel shares and 👍s"),
    ("unsubscribe [me]", "stop the daily paper in this channel (or your own feed)"),
    ("status", "this channel's subscription and its next post"),
    ("saved", "your reading list (*Save* on any paper card adds to it)"),
    ("forget [everything]", "delete what I learned from your saves, shares and 👍/👎 (and your reading list)"),
    ("help", "this message"),
)

#: The help in a DM with the bot: no prefix, and "here" is the user's own DM.
DM_HELP_EXAMPLES = (
    ("<words>", "search the papers, e.g. `{topic}` (or `search {topic}`)"),
    ("show <id|name>", "one paper in full, e.g. `show {paper}`"),
    ("similar <id|name>", "papers like one, e.g. `similar {other}`"),
    ("today", "today's paper of the day (your personal feed's, when you have one)"),
    ("random", "a random paper"),
    ("foryou", "papers picked for you from what you save, share and like (👍, *More like this*)"),
    (
        "subscribe me [HH:MM] [zone] [about <topic>]",
        "your personal paper of the day, posted here, e.g. `subscribe me 08:00 Europe/Berlin about {topic}`",
    ),
    ("subscribe for me [HH:MM]", "your personal feed posts a paper picked for you each day"),
    ("unsubscribe me", "stop your personal paper of the day"),
    ("status", "your personal feed and its next post"),
    ("saved", "your reading list (*Save* on any paper card adds to it)"),
    ("forget [everything]", "delete what I learned from your saves, shares and 👍/👎 (and your reading list)"),
    ("help", "this message"),
)

QUERY_TIPS = (
    "Search tips: `\"exact phrase\"`, `-word` or `NOT word` to exclude, "
    "`title:`, `name:`, `author:`, `venue:` fields, `spars*` for a prefix."
)


#: The commands the App Home's "How to use paperbot" lists (keys of ``HELP_EXAMPLES``).
HOME_HELP = frozenset(
    {
        "search <words>",
        "similar <id|name>",
        "foryou",
        "subscribe [HH:MM] [zone]",
        "subscribe for me [HH:MM]",
        "subscribe for this channel [about <topic>]",
        "saved",
        "forget [everything]",
    }
)


def help_lines(prefix: str, examples: Examples = NO_EXAMPLES, table: tuple = HELP_EXAMPLES) -> list[str]:
    """Usage lines (mrkdwn) for ``prefix`` ("/paper", "@paperbot", or "" in a DM).

    Args:
        prefix: how the commands start ("" : the command alone).
        examples: names and topics of the loaded index; an example whose value the index
            lacks (an empty index) is left out ("search the papers").
        table: ``(command, description)`` rows (``HELP_EXAMPLES``, ``DM_HELP_EXAMPLES``).
    """
    values = {
        "p": prefix,
        "topic": examples.topic(),
        "paper": examples.paper(),
        "other": examples.paper(second=True),
    }
    escaped = {k: md.escape(v) if k != "p" and v else v for k, v in values.items()}
    lines = []
    for cmd, desc in table:
        if any(values[key] is None and "{" + key + "}" in desc for key in values):
            desc = desc.split(", e.g.")[0]
        lines.append(f"`{md.escape(f'{prefix} {cmd}'.strip())}` — {desc.format(**escaped)}")
    return lines


def help_message(
    prefix: str = "/paper", note: str | None = None, visibility: str = "ephemeral", examples: Examples = NO_EXAMPLES
) -> Message:
    """The help reply: what paperbot does, each sub-command with an example.

    Args:
        prefix: "/paper" or "@paperbot": how the examples start; "" for a DM with the
            bot (``DM_HELP_EXAMPLES``: no prefix, the personal feed).
        note: a line above the help (plain text), or None.
        visibility: "ephemeral" or "in_channel".
        examples: names and topics of the loaded index (``help_lines``).
    """
    if prefix:
        intro = (
            f"*paperbot* searches this workspace's conference papers. "
            f"Anything after `{prefix}` that is not a command is a search."
        )
        body = "\n".join(help_lines(prefix, examples))
        elsewhere = "Mention `@paperbot &lt;id | name | words&gt;` in any channel to read a paper in a thread."
    else:
        intro = (
            "*paperbot* searches this workspace's conference papers. Write a few words here and I'll "
            "find papers, or a paper's name or id to read it. Anything that is not a command is a search."
        )
        body = "\n".join(help_lines("", examples, DM_HELP_EXAMPLES))
        elsewhere = (
            "In a channel: `/paper help`, `/paper subscribe for this channel` (papers picked from what it "
            "shares and 👍s), or mention `@paperbot &lt;id | name | words&gt;` to read a paper in a thread."
        )
    blocks = []
    if note:
        blocks.append(bk.section(md.escape(note)))
    blocks += [
        bk.section(intro),
        bk.section(body),
        bk.context(QUERY_TIPS),
        bk.context(elsewhere),
    ]
    text = "\n".join(([md.escape(note)] if note else []) + [intro, body])
    return Message(text=text, blocks=tuple(blocks), visibility=visibility)


#: Slack's error codes that turn a subscription off (bot.core.ports.CHANNEL_ERRORS), and the
#: events of the app leaving a workspace (bot.slack.oauth.uninstalls), as a person reads them.
INACTIVE_REASONS = {
    "not_in_channel": "I am not a member of this private channel",
    "channel_not_found": "Slack could not find this channel",
    "is_archived": "the channel was archived",
    "app_uninstalled": "paperbot was removed from this workspace",
    "tokens_revoked": "paperbot's access to this workspace was revoked",
}


def status_message(reply: StatusReply) -> Message:
    """This channel's subscription: time, zone and next post, or why it is off."""
    sub = reply.subscription
    if sub is None:
        text = (
            "This channel has no paper of the day. Start one with "
            "`/paper subscribe 09:30 Europe/Berlin` (time and zone optional)."
        )
    elif not sub.active:
        code = sub.inactive_reason or ""
        why = md.escape(INACTIVE_REASONS.get(code, code or "for a reason Slack did not give"))
        hint = " Invite me with `/invite @paperbot`, then" if "not_in_channel" in code else ""
        text = (
            f"The paper of the day for this channel is *off*: {why}.{hint} Run `/paper subscribe` to turn it back on."
        )
    else:
        text = (
            f"This channel gets {md.escape(reply.summary)}."
            if reply.summary
            else f"This channel gets the paper of the day at *{sub.local_time}* ({md.escape(sub.tz)})."
        )
        if sub.topic and reply.match_count == 0:
            text += (
                "\nIts topic matches no paper in the index now, so nothing is posted. "
                "Change it with `/paper subscribe about <words>`."
            )
        if reply.next_post is not None:
            text += f"\nNext post: {md.date_token(reply.next_post)}."
        if sub.subscribed_by and reply.visibility == "ephemeral":
            # a live mention only where it notifies no one but the asker
            text += f"\nSet up by <@{md.escape(sub.subscribed_by)}>."
    if reply.feed and reply.visibility == "ephemeral":
        text += f"\nYour personal feed: {md.escape(reply.feed)}."
    return Message(text=text, blocks=(bk.section(text),), visibility=reply.visibility)


def welcome_message(reply: WelcomeReply) -> Message:
    """A few lines on what paperbot does and how to subscribe: to one person in
    the Messages tab ("user"), or to a channel it was just added to ("channel")."""
    topic, named = reply.examples.topic(), reply.examples.paper()
    if reply.audience == "channel":
        find = f"`/paper search {md.escape(topic)}` finds papers" if topic else "`/paper search <words>` finds papers"
        read = (
            f"mention `@paperbot {md.escape(named)}` to read one in a thread"
            if named
            else ("mention `@paperbot <id | name>` to read one in a thread")
        )
        lines = [
            "Hi, I'm *paperbot*: I search this workspace's conference papers.",
            "• `/paper subscribe 09:30 Europe/Berlin` posts a paper of the day here "
            "(time and zone optional); `/paper status` shows it, `/paper unsubscribe` stops it.",
            f"• {find} (only you see the results); {read}.",
            "• `/paper help` lists everything.",
        ]
    else:
        words = f" (e.g. _{md.escape(topic)}_)" if topic else ""
        lines = [
            "Hi, I'm *paperbot*: I search this workspace's conference papers.",
            f"• Write a few words here{words} or an id, and I'll find the paper.",
            "• In a channel, `/paper subscribe 09:30 Europe/Berlin` posts a paper of the day there.",
            "• `/paper help` lists everything; the Home tab has today's paper and a search.",
        ]
    text = "\n".join(lines)
    return Message(text=text, blocks=(bk.section(text),), visibility=reply.visibility)
