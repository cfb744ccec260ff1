"""Pure text helpers for what Slack sends us: entity decoding and token stripping.

Slack encodes exactly three characters in message and command text
(``&`` → ``&amp;``, ``<`` → ``&lt;``, ``>`` → ``&gt;``) and writes mentions,
channels, links and specials as ``<…>`` control sequences
(docs/platform-facts.md "Slack text escaping and mentions"; docs.slack.dev
"Formatting message text"). Incoming text is therefore decoded exactly once
here, and the service never sees a live control sequence from a mention.

Control characters, bidi overrides and surrogates are taken out of what
users send here too (``bot.core.parsing.user_text``), so no reply echoes them.

No third-party imports: the console and tests may use these freely.
"""

from __future__ import annotations

import re

from bot.core.parsing import user_text

_ENTITY = re.compile(r"&(amp|lt|gt);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">"}

#: ``<@U…>`` / ``<@W…|name>`` user, ``<#C…>`` / ``<#C…|name>`` channel,
#: ``<!here>`` / ``<!subteam^S…|@team>`` / ``<!date^…|…>`` specials, and
#: ``<https://…|label>`` / ``<mailto:…>`` links. User-typed ``<`` and ``>``
#: arrive as ``&lt;`` / ``&gt;``, so a literal ``<…>`` is always a token.
_TOKEN = re.compile(r"<[^<>\n]*>")
#: A link token: ``<https://…>`` or ``<https://…|label>`` (also ``mailto:``).
_LINK = re.compile(r"<((?:https?|mailto):[^<>|\n]*)(?:\|([^<>\n]*))?>")
_SPACES = re.compile(r"\s+")


def decode_entities(text: str) -> str:
    """Decode Slack's three entities once, in one pass.

    Args:
        text: text as Slack sends it (``&lt;!channel&gt;``).

    Returns:
        str: the text as the user typed it (``<!channel>``). ``&amp;lt;``
        becomes ``&lt;`` (one level only), never ``<``.
    """
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text)


def strip_tokens(text: str) -> str:
    """Remove every ``<…>`` control sequence from still-encoded Slack text.

    Removes user mentions (``<@U123>``, ``<@W123|ann>``), channel links
    (``<#C123|general>``), specials (``<!channel>``, ``<!subteam^S1|@t>``)
    and links (``<https://x|label>``), wherever they are in the message.
    Must run *before* ``decode_entities``: afterwards a user-typed ``<x>``
    would be indistinguishable from a token.

    Args:
        text: raw event text, e.g. ``"hey <@UBOT> KIStego <https://x|x>"``.

    Returns:
        str: the text without tokens, whitespace collapsed, stripped
        (``"hey KIStego"``). Still entity-encoded.
    """
    return _SPACES.sub(" ", _TOKEN.sub(" ", text)).strip()


def mention_text(raw: str) -> str:
    """What a mention asks: tokens stripped, entities decoded once, controls
    and bidi overrides removed (``bot.core.parsing.user_text``).

    Args:
        raw: the ``text`` of an ``app_mention`` event (or a DM), e.g.
            ``"<@UBOT> show p7k2 &amp; more"``.

    Returns:
        str: e.g. ``"show p7k2 & more"``. A web link stays as its URL, and
        its label too when the user wrote one (``<https://x/KIStego|KIStego>``
        → ``"https://x/KIStego KIStego"``), so a paper's link in a sentence
        still finds the paper (docs/search.md "Mentions: is the best hit the
        paper meant?"); when nothing but
        other tokens was sent and some are ``mailto:`` links, their labels
        (else addresses) are the text; ``""`` when only mentions were sent.
    """
    text = strip_tokens(_LINK.sub(_link_words, raw))
    if not text:
        text = " ".join(label.strip() or url for url, label in _LINK.findall(raw))
    return " ".join(user_text(decode_entities(text)).split())


def _link_words(m: re.Match) -> str:
    """A web link token as its URL, then its label unless the label is the
    URL itself (Slack labels a pasted link with the URL less its scheme);
    other link tokens (``mailto:``) are left for ``strip_tokens``."""
    url, label = m.group(1), (m.group(2) or "").strip()
    if not url.lower().startswith(("http://", "https://")):
        return m.group(0)
    bare = url.split("://", 1)[1].rstrip("/")
    return f" {url} " + (f"{label} " if label and label.rstrip("/") not in (url, bare) else "")


def command_text(raw: str) -> str:
    """A slash command's ``text`` decoded once, whitespace trimmed.

    Args:
        raw: the ``text`` form field of a slash command (``"search &lt;b&gt;"``).

    Returns:
        str: ``"search <b>"``, controls and bidi overrides removed
        (``bot.core.parsing.user_text``). Control sequences are *kept* as text: a
        slash command's ``<…>`` came from the user and is escaped again on
        the way out by ``bot.render``.
    """
    return user_text(decode_entities(raw or "")).strip()


def first_word(text: str) -> str:
    """The first whitespace-separated word, lower-cased, or ``""``.

    Args:
        text: decoded command text, e.g. ``"Subscribe 09:30 Europe/Berlin"``.

    Returns:
        str: ``"subscribe"``.
    """
    parts = text.split(None, 1)
    return parts[0].lower() if parts else ""
