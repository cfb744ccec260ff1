"""The ``/paper subscribe`` grammar and posting-day sets (pure; leaf module).

Grammar (docs/interfaces.md "Paper of the day")::

    subscribe [me] [weekdays | DAY… | weekly [DAY] | daily] [HH:MM] [ZONE] [N papers] [about QUERY]

The parts before ``about`` come in any order; everything after ``about`` is
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
    """

    me: bool = False
    days: tuple[int, ...] | None = None
    local_time: str | None = None
    zone: str | None = None
    papers: int | None = None
    topic: str | None = None

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
    topic = None
    if sep:
        topic = " ".join(tail.split())
        if topic.lower() in EVERYTHING:
            topic = ""
        if len(topic) > MAX_TOPIC:
            raise SubscribeError(f"A topic can be at most {MAX_TOPIC} characters long.")
    words = head.split()
    me = bool(words) and words[0].lower() == "me"
    if me:
        words = words[1:]
    days: list[int] | None = None
    time_value = zone = None
    papers = None
    i = 0
    while i < len(words):
        word, low = words[i], words[i].lower()
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        if low in ("weekdays", "workdays"):
            days = _add_days(days, WEEKDAYS)
        elif low in ("daily", "everyday"):
            days = _add_days(days, (0, 1, 2, 3, 4, 5, 6))
        elif low == "weekly":
            day = day_number(nxt) if nxt else None
            if day is not None:
                i += 1
            days = _add_days(days, (0 if day is None else day,))
        elif day_number(low) is not None:
            days = _add_days(days, (day_number(low),))
        elif low.isdigit() and nxt in ("paper", "papers"):
            if papers is not None:
                raise SubscribeError("Say how many papers once, e.g. 3 papers.")
            papers = int(low)
            if not 1 <= papers <= MAX_PAPERS:
                raise SubscribeError(f"A post can have 1 to {MAX_PAPERS} papers; “{word} papers” is not possible.")
            i += 1
        elif parse_time(word):
            if time_value is not None:
                raise SubscribeError("Give one time only, e.g. 09:30 (and optionally one zone).")
            time_value = parse_time(word)
        elif canonical_zone(word):
            if zone is not None:
                raise SubscribeError("Give one time zone only, e.g. Europe/Berlin.")
            zone = canonical_zone(word)
        elif low == "me":
            raise SubscribeError("Put “me” right after subscribe: /paper subscribe me 08:00.")
        elif re.match(r"^\d", word):
            raise SubscribeError(f"“{word}” is not a time. Use 24-hour HH:MM, e.g. 09:30 or 21:00.")
        else:
            raise SubscribeError(
                f"I don't understand “{word}”. Before `about`, give days "
                "(weekdays, mon wed fri, weekly mon), a time, an IANA zone such "
                "as Europe/Berlin, or “N papers”; the topic goes after `about`."
            )
        i += 1
    full = days is not None and len(set(days)) == 7
    return SubscribeSpec(
        me=me,
        days=(EVERY_DAY if full else tuple(sorted(set(days)))) if days is not None else None,
        local_time=time_value,
        zone=zone,
        papers=papers,
        topic=topic,
    )


def _add_days(days: list[int] | None, more) -> list[int]:
    return (days or []) + list(more)


def _split_about(text: str) -> tuple[str, bool, str]:
    """Split at the first word ``about`` → (head, found, tail)."""
    m = re.search(r"(?:^|\s)about(?:\s|$)", text, re.IGNORECASE)
    if not m:
        return text, False, ""
    return text[: m.start()], True, text[m.end() :]
