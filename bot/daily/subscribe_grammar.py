"""The ``/paper subscribe`` grammar and posting-day sets (pure; leaf module).

Grammar (docs/interfaces.md "Paper of the day")::

    subscribe [me] [weekdays | DAY… | weekly [DAY] | daily] [HH:MM] [ZONE] [N papers]
              [for me | for this channel | for everyone] [about QUERY]

The parts before ``about`` come in any order; ``for me`` (which implies ``me``: the
personal feed) and ``for this channel`` post the best unseen paper learned from the
reader's signals instead of the rotation (issue 22); ``for everyone`` goes back to the
rotation; everything after ``about`` is
the topic, as typed (``about`` alone or ``about everything`` clears it). A
part left out keeps the current value (``SubscribeSpec`` fields are None).
``DAY`` is ``mon``…``sun`` or the full English name; bare ``weekly`` is
Monday. Days are stored as a sorted tuple of ISO-less Python weekday numbers
(Monday 0 … Sunday 6); the empty tuple means every day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.parsing import SubscribeError, canonical_zone, parse_time

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS = (0, 1, 2, 3, 4)
EVERY_DAY: tuple[int, ...] = ()
MAX_PAPERS = 5
#: Topic words that mean "the whole corpus again".
EVERYTHING = ("everything", "all", "anything")
MAX_TOPIC = 200
EXAMPLE = "/paper subscribe weekdays 09:30 Europe/Berlin about reinforcement learning"


@dataclass(frozen=True)
class SubscribeSpec:
    """What a ``/paper subscribe`` line asked for; None = keep the current value.

    Attributes:
        me: ``subscribe me``: the user's personal feed (their DM), not the channel.
        days: posting weekdays (0 = Monday), ``()`` = every day, None = unchanged.
        local_time: "HH:MM" or None.
        zone: canonical IANA zone or None.
        papers: 1..5 papers per post, or None.
        topic: the topic query as typed ("" = whole corpus), None = unchanged.
        recommend: True for ``for me`` / ``for this channel``, False for ``for everyone``,
            None = unchanged.
    """

    me: bool = False
    days: tuple[int, ...] | None = None
    local_time: str | None = None
    zone: str | None = None
    papers: int | None = None
    topic: str | None = None
    recommend: bool | None = None

    @property
    def only_topic(self) -> bool:
        """True when the line changed the topic and nothing else."""
        return self.topic is not None and (self.days, self.local_time, self.zone, self.papers) == (
            None,
            None,
            None,
            None,
        )


def day_number(word: str) -> int | None:
    """``"mon"``/``"Monday"`` → 0 … ``"sun"`` → 6; None when not a day name."""
    w = word.lower().rstrip(",")
    if w in DAY_NAMES:
        return DAY_NAMES.index(w)
    if w in _FULL:
        return _FULL.index(w)
    if w.endswith("s") and w[:-1] in _FULL:  # "mondays"
        return _FULL.index(w[:-1])
    return None


def parse_days(text: str | None) -> tuple[int, ...]:
    """A stored day set (``"mon,wed,fri"``; None or "" = every day) → weekday numbers."""
    if not text:
        return EVERY_DAY
    return tuple(sorted({DAY_NAMES.index(d) for d in text.split(",") if d in DAY_NAMES}))


def format_days(days: tuple[int, ...]) -> str | None:
    """Weekday numbers → the stored form ``"mon,wed,fri"``; every day → None."""
    return ",".join(DAY_NAMES[d] for d in sorted(set(days))) or None


def describe_days(days: tuple[int, ...]) -> str:
    """Human words: "every day", "weekdays (Mon–Fri)", "Mondays", "Mon, Wed, Fri"."""
    days = tuple(sorted(set(days)))
    if not days or len(days) == 7:
        return "every day"
    if days == WEEKDAYS:
        return "weekdays (Mon–Fri)"
    if len(days) == 1:
        return _FULL[days[0]].capitalize() + "s"
    return ", ".join(DAY_NAMES[d].capitalize() for d in days)


def parse_spec(arg: str) -> SubscribeSpec:
    """Parse the text after ``subscribe`` into a ``SubscribeSpec``.

    Raises:
        SubscribeError: a part is not understood or given twice; ``str(e)``
            is one sentence for the user (show ``EXAMPLE`` with it).
    """
    head, sep, tail = _split_about(arg or "")
    topic = _topic(tail) if sep else None
    words = head.split()
    me = bool(words) and words[0].lower() == "me"
    parts = _Parts()
    i = 1 if me else 0
    while i < len(words):
        i += parts.read(words[i], " ".join(words[i + 1 : i + 3]).lower())
    if parts.audience == "channel" and me:
        raise SubscribeError(
            "“for this channel” is for a channel's post; your personal feed learns from you: /paper subscribe for me."
        )
    return SubscribeSpec(
        me=me or parts.audience == "me",
        days=parts.day_set(),
        local_time=parts.local_time,
        zone=parts.zone,
        papers=parts.papers,
        topic=topic,
        recommend=None if parts.audience is None else parts.audience != "everyone",
    )


#: ``for …`` → whose signals a subscription learns from ("everyone": none, the rotation).
AUDIENCES = {
    "me": "me",
    "this channel": "channel",
    "the channel": "channel",
    "channel": "channel",
    "everyone": "everyone",
    "everybody": "everyone",
    "all": "everyone",
}


def _audience_of(rest: str) -> tuple[str | None, int]:
    """``(audience, words used after "for")`` when ``rest`` (the next two words, lower-cased)
    starts with an ``AUDIENCES`` key, else ``(None, 0)``."""
    words = rest.split()
    for size in (2, 1):
        key = " ".join(words[:size])
        if len(words) >= size and key in AUDIENCES:
            return AUDIENCES[key], size
    return None, 0


def _topic(tail: str) -> str:
    """The topic after ``about``, whitespace collapsed ("" for ``EVERYTHING``: the whole corpus).

    Raises:
        SubscribeError: longer than ``MAX_TOPIC`` characters.
    """
    topic = " ".join(tail.split())
    if topic.lower() in EVERYTHING:
        topic = ""
    if len(topic) > MAX_TOPIC:
        raise SubscribeError(f"A topic can be at most {MAX_TOPIC} characters long.")
    return topic


def _days_of(low: str, nxt: str) -> tuple[tuple[int, ...] | None, int]:
    """``(weekdays, words used)`` when ``low`` (lower-cased, ``nxt`` the next word) names
    days — ``weekdays``, ``daily``, ``weekly [DAY]``, a day name — else ``(None, 1)``."""
    if low in ("weekdays", "workdays"):
        return WEEKDAYS, 1
    if low in ("daily", "everyday"):
        return (0, 1, 2, 3, 4, 5, 6), 1
    if low == "weekly":
        day = day_number(nxt) if nxt else None
        return ((0,), 1) if day is None else ((day,), 2)
    day = day_number(low)
    return (None, 1) if day is None else ((day,), 1)


def _not_understood(word: str) -> SubscribeError:
    """The error for a word before ``about`` that is no part of the grammar."""
    if word.lower() == "me":
        return SubscribeError("Put “me” right after subscribe: /paper subscribe me 08:00.")
    if re.match(r"^\d", word):
        return SubscribeError(f"“{word}” is not a time. Use 24-hour HH:MM, e.g. 09:30 or 21:00.")
    return SubscribeError(
        f"I don't understand “{word}”. Before `about`, give days "
        "(weekdays, mon wed fri, weekly mon), a time, an IANA zone such "
        "as Europe/Berlin, or “N papers”; the topic goes after `about`."
    )


class _Parts:
    """The parts before ``about`` read so far (None: not given)."""

    def __init__(self) -> None:
        self.days: list[int] | None = None
        self.local_time: str | None = None
        self.zone: str | None = None
        self.papers: int | None = None
        self.audience: str | None = None

    def read(self, word: str, nxt: str) -> int:
        """Read ``word`` (``nxt``: the next two words, lower-cased, "" at the end); how many
        words it used.

        Raises:
            SubscribeError: ``word`` is not understood, or its part was given before.
        """
        low = word.lower()
        if low == "for":
            return self._audience(nxt)
        days, used = _days_of(low, nxt.split()[0] if nxt else "")
        if days is not None:
            self.days = (self.days or []) + list(days)
            return used
        if low.isdigit() and nxt.split()[:1] in (["paper"], ["papers"]):
            if self.papers is not None:
                raise SubscribeError("Say how many papers once, e.g. 3 papers.")
            self.papers = int(low)
            if not 1 <= self.papers <= MAX_PAPERS:
                raise SubscribeError(f"A post can have 1 to {MAX_PAPERS} papers; “{word} papers” is not possible.")
            return 2
        if parse_time(word):
            if self.local_time is not None:
                raise SubscribeError("Give one time only, e.g. 09:30 (and optionally one zone).")
            self.local_time = parse_time(word)
            return 1
        if canonical_zone(word):
            if self.zone is not None:
                raise SubscribeError("Give one time zone only, e.g. Europe/Berlin.")
            self.zone = canonical_zone(word)
            return 1
        raise _not_understood(word)

    def _audience(self, nxt: str) -> int:
        """Read ``for me`` / ``for this channel`` / ``for everyone``; words used (with "for").

        Raises:
            SubscribeError: another word follows "for", or an audience was given before.
        """
        audience, used = _audience_of(nxt)
        if audience is None:
            raise SubscribeError(
                "After “for”, say “for me” (your personal feed, learned from what you save), "
                "“for this channel” (learned from this channel) or “for everyone” (the usual paper of the day)."
            )
        if self.audience is not None:
            raise SubscribeError("Say once whom the post is for: for me, for this channel or for everyone.")
        self.audience = audience
        return used + 1

    def day_set(self) -> tuple[int, ...] | None:
        """The posting days: sorted weekdays, ``EVERY_DAY`` for all seven, None when none was given."""
        if self.days is None:
            return None
        return EVERY_DAY if len(set(self.days)) == 7 else tuple(sorted(set(self.days)))


def _split_about(text: str) -> tuple[str, bool, str]:
    """Split at the first word ``about`` → (head, found, tail)."""
    m = re.search(r"(?:^|\s)about(?:\s|$)", text, re.IGNORECASE)
    if not m:
        return text, False, ""
    return text[: m.start()], True, text[m.end() :]
