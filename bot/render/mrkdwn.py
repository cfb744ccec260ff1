"""Pure text helpers for Slack mrkdwn: escaping, cutting, links, snippets.

Slack has exactly three control characters in mrkdwn — ``&``, ``<``, ``>`` —
and they are escaped as ``&amp;``, ``&lt;``, ``&gt;`` (docs/platform-facts.md,
"Slack text escaping and mentions"). Everything that comes from users or the
corpus goes through ``escape`` exactly once on the way out.
"""

from __future__ import annotations

import html
import re

from bot.core.pages import is_web_url

ELLIPSIS = "…"
_ENTITY = re.compile(r"&(amp|lt|gt);")


def escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` for mrkdwn (nothing else). ``str -> str``."""
    return html.escape(text or "", quote=False)


def quoted(text: str) -> str:
    """``text`` escaped inside curly double quotes, or single ones when it
    holds double quotes itself (a phrase search: ‘“exact phrase” test-time’)."""
    if any(q in text for q in '"“”'):
        return f"‘{escape(text)}’"
    return f"“{escape(text)}”"


def unescape(text: str) -> str:
    """Decode Slack's three entities once (``&lt;`` ``&gt;`` ``&amp;``).

    Slack entity-encodes incoming command and event text (docs/interfaces.md
    "/paper slash command"); other ``&…;`` sequences are left as typed.
    """
    return _ENTITY.sub(lambda m: {"amp": "&", "lt": "<", "gt": ">"}[m.group(1)], text or "")


def cut(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with ``…`` when cut.

    Cuts at a word boundary when one is in the last 20% of the allowed length.

    Args:
        text: the text to cut.
        limit: most characters, ``…`` included.
    """
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 1)]
    space = head.rfind(" ")
    if space > limit * 0.8:
        head = head[:space]
    return head.rstrip() + ELLIPSIS


def cut_escaped(text: str, limit: int) -> str:
    """Escape ``text`` and keep the result within ``limit`` characters.

    Cutting happens on the raw text first so no entity is split in half.

    Args:
        text: raw text (not escaped).
        limit: most characters of the escaped result.
    """
    out = escape(text)
    while len(out) > limit:
        text = cut(text, max(1, len(text) - (len(out) - limit) - 1))
        out = escape(text)
    return out


def is_safe_url(url: str | None) -> bool:
    """True for an http(s) URL without whitespace, ``<``, ``>`` or ``|`` (``bot.core.pages.is_web_url``)."""
    return is_web_url(url)


def link(url: str | None, label: str | None = None) -> str:
    """A mrkdwn link ``<url|label>`` for a safe http(s) URL, else the escaped label.

    URLs with whitespace, ``<``, ``>`` or ``|`` are never made live links.

    Args:
        url: the target; only http(s) URLs become links.
        label: the text shown (None: the URL without its scheme).
    """
    if not is_web_url(url):
        return escape(label or url or "")
    shown = escape(label or re.sub(r"^https?://", "", url))
    return f"<{url.replace('&', '&amp;')}|{shown}>"


#: What a ``<!date>`` token shows: "Tuesday, December 1st at 9:30 AM" in the reader's zone.
DATE_FORMAT = "{date_long_pretty} at {time}"
FALLBACK_FORMAT = "%a %d %b %Y, %H:%M %Z"


def date_token(when, fallback_format: str = FALLBACK_FORMAT) -> str:
    """``<!date^<unix>^{date_long_pretty} at {time}|<fallback>>``: Slack shows the
    aware datetime ``when`` in each reader's own time zone; clients that cannot
    show the token show the fallback (``when`` formatted in its own zone).

    Source: https://docs.slack.dev/messaging/formatting-message-text (dates).

    Args:
        when: an aware datetime.
        fallback_format: ``strftime`` format of the fallback text.
    """
    fallback = escape(when.strftime(fallback_format)).replace("|", "/")
    return f"<!date^{int(when.timestamp())}^{DATE_FORMAT}|{fallback}>"


def snippet(text: str) -> str:
    """Escape a search snippet whose matched words are wrapped in ``*…*``.

    The ``*`` markers are mrkdwn bold already, so only ``& < >`` change.
    """
    return escape(text).replace("\n", " ")


def plain(mrkdwn: str) -> str:
    """mrkdwn → readable plain text (console): links become ``label (url)``,
    entities are decoded, bold/italic markers kept as typed."""

    def repl(m: re.Match) -> str:
        url, _, label = m.group(1).partition("|")
        if url.startswith("!date^"):
            return label
        if url.startswith("@"):
            return url
        return f"{label} ({url})" if label and label != re.sub(r"^https?://", "", url) else (label or url)

    return unescape(re.sub(r"<([^<>]+)>", repl, mrkdwn))
