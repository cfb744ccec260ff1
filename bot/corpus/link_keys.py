"""Every link form that names a paper, reduced to one key, for link unfurls (issue 12).

A paper can be linked many ways — ``arxiv.org/abs/2403.01234``, ``…/pdf/2403.01234v3``,
``openreview.net/forum?id=X`` or ``/pdf?id=X``, ``doi.org/10.1103/…``, its code
repository — and ``link_key`` maps each form to one canonical key:

* ``arxiv:<id>`` — ``arxiv.org`` (also ``www.``, ``export.``) ``/abs/``, ``/pdf/``
  (``.pdf`` optional), ``/html/``; the version suffix ``vN`` dropped; old-style ids
  (``hep-th/9901001``) too; arXiv's own DOIs (``10.48550/arXiv.<id>``) map here as well.
* ``openreview:<id>`` — ``openreview.net`` ``/forum``, ``/pdf``, ``/attachment`` with
  ``?id=`` (a ``noteId`` points inside the same forum and is ignored). Ids keep their case.
* ``doi:<doi>`` — ``doi.org`` / ``dx.doi.org``, lower-cased (DOIs are case-insensitive).
* ``url:<host>/<path>`` — any other http(s) link, host lower-cased without ``www.``, no
  query, fragment or trailing ``/``; on code hosts (``github.com``, ``gitlab.com``, …)
  only ``owner/repo``, lower-cased and without ``.git``, so a link to a file of the
  repository names the repository.

Sources: <https://info.arxiv.org/help/arxiv_identifier.html>,
<https://blog.arxiv.org/2022/02/17/new-arxiv-articles-are-now-automatically-assigned-dois>,
docs/platform-facts.md "OpenReview and arXiv".
``paper_link_keys`` gives a paper's keys; ``link_lookup`` builds key → paper id for a
corpus. Pure: standard library only.
"""

from __future__ import annotations

import re
from typing import Iterable
from urllib.parse import parse_qs, unquote, urlsplit

from bot.core.models import Paper

_ARXIV_HOSTS = frozenset({"arxiv.org", "export.arxiv.org"})
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org"})
#: Code hosts whose links are reduced to ``owner/repo``.
REPO_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "gitee.com", "huggingface.co"})
_ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z][a-z.-]*(?:\.[a-z]{2})?/\d{7})$", re.IGNORECASE)
_VERSION = re.compile(r"v\d+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:(?!\d)", re.IGNORECASE)


def arxiv_key(arxiv_id: str) -> str | None:
    """``"arxiv:2403.01234"`` for an arXiv id with or without ``vN``; None when it is not one."""
    ident = _VERSION.sub("", arxiv_id.strip().removesuffix(".pdf"))
    return f"arxiv:{ident.lower()}" if _ARXIV_ID.match(ident) else None


def doi_key(doi: str) -> str | None:
    """``"doi:10.1103/physrevd.76.013009"``; arXiv DOIs give the ``arxiv:`` key; None if not a DOI."""
    doi = unquote(doi.strip()).rstrip("/").lower()
    arxiv = _ARXIV_DOI.match(doi)
    if arxiv:
        return arxiv_key(arxiv.group(1))
    return f"doi:{doi}" if _DOI.match(doi) else None


def link_key(url: str) -> str | None:
    """The canonical key of a link, or None when it names nothing we can key.

    Args:
        url: a plain URL, as ``link_shared`` events list them
            ("https://arxiv.org/pdf/2403.01234v3"); a missing scheme is read as https
            ("arxiv.org/abs/…"). Not Slack's ``<url|label>`` markup.

    Returns:
        ``"arxiv:…"``, ``"openreview:…"``, ``"doi:…"`` or ``"url:…"`` (see the module
        docstring); None for an empty string, another scheme (``mailto:``), a link
        without a host, or an arXiv / OpenReview / DOI link that names no paper
        (``arxiv.org/list/cs.LG``). Never raises.
    """
    text = (url or "").strip()
    if not text:
        return None
    if "://" not in text:
        if _SCHEME.match(text):  # mailto:, tel:, javascript: …
            return None
        text = "https://" + text
    try:
        parts = urlsplit(text)
    except ValueError:  # e.g. an invalid IPv6 host
        return None
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.scheme.lower() not in ("http", "https") or not host or "." not in host:
        return None
    path = unquote(parts.path)
    if host in _ARXIV_HOSTS:
        kind, _, rest = path.strip("/").partition("/")
        return arxiv_key(rest) if kind in ("abs", "pdf", "html") and rest else None
    if host == "openreview.net":
        ident = (parse_qs(parts.query).get("id") or [""])[0].strip()
        if path.rstrip("/") in ("/forum", "/pdf", "/attachment") and ident:
            return f"openreview:{ident}"
        return None
    if host in _DOI_HOSTS:
        return doi_key(path.lstrip("/"))
    segments = [s for s in path.split("/") if s]
    if host in REPO_HOSTS and len(segments) >= 2:
        repo = segments[1].lower().removesuffix(".git")
        if host == "huggingface.co" and segments[0] in ("datasets", "spaces") and len(segments) >= 3:
            return f"url:{host}/{segments[0]}/{segments[1].lower()}/{segments[2].lower()}"
        return f"url:{host}/{segments[0].lower()}/{repo}"
    tail = "/".join(segments)
    return f"url:{host}/{tail}" if tail else f"url:{host}"


def paper_link_keys(paper: Paper) -> set[str]:
    """Every key a link to ``paper`` can have: those of its ``url`` (an arXiv or OpenReview
    page, so every abs/pdf/version or forum/pdf form of it), its DOI and its code links.

    Returns:
        e.g. ``{"arxiv:2403.01234", "url:github.com/example-lab/draft-trees"}`` — so
        ``link_key("https://arxiv.org/pdf/2403.01234v2")`` is in it. Empty when the paper
        has no link at all (seed abstracts without code links).
    """
    keys = {link_key(u) for u in (paper.url or "", *paper.code_urls)}
    if paper.doi:
        keys.add(doi_key(paper.doi))
    keys.discard(None)
    return keys  # type: ignore[return-value]


def link_lookup(papers: Iterable[Paper]) -> dict[str, str]:
    """``{link key: paper id}`` over a corpus, for answering "which paper is this link?".

    A key that several papers share (one lab's repository linked from two papers) is left
    out: such a link does not name one paper, and guessing would unfurl the wrong one.

    Args:
        papers: the corpus (any iterable of ``Paper``).

    Returns:
        The unambiguous keys, each mapped to its paper's ``id``.
    """
    found: dict[str, str] = {}
    shared: set[str] = set()
    for paper in papers:
        for key in paper_link_keys(paper):
            if key in found and found[key] != paper.id:
                shared.add(key)
            found.setdefault(key, paper.id)
    return {k: v for k, v in found.items() if k not in shared}
