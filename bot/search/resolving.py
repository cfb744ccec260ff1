"""Which paper a text means: the argument of ``show``/``similar``, or a mention.

Rules (docs/search.md "Mentions: is the best hit the paper meant?"):

1. A paper's own link or source id anywhere in the text — ``2401.12345``,
   ``2401.12345v2``, ``arXiv:2401.12345``, ``https://arxiv.org/abs/…``,
   ``…/pdf/…``, Slack's ``<https://…|label>``, an OpenReview forum link — is
   that paper (``links.source_ids``); several such papers are a pick list.
2. Links are never words: their scheme, host and path segments are neither
   name candidates nor searched (``without_links``).
3. A method name that is also an English word (``english.is_english``:
   "HAVE", "SEE", "FIND", "DEEP") matches a word among others only when typed
   as the name is written (same letter case); a name that is not an English
   word ("KIStego") matches in any case, and so does any name that is the
   whole text (``/paper show trust``).

Pure functions over a ``SearchIndex`` (``get``, ``by_name``, ``by_source``,
``linked``); the engine's ``resolve`` and ``mentioned`` call them.
"""

from __future__ import annotations

import re

from bot.core.models import Meant, Paper
from bot.search.english import is_english

#: Slack control sequences a console or a test may pass on: ``<@U1>``,
#: ``<#C1|general>``, ``<!here>``; and links, ``<https://x|label>``.
_SLACK_TOKEN_RE = re.compile(r"<[@#!][^<>\s]*>")
_SLACK_LINK_RE = re.compile(r"<((?:https?|mailto):[^<>|\s]*)(?:\|[^<>]*)?>", re.I)
#: A link: with a scheme, starting ``www.``, or a host with a dot and a letter
#: top-level domain followed by a path (``arxiv.org/abs/2401.12345``).
_URL_RE = re.compile(
    r"(?:\b(?:https?|ftp)://|\bmailto:|\bwww\.)[^\s<>]+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}/[^\s<>]*",
    re.I,
)
_TOKEN_RE = re.compile(r"[\w.\-+]+")


def without_links(text: str) -> str:
    """``text`` with every link (Slack's ``<url|label>`` included) and Slack
    token removed, whitespace collapsed: the words a person typed.

    >>> without_links("see <https://arxiv.org/abs/2401.1|arxiv.org/abs/2401.1> now")
    'see now'
    """
    text = _SLACK_LINK_RE.sub(" ", _SLACK_TOKEN_RE.sub(" ", text))
    return " ".join(_URL_RE.sub(" ", text).split())


def name_counts(name: str, typed: str, whole: bool = False) -> bool:
    """Does ``typed`` name the paper called ``name`` (equal case-insensitively)?

    True when ``typed`` is the whole text, is not an English word, or is
    written exactly as ``name`` (rule 3 of this module).
    """
    return whole or typed == name or not is_english(typed)


def _one(papers: list[Paper]) -> tuple[Paper | None, list[Paper]]:
    return (papers[0], []) if len(papers) == 1 else (None, papers)


def linked_or_named(index, text: str) -> tuple[Paper | None, list[Paper], bool]:
    """Rules 1 and the whole-text lookups: ``(paper, choices, done)``.

    ``done`` is True when the text is decided here: an exact id, a linked
    paper (or several), a source id, or a name equal to the whole link-free
    text; or a text of links only, none of them a paper here (``(None, [], True)``).
    """
    paper = index.get(text)
    if paper is not None:
        return paper, [], True
    linked = index.linked(text)
    if linked:
        return (*_one(linked), True)
    words = without_links(text)
    if not words:
        return None, [], True
    named = index.by_source(words) or index.by_name(words)
    if named:
        return (*_one(named), True)
    return None, [], False


def mentioned(index, text: str) -> Meant:
    """What a mention means before any search (``SearchIndex.mentioned``).

    Rules 1-3: an id, link or whole-text name decides; else each word of the
    link-free text, in order, that is a paper id or (rule 3) one paper's name.
    ``Meant.words`` is the link-free text the service searches otherwise.
    """
    text = " ".join(text.split())
    if not text:
        return Meant(None, (), "")
    paper, choices, done = linked_or_named(index, text)
    words = without_links(text)
    if done:
        return Meant(paper, tuple(choices), words)
    tokens = _TOKEN_RE.findall(words)
    for token in tokens:
        for typed in dict.fromkeys((token, token.strip(".-+"))):
            if not typed:
                continue
            paper = index.get(typed)
            named = [p for p in index.by_name(typed) if name_counts(p.name or "", typed, whole=len(tokens) == 1)]
            if paper is None and len(named) == 1:
                paper = named[0]
            if paper is not None:
                return Meant(paper, (), words)
    return Meant(None, (), words)
