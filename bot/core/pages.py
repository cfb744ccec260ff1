"""A paper's own page: the one link every list, card and export points to (issue 19 point 5).

``page_url(paper)`` is, in order:

1. ``Paper.url`` when it is a web address — the loaders set it to the arXiv abstract page
   (``https://arxiv.org/abs/<id>``), the OpenReview forum
   (``https://openreview.net/forum?id=<forum>``) or the record's own ``url``
   (``bot.corpus.records``, ``bot.corpus.sources``; docs/interfaces.md "CLI", source formats);
2. else the DOI's page, ``https://doi.org/<doi>`` (the DOI resolver; the DOI Handbook,
   https://www.doi.org/the-identifier/resources/handbook/, says how a DOI is written in a URL),
   with the characters a link may not hold percent-encoded;
3. else None: a seed abstract has no page, and a renderer then shows the title alone.

``arxiv_id(url)`` reads the arXiv id back from an arXiv page's link (the BibTeX export's
``eprint``).

Leaf module: standard library only.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from bot.core.models import Paper

#: A web address a message may link to: http(s), no whitespace, ``<``, ``>`` or ``|``
#: (Slack's link markup is ``<url|text>``: docs/platform-facts.md "Slack text escaping and mentions").
WEB_URL = re.compile(r"^https?://[^\s<>|]+$", re.IGNORECASE)
DOI_RESOLVER = "https://doi.org/"
#: An arXiv page's path: ``/abs/2503.11731v2``, ``/pdf/hep-th/9901001.pdf``, ``/html/…``
#: (identifiers: https://info.arxiv.org/help/arxiv_identifier.html).
_ARXIV_PATH = re.compile(
    r"^/(?:abs|pdf|html)/(\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?(?:\.pdf)?/?$", re.IGNORECASE
)


def is_web_url(url: str | None) -> bool:
    """True for an http(s) URL a link may carry (``WEB_URL``); False for None, ``""``,
    ``ftp://…``, ``javascript:…`` or a URL with whitespace, ``<``, ``>`` or ``|``."""
    return bool(url) and bool(WEB_URL.match(url))


def doi_url(doi: str | None) -> str | None:
    """``"10.1145/3544548.3581234"`` → ``"https://doi.org/10.1145/3544548.3581234"``; None without a DOI.

    Characters outside ``A–Z a–z 0–9 _ . - ~ / : ; ( )`` are percent-encoded, so a DOI holding
    ``<``, ``>`` or ``|`` still makes a safe link (the resolver decodes them).
    """
    doi = (doi or "").strip()
    if not doi:
        return None
    return DOI_RESOLVER + quote(doi, safe="/:;()")


def page_url(paper: Paper) -> str | None:
    """The paper's page (see the module docstring): its web ``url``, else its DOI's page, else None.

    Args:
        paper: any paper; seeds have neither ``url`` nor ``doi``.

    Returns:
        str | None: e.g. ``"https://arxiv.org/abs/2503.11731"``,
        ``"https://openreview.net/forum?id=Xy7Zq0ab12"``, ``"https://doi.org/10.1145/…"``.
    """
    url = (paper.url or "").strip()
    if is_web_url(url):
        return url
    return doi_url(paper.doi)


def arxiv_id(url: str | None) -> str | None:
    """The arXiv id an arXiv page names, without its version, as written; None for any other URL.

    Args:
        url: e.g. ``"https://arxiv.org/abs/2503.11731v2"`` → ``"2503.11731"``;
            ``"http://export.arxiv.org/pdf/hep-th/9901001.pdf"`` → ``"hep-th/9901001"``.
    """
    try:
        parts = urlsplit((url or "").strip())
    except ValueError:
        return None
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.scheme.lower() not in ("http", "https") or host not in ("arxiv.org", "export.arxiv.org"):
        return None
    m = _ARXIV_PATH.match(parts.path)
    return m.group(1) if m else None
