"""Which paper a text means: the argument of ``show``/``similar``, a mention,
and the papers a search's text links to (put first).

Rules (docs/search.md "Mentions: is the best hit the paper meant?"):

1. A paper's own link or source id anywhere in the text — ``2401.12345``,
   ``2401.12345v2``, ``arXiv:2401.12345``, ``https://arxiv.org/abs/…``,
   ``…/pdf/…``, Slack's ``<https://…|label>``, an OpenReview forum link — is
   that paper (``source_ids``, ``linked_docs``); several such papers are a pick list.
2. Links and DOIs are never words: their scheme, host and path segments are
   neither name candidates nor searched (``without_links``).
3. A method name that is also an English word (``word_readings.is_english``:
   "HAVE", "SEE", "FIND", "DEEP") matches a word among others only when typed
   as the name is written (same letter case); a name that is not an English
   word ("KIStego") matches in any case, and so does any name that is the
   whole text (``/paper show trust``).

Links and source ids recognised (docs/search.md, "Query syntax"):

* new-style arXiv ids, bare or in a link: ``2401.12345``, ``2401.12345v2``,
  ``https://arxiv.org/abs/2401.12345v2``, ``…/pdf/2401.12345.pdf``
  (format: https://info.arxiv.org/help/arxiv_identifier.html);
* OpenReview links: ``https://openreview.net/forum?id=<id>`` (also ``pdf?id=``);
* DOIs in every form — ``https://doi.org/10.…``, ``dx.doi.org``, ``doi:10.…``, a
  bare ``10.NNNN/…`` (``dois``) — looked up in ``doi_key``; arXiv's DOIs
  (``10.48550/arXiv.<id>``) as the arXiv id they name.

Each is looked up as a source id (case-folded ``source_key``), with and
without an arXiv version suffix. Plain numbers are never taken as ids.

``linked_docs`` reads an open searcher (the engine pins what it finds first);
the rest are pure functions over a ``SearchIndex`` (``get``, ``by_name``,
``by_source``, ``linked``), called by the engine's ``resolve`` and ``mentioned``.
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

from whoosh import query as Q

from bot.core.models import Meant, Paper
from bot.search.query.word_readings import about, is_english

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
#: A new-style arXiv id (version optional; also inside arXiv's DOI
#: ``10.48550/arXiv.<id>``) and an OpenReview link's id.
_ARXIV_RE = re.compile(r"(?:(?<=arxiv\.)|(?<![\w.]))(\d{4}\.\d{4,5})(v\d+)?(?![\d])", re.I)
#: A DOI anywhere: bare ``10.NNNN/…``, ``doi:10.…``, in a ``doi.org`` / ``dx.doi.org``
#: link (https://www.doi.org/the-identifier/resources/handbook/2_numbering); it ends
#: at a space, a Slack bracket or a closing punctuation mark.
DOI_RE = re.compile(
    r"(?:(?<=doi\.org/)|(?<![\w./]))(?:doi:\s*)?(10\.\d{4,9}/[^\s<>|\"]+?)(?=[.,;:)\]]*(?:[\s<>|\"]|$))", re.I
)
_OPENREVIEW_RE = re.compile(r"openreview\.net/(?:forum|pdf)\?(?:[^\s>|]*&)?id=([\w-]+)", re.I)
#: Most linked papers pinned from one text.
MAX_LINKED = 5


def source_ids(text: str) -> list[str]:
    """Candidate source ids in ``text``, in order, without repeats."""
    found: list[str] = []
    for m in _ARXIV_RE.finditer(text):
        found += [m.group(1) + (m.group(2) or ""), m.group(1)]
    found += [m.group(1) for m in _OPENREVIEW_RE.finditer(text)]
    return list(dict.fromkeys(found))


def dois(text: str) -> list[str]:
    """The DOIs in ``text`` (any form: bare, ``doi:``, a doi.org link), folded
    (DOIs are case-insensitive), percent-decoded, in order, without repeats
    (arXiv's own DOIs too: ``source_ids`` also reads the arXiv id in them)."""
    return list(dict.fromkeys(unquote(m.group(1)).casefold() for m in DOI_RE.finditer(text)))


def linked_docs(searcher, text: str) -> list[int]:
    """Docnums of the papers whose source id or DOI ``text`` names (at most
    ``MAX_LINKED``), in the order the text names them.

    Args:
        searcher: an open Whoosh searcher of the generation.
        text: the text as typed or pasted (links and ids anywhere in it).
    """
    if "." not in text and "openreview" not in text.lower():
        return []
    keys = [("source_key", sid.casefold()) for sid in source_ids(text)]
    if "doi_key" in searcher.schema:  # an index built before issue 18 has no DOIs
        keys += [("doi_key", doi) for doi in dois(text)]
    typed = dict(zip((v for _, v in keys), source_ids(text)))  # folded -> as written (ids keep their case)
    docs: list[int] = []
    for fieldname, value in keys:
        found = list(searcher.docs_for_query(Q.Term(fieldname, value)))
        if len(found) > 1 and value in typed:  # ids differing only in case: the one written so, if any
            exact = [d for d in found if json.loads(searcher.stored_fields(d)["doc"]).get("source_id") == typed[value]]
            found = exact or found
        for d in found:
            if d not in docs:
                docs.append(d)
        if len(docs) >= MAX_LINKED:
            break
    return docs[:MAX_LINKED]


def without_links(text: str, ids: bool = False) -> str:
    """``text`` with every link (Slack's ``<url|label>`` included) and Slack
    token removed, whitespace collapsed: the words a person typed.

    >>> without_links("see <https://arxiv.org/abs/2401.1|arxiv.org/abs/2401.1> now")
    'see now'

    Args:
        text: as typed or pasted.
        ids: also remove bare arXiv ids ("2504.01127"): when they name a paper here,
            they are no words to search.
    """
    text = _SLACK_LINK_RE.sub(" ", _SLACK_TOKEN_RE.sub(" ", text))
    text = DOI_RE.sub(" ", _URL_RE.sub(" ", text))
    return " ".join((_ARXIV_RE.sub(" ", text) if ids else text).split())


def name_counts(name: str, typed: str, whole: bool = False) -> bool:
    """Does ``typed`` name the paper called ``name`` (equal case-insensitively)?

    True when ``typed`` is the whole text, is not an English word, or is
    written exactly as ``name`` (rule 3 of this module).

    Args:
        name: the paper's name.
        typed: the word as the user typed it.
        whole: ``typed`` is the whole text.
    """
    return whole or typed == name or not is_english(typed)


def _one(papers: list[Paper]) -> tuple[Paper | None, list[Paper]]:
    return (papers[0], []) if len(papers) == 1 else (None, papers)


def linked_or_named(index, text: str) -> tuple[Paper | None, list[Paper], bool]:
    """Rules 1 and the whole-text lookups: ``(paper, choices, done)``.

    ``done`` is True when the text is decided here: an exact id, a linked
    paper (or several), a source id, or a name equal to the whole link-free
    text; or a text of links only, none of them a paper here (``(None, [], True)``).

    Args:
        index: the ``SearchIndex`` (``get``, ``linked``, ``by_source``, ``by_name``).
        text: the text, spaces collapsed.
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
    ``Meant.words`` is the link-free text the service searches otherwise, without its
    words of conversation when nothing decided (``word_readings.about``).

    Args:
        index: the ``SearchIndex`` (``get``, ``linked``, ``by_source``, ``by_name``).
        text: the mention or DM text (Slack's tokens stripped).
    """
    text = " ".join(text.split())
    if not text:
        return Meant(paper=None, choices=(), words="")
    paper, choices, done = linked_or_named(index, text)
    words = without_links(text)
    if done:
        return Meant(paper=paper, choices=tuple(choices), words=words)
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
                return Meant(paper=paper, choices=(), words=words)
    return Meant(paper=None, choices=(), words=about(words))
