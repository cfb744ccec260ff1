"""Pure parsing of what users type: its length, sub-commands and subscribe arguments
(mention tokens are stripped by ``bot.slack.transport.incoming_text``, where Slack's formats live).

The one cut of what users type lives here: at most ``MAX_INPUT`` characters
are read. A pasted paragraph or abstract is a query, so input is long by
design; longer input is cut — at a space when one is near, so no word is
split — and the reply says so once (docs/interfaces.md "Rules every reply
obeys"; docs/search.md "Long text"). Every layer that limits user text uses
``cut_input``/``MAX_INPUT``: the command parser (``parse_command``), the
service's search (page buttons and the search modal bring text that did not
pass the parser), the search's prose reading and the store's kept queries.

Rules: docs/interfaces.md "/paper slash command" and "Mentions and direct messages".
No Slack, SQL or Whoosh types here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

#: Longest input read, in characters.
MAX_INPUT = 4000
#: How far back from ``MAX_INPUT`` a space is looked for to cut at (characters).
SPACE_WINDOW = 40


def cut_input(text: str) -> tuple[str, bool]:
    """``(text, was_cut)``: ``text`` cut to ``MAX_INPUT`` characters and stripped.

    The cut falls at the last space within ``SPACE_WINDOW`` characters of the
    limit when there is one (so no word is split), else exactly at the limit.
    Text of ``MAX_INPUT`` characters or fewer is returned unchanged, with
    ``was_cut`` False.
    """
    if len(text) <= MAX_INPUT:
        return text, False
    head = text[:MAX_INPUT]
    space = head.rfind(" ", MAX_INPUT - SPACE_WINDOW)
    return (head[:space] if space > 0 else head).strip(), True


#: Sub-commands that take an argument.
WITH_ARGUMENT = ("search", "show", "similar", "subscribe")
#: Sub-commands that count only when alone (`/paper random forests` is a search).
ALONE_ONLY = ("today", "random", "unsubscribe", "status", "help", "saved", "foryou", "forget")
#: ``(sub-command, argument)`` pairs that are commands, not searches (issue 13).
PAIRS = (("unsubscribe", "me"), ("forget", "everything"))
#: Every sub-command the parser knows (a typo of one is asked about: ``bot.service.verb_typos``).
VERBS = WITH_ARGUMENT + ALONE_ONLY

#: Words that, alone after a no-argument sub-command, mean the sub-command was
#: meant (``/paper status please``) rather than a search for them (issue 12 point 4).
FILLER_WORDS = frozenset({"please", "pls", "plz", "now", "thanks", "thank", "you", "thx", "again"})
#: Sub-command name of a ``Command`` that asks "Did you mean `/paper <arg>`?".
SUGGEST = "suggest"
_PUNCT = re.compile(r"^[\W_]+$")
_TRAILING_PUNCT = re.compile(r"[?!.,;:…]+$")

_TIME = re.compile(r"^([01]?\d|2[0-3])[:.h]([0-5]\d)$")
#: UTF-16 surrogate code points: never text on their own. Python puts them in a
#: ``str`` for bytes that are not UTF-8 (PEP 383 ``surrogateescape``: argv,
#: a C-locale stdin) or for a JSON ``"\ud800"`` escape; UTF-8 cannot encode them.
_SURROGATES = re.compile("[\ud800-\udfff]")
#: What never belongs in a reply that echoes the user: C0 controls but tab and
#: newline, DEL, C1 controls, and the bidi embeddings, overrides and isolates
#: (U+202A–U+202E, U+2066–U+2069) that reorder the text after them
#: (https://www.unicode.org/reports/tr9/#Explicit_Directional_Embeddings,
#: https://www.unicode.org/reports/tr36/#Bidirectional_Text_Spoofing).
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def well_formed(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD, so it can
    be encoded as UTF-8 (one U+FFFD per undecodable byte, as
    ``bytes.decode("utf-8", "replace")`` gives for a byte that starts no
    sequence). Other text is returned unchanged."""
    return _SURROGATES.sub("\ufffd", text)


def user_text(text: str) -> str:
    """What a user typed, safe to echo: ``well_formed``, and every ``_INVISIBLE``
    character removed — those that are whitespace (CR, VT, FF, the
    separators U+001C–U+001F, NEL) become a space, so words stay apart — and every
    other invisible format character (Unicode category Cf: zero-width space and
    (non-)joiners, word joiner, BOM, soft hyphen, direction marks …,
    https://www.unicode.org/reports/tr44/#General_Category_Values) removed, so
    "dif\u200bfusion" is the word "diffusion"."""
    text = _INVISIBLE.sub(lambda m: " " if m.group().isspace() else "", well_formed(text))
    if text.isascii():
        return text
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


@dataclass(frozen=True)
class Command:
    """A parsed ``/paper`` line.

    Attributes:
        name: one of WITH_ARGUMENT + ALONE_ONLY, "search" for free words, or
            ``SUGGEST`` when a no-argument sub-command came with only
            punctuation or ``FILLER_WORDS`` (then ``arg`` is that sub-command).
        arg: the rest of the text (stripped), "" when none.
        cut: True when the input was longer than ``bot.core.parsing.MAX_INPUT``
            and was cut (``cut_input``).
        free: True for a search of free words (no sub-command typed first): only
            then may the first word be a mistyped sub-command
            (``bot.service.verb_typos``).
    """

    name: str
    arg: str = ""
    cut: bool = False
    free: bool = False


def parse_command(text: str) -> Command:
    """Split ``/paper`` text (already entity-decoded) into a ``Command``.

    Empty text → ``help``. The first word picks the sub-command,
    case-insensitively; ``today``/``random``/``unsubscribe``/``status``/
    ``help``/``saved``/``forget`` only when alone (and ``unsubscribe me``,
    ``forget everything``); anything else
    is a search of the whole text.
    """
    text, cut = cut_input(" ".join((text or "").split()))
    if not text:
        return Command("help")
    first, _, rest = text.partition(" ")
    word = first.lower()
    if word in ALONE_ONLY and not rest:
        return Command(word, "", cut)
    if (word, rest.strip().lower()) == ("for", "you"):  # `/paper for you` is `/paper foryou`
        return Command("foryou", "", cut)
    if (word, rest.strip().lower()) in PAIRS:
        return Command(word, rest.strip().lower(), cut)
    bare = _TRAILING_PUNCT.sub("", word)
    if bare in ALONE_ONLY and only_filler(rest):
        return Command(SUGGEST, bare, cut)
    if word in WITH_ARGUMENT:
        return Command(word, rest.strip(), cut)
    return Command("search", text, cut, free=True)


def as_typed(prefix: str, words: str) -> str:
    """``words`` as the user would type them: after ``prefix``, or alone in a DM with the bot.

    Args:
        prefix: "/paper", "@paperbot", or "" in a DM.
        words: the sub-command and its arguments ("subscribe 09:30").
    """
    return f"{prefix} {words}".strip()


def only_filler(rest: str) -> bool:
    """True when ``rest`` holds nothing but punctuation and ``FILLER_WORDS`` ("" too)."""
    for token in rest.split():
        word = _TRAILING_PUNCT.sub("", token.lower())
        if word and word not in FILLER_WORDS and not _PUNCT.match(token):
            return False
    return True


#: Words of a hello and of a thank-you, and the words that may come with them ("hi there",
#: "thank you so much"): a message of only these has nothing to look up.
HELLO_WORDS = frozenset({"hi", "hello", "hey", "hiya", "heya", "howdy", "yo", "greetings", "morning", "evening"})
THANKS_WORDS = frozenset({"thanks", "thank", "thx", "ty", "cheers", "thankyou", "tnx"})
_WITH_GREETING = frozenset({"good", "afternoon", "you", "a", "lot", "so", "much", "very", "there", "all", "again"})
#: A Slack emoji code (``:wave:``).
_EMOJI = re.compile(r":[a-z0-9_+'-]+:")


def small_talk(text: str) -> str | None:
    """``"thanks"`` or ``"hello"`` when ``text`` is nothing but a greeting or a thank-you
    ("hi!", "Hello there :wave:", "thanks a lot") — words of ``HELLO_WORDS``/``THANKS_WORDS``,
    what may come with them, punctuation and emoji; else None ("hi, any papers on chess?")."""
    rest = _EMOJI.sub(" ", (text or "").lower())
    if any(ch.isdigit() for ch in rest):
        return None
    words = set(re.findall(r"[^\W\d_]+", rest))
    if not words or not words <= HELLO_WORDS | THANKS_WORDS | _WITH_GREETING:
        return None
    if words & THANKS_WORDS:
        return "thanks"
    return "hello" if words & HELLO_WORDS else None


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

    Args:
        arg: the text after ``subscribe``.
        default_time: "HH:MM" used when no time is given (may be None).

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
        raise SubscribeError(
            f"“{part}” is not a time zone I know. Use an IANA name such as Europe/Berlin or America/New_York."
        )
    return time_value or default_time, zone
