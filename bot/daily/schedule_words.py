"""A subscription in words: its schedule (``describe``) and the title of its posts
(``post_title``), so ``/paper status``, the App Home, the digest post and ``/paper today``
name the same thing the same way (docs/interfaces.md "Paper of the day"; issue 19 point 7).

Pure; leaf module.
"""

from __future__ import annotations

from datetime import date

from bot.core.models import Subscription
from bot.daily.subscribe_grammar import DAY_NAMES, describe_days

#: Most characters of a topic repeated in a post's title.
TOPIC_IN_TITLE = 60


#: Quote marks a topic may be typed with (a phrase: ``"gaussian splatting"``).
QUOTES = '"“”'


def quoted_topic(topic: str, limit: int | None = None) -> str:
    """``topic`` in one pair of curly quotes, as every reply shows a topic: a topic that
    is one quoted phrase loses its own pair (``"gaussian splatting"`` → “gaussian
    splatting”, never “"gaussian splatting"”); one with quotes inside it goes in single
    ones (‘"3d gaussian" splatting’); plain text, not escaped.

    Args:
        topic: the topic as typed.
        limit: most characters of the topic shown (cut with "…"), or None.
    """
    text = topic.strip()
    inner = text[1:-1]
    if len(text) > 2 and text[0] in QUOTES and text[-1] in QUOTES and not any(q in inner for q in QUOTES):
        text = inner.strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return f"‘{text}’" if any(q in text for q in QUOTES) else f"“{text}”"


def describe(sub: Subscription, count: int | None = None, with_time: bool = True) -> str:
    """One line: "3 papers about “diffusion” (12 matching papers) on Mondays at 10:00
    (Europe/London)"; ``with_time=False`` leaves out " at HH:MM (zone)".

    Args:
        sub: the subscription.
        count: how many papers match its topic now (None: unknown, not said).
        with_time: False leaves out " at HH:MM (zone)".
    """
    what = "a paper of the day" if sub.papers <= 1 else f"{sub.papers} papers"
    if sub.recommend:  # issue 22: learned from the reader's signals
        what += " picked for you" if sub.personal else " picked for this channel"
    if sub.topic:
        what += f" about {quoted_topic(sub.topic)}"
        if count is not None:
            what += (
                f" ({count} matching paper{'s' if count != 1 else ''})"
                if count
                else " (no paper matches it now, so nothing is posted)"
            )
    days = describe_days(sub.days)
    when = f" at {sub.local_time} ({sub.tz})" if with_time else ""
    return f"{what} {'every day' if days == 'every day' else 'on ' + days}{when}"


def post_title(
    days: tuple[int, ...], count: int, day: date, topic: str | None = None, picked: str | None = None
) -> str:
    """What a post is, in plain text (not escaped), with its date.

    ================================  ==================================================
    subscription                      title
    ================================  ==================================================
    every day, one paper              ``Paper of the day · 2026-12-01``
    every day, 3 papers               ``3 papers of the day · 2026-12-01``
    weekdays / some days, one paper   ``Paper of the day · Wed 2026-12-02``
    one day a week (``weekly``)       ``Paper of the week · Mon 2026-12-07``
    with a topic                      ``3 papers of the week about “diffusion” · Mon 2026-12-07``
    picked for a reader (issue 22)    ``Paper of the day picked for you · 2026-12-01``
    ================================  ==================================================

    Args:
        days: posting weekdays (Monday 0 … Sunday 6); ``()`` = every day.
        count: papers in this post (1–5).
        day: the post's local date.
        topic: the subscription's topic, or None (cut to ``TOPIC_IN_TITLE`` characters).
        picked: whom the papers were picked for ("you", "this channel"), or None (the rotation).
    """
    days = tuple(sorted(set(days)))
    every_day = not days or len(days) == 7
    period = "week" if len(days) == 1 else "day"
    what = f"Paper of the {period}" if count <= 1 else f"{count} papers of the {period}"
    if picked:
        what += f" picked for {picked}"
    if topic:
        what += f" about {quoted_topic(topic, TOPIC_IN_TITLE)}"
    when = day.isoformat() if every_day else f"{DAY_NAMES[day.weekday()].capitalize()} {day.isoformat()}"
    return f"{what} · {when}"
