"""Pure parsing of what users type: sub-commands and subscribe arguments
(mention tokens are stripped by ``bot.slack.text``, where Slack's formats live).

Rules: docs/interfaces.md "/paper slash command" and "Mentions and direct messages".
No Slack, SQL or Whoosh types here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

MAX_INPUT = 300  # characters; longer input is cut with a note (docs/interfaces.md "Rules every reply obeys")

#: Sub-commands that take an argument.
WITH_ARGUMENT = ("search", "show", "similar", "subscribe")
#: Sub-commands that count only when alone (`/paper random forests` is a search).
ALONE_ONLY = ("today", "random", "unsubscribe", "status", "help")

_TIME = re.compile(r"^([01]?\d|2[0-3])[:.h]([0-5]\d)$")


@dataclass(frozen=True)
class Command:
    """A parsed ``/paper`` line.

    Attributes:
        name: one of WITH_ARGUMENT + ALONE_ONLY, or "search" for free words.
        arg: the rest of the text (stripped), "" when none.
        cut: True when the input was longer than ``MAX_INPUT`` and was cut.
    """

    name: str
    arg: str = ""
    cut: bool = False


def parse_command(text: str) -> Command:
    """Split ``/paper`` text (already entity-decoded) into a ``Command``.

    Empty text → ``help``. The first word picks the sub-command,
    case-insensitively; ``today``/``random``/``unsubscribe``/``status``/
    ``help`` only when alone; anything else is a search of the whole text.
    """
    text = " ".join((text or "").split())
    cut = len(text) > MAX_INPUT
    if cut:
        text = text[:MAX_INPUT]
    if not text:
        return Command("help")
    first, _, rest = text.partition(" ")
    word = first.lower()
    if word in ALONE_ONLY and not rest:
        return Command(word, "", cut)
    if word in WITH_ARGUMENT:
        return Command(word, rest.strip(), cut)
    return Command("search", text, cut)


class SubscribeError(ValueError):
    """Bad ``/paper subscribe`` arguments; ``str(e)`` is a user-facing sentence."""


def parse_time(text: str) -> str | None:
    """``"9:30"`` / ``"09:30"`` / ``"21:00"`` → ``"HH:MM"``; None when not a time."""
    m = _TIME.match(text.strip())
    return f"{int(m.group(1)):02d}:{m.group(2)}" if m else None


def canonical_zone(name: str) -> str | None:
    """Return the IANA name for ``name`` (case-insensitive), or None when unknown.

    ``UTC`` and ``GMT`` are accepted as written in any case.
    """
    if not name or "/" not in name and name.upper() not in ("UTC", "GMT"):
        return None
    zones = _zones()
    exact = zones.get(name.lower())
    if exact:
        try:
            ZoneInfo(exact)
            return exact
        except (ZoneInfoNotFoundError, ValueError):
            return None
    return None


_ZONES: dict[str, str] = {}


def _zones() -> dict[str, str]:
    if not _ZONES:
        _ZONES.update({z.lower(): z for z in available_timezones()})
    return _ZONES


def parse_subscribe(arg: str, default_time: str | None) -> tuple[str | None, str | None]:
    """Parse ``[HH:MM] [zone]`` in either order → ``(time or default_time, zone or None)``.

    Raises:
        SubscribeError: with a sentence showing the right form.
    """
    time_value, zone = None, None
    for part in arg.split():
        t = parse_time(part)
        if t:
            if time_value is not None:
                raise SubscribeError("Give one time only, e.g. 09:30 (and optionally one zone).")
            time_value = t
            continue
        z = canonical_zone(part)
        if z:
            if zone is not None:
                raise SubscribeError("Give one time zone only, e.g. Europe/Berlin.")
            zone = z
            continue
        if re.match(r"^\d", part):
            raise SubscribeError(f"“{part}” is not a time. Use 24-hour HH:MM, e.g. 09:30 or 21:00.")
        raise SubscribeError(f"“{part}” is not a time zone I know. Use an IANA name such as "
                             "Europe/Berlin or America/New_York.")
    return time_value or default_time, zone
