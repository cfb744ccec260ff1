"""The welcome (onboarding), said once: a hello per user (the app's Messages
tab) and per channel (the bot added to it), issue 12 point 5.

Each hello is remembered with ``Store.mark_once("onboard", key)`` before it is
posted, so two processes (or two events) say it once; a hello whose post
failed is forgotten, so it is tried again next time. No Slack types here
(docs/architecture.md "Layers"); the Slack side is ``bot.slack.welcome``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from bot.core.models import Context
from bot.core.replies import EPHEMERAL, NoticeReply
from bot.core.store_port import OnceMarks

#: The kind of mark a hello is remembered under (table ``marks``; stored, so it keeps its first name).
KIND = "onboard"


class Welcomes:
    """The welcome said once: per user (the Messages tab) and per channel (the bot added).

    Args:
        store: the store's once-only marks (``mark_once``, ``unmark``).
        now: the clock (aware UTC datetimes).
    """

    def __init__(self, store: OnceMarks, now: Callable[[], datetime]) -> None:
        self._store = store
        self._now = now

    @staticmethod
    def key(ctx: Context, audience: str) -> str:
        """``user:<team>:<user>`` or ``channel:<team>:<channel>``.

        Args:
            ctx: the user (``user_id``) or the channel (``channel_id``) and its team.
            audience: "user" or "channel".
        """
        who = ctx.channel_id if audience == "channel" else ctx.user_id
        return f"{audience}:{ctx.team_id}:{who}"[:255]

    def first(self, ctx: Context, audience: str) -> bool:
        """True the first time for this user / channel (recorded now), False ever after.

        Args:
            ctx: the user or channel and its team.
            audience: "user" (the Messages tab) or "channel" (the bot was added).
        """
        return self._store.mark_once(KIND, self.key(ctx, audience), now=self._now())

    def forget(self, ctx: Context, audience: str) -> None:
        """Forget the hello (its post failed), so it is tried again next time.

        Args:
            ctx: the user or channel and its team.
            audience: "user" or "channel".
        """
        self._store.unmark(KIND, self.key(ctx, audience))


#: Answers to a hello or a thank-you (``bot.core.parsing.small_talk``), in a DM and in a channel;
#: ``{example}`` is a topic of the loaded index, or nothing (``greeting``).
GREETINGS = {
    ("hello", True): "Hi! Write a few words and I'll find papers{example}, "
    "or a paper's name or id to read it. `help` lists everything I can do.",
    ("thanks", True): "You're welcome! Write a few words whenever you want a paper; `help` lists everything I can do.",
    ("hello", False): "Hi! Mention me with a few words{example} or a paper's name "
    "to read it here; `/paper help` lists everything I can do.",
    ("thanks", False): "You're welcome! `/paper help` lists everything I can do.",
}


def greeting(kind: str, direct: bool, topic: str | None = None) -> NoticeReply:
    """The short answer to small talk, to the asker only, saying how to start.

    Args:
        kind: "hello" or "thanks" (``bot.core.parsing.small_talk``).
        direct: True in a DM with the bot (no ``@paperbot``, no ``/paper``).
        topic: a topic of the loaded index to suggest (``ServiceIndex.examples``), or None.
    """
    example = "" if not topic else f" (e.g. `{topic}`)" if direct else f" (`@paperbot {topic}`)"
    return NoticeReply(text=GREETINGS[(kind, direct)].format(example=example), visibility=EPHEMERAL)
