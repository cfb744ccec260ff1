"""Which paper a link points to: arXiv, OpenReview, DOI and code-host links.

``link_key(url)`` reduces the forms a person pastes to one key per paper:

=====================================================  ===========================
link                                                   key
=====================================================  ===========================
``arxiv.org/abs/2401.01234v2``, ``/pdf/2401.01234.pdf``  ``arxiv:2401.01234``
``openreview.net/forum?id=AbC``, ``/pdf?id=AbC``       ``openreview:AbC``
``doi.org/10.1145/XYZ``, ``dx.doi.org/…``              ``doi:10.1145/xyz``
``github.com/Owner/Repo/tree/main``                    ``github.com/owner/repo``
``huggingface.co/org/model``                           ``huggingface.co/org/model``
=====================================================  ===========================

``PaperLinks(index)`` finds the paper whose ``url``, one of whose
``code_urls``, or whose DOI (``paper_keys``) has the same key. ``UNFURL_DOMAINS`` are the domains the app
manifests register for link unfurling (Slack allows five:
https://docs.slack.dev/messaging/unfurling-links-in-messages).

Pure Python; the index is anything with ``papers()`` (``bot.search.SearchIndex``)
and ``ids()``.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import parse_qs, unquote, urlsplit

from bot.core.index_port import ServiceIndex
from bot.core.models import Paper

#: Registered in both manifests' ``features.unfurl_domains`` (≤ 5, hosts only).
UNFURL_DOMAINS = ("arxiv.org", "openreview.net", "doi.org", "github.com", "huggingface.co")
_ARXIV = re.compile(
    r"^/(?:abs|pdf|html)/((?:[a-z-]+(?:\.[A-Z]{2})?/)?\d{4,7}(?:\.\d{4,5})?)(?:v\d+)?"
    r"(?:\.pdf)?/?$",
    re.IGNORECASE,
)
_CODE_HOSTS = ("github.com", "huggingface.co")


def _host(netloc: str) -> str:
    host = netloc.lower().split("@")[-1].split(":")[0]
    return host[4:] if host.startswith("www.") else host


def link_key(url: str) -> str | None:
    """The key of a paper or code link, or None for any other URL.

    Args:
        url: as Slack sends it in ``link_shared`` (``https://arxiv.org/abs/2401.01234v2``).

    Returns:
        str | None: e.g. ``"arxiv:2401.01234"``; None for unknown hosts,
        pages that are not one paper (``arxiv.org/list/cs.LG``), bad URLs.
    """
    try:
        parts = urlsplit((url or "").strip().replace("&amp;", "&"))  # Slack may send &amp;
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host, path = _host(parts.netloc), unquote(parts.path)
    if host in ("arxiv.org", "export.arxiv.org"):
        m = _ARXIV.match(path)
        return f"arxiv:{m.group(1).lower()}" if m else None
    if host == "openreview.net" and path.rstrip("/") in ("/forum", "/pdf"):
        ids = parse_qs(parts.query).get("id") or [""]
        return f"openreview:{ids[0]}" if re.fullmatch(r"[\w-]{1,64}", ids[0]) else None
    if host in ("doi.org", "dx.doi.org"):
        doi = path.lstrip("/")
        return f"doi:{doi.lower()}" if doi.startswith("10.") and "/" in doi else None
    if host in _CODE_HOSTS:
        segments = [s for s in path.split("/") if s]
        if len(segments) >= 2 and host == "github.com":
            return f"{host}/{segments[0].lower()}/{segments[1].lower().removesuffix('.git')}"
        if len(segments) >= 2:
            return f"{host}/{segments[0].lower()}/{segments[1].lower()}"
    return None


def paper_keys(paper: Paper) -> set[str]:
    """The keys of every link that names ``paper``: its ``url`` and ``code_urls``,
    its DOI (``doi:…``, from any source that carries one) and, for an arXiv
    paper, arXiv's DOI of it (``doi:10.48550/arxiv.<id>``,
    https://info.arxiv.org/help/doi.html)."""
    keys = {link_key(link or "") for link in (paper.url, *paper.code_urls)}
    doi = (paper.doi or "").strip().removeprefix("doi:").strip()
    if doi:
        keys.add(link_key(doi if "://" in doi else "https://doi.org/" + doi))
    keys |= {f"doi:10.48550/arxiv.{k.removeprefix('arxiv:')}" for k in keys if k and k.startswith("arxiv:")}
    keys.discard(None)
    return keys  # type: ignore[return-value]


class PaperLinks:
    """Finds the corpus paper a link points to.

    Keys of every paper's ``url`` and ``code_urls`` are read once per index
    generation (``papers()``: one pass over the stored papers) and kept in a
    dict; a key shared by several papers (one repository for two papers)
    points to none of them.

    Args:
        index: has ``papers() -> Iterable[Paper]`` and ``ids() -> list[str]``
            (a change in ``ids()`` means a new generation: keys are re-read).

    Thread safety: safe to share; the first lookup after a rebuild reads the keys.
    """

    def __init__(self, index: ServiceIndex) -> None:
        self._index = index
        self._lock = threading.Lock()
        self._keys: dict[str, str | None] = {}
        self._seen: tuple[int, str, str] | None = None

    def find(self, url: str) -> Paper | None:
        """The paper ``url`` points to, or None (unknown link, or not in the corpus)."""
        key = link_key(url)
        if key is None:
            return None
        paper_id = self._table().get(key)
        return self._index.get(paper_id) if paper_id else None

    def _table(self) -> dict[str, str | None]:
        ids = self._index.ids()
        stamp = (len(ids), ids[0] if ids else "", ids[-1] if ids else "")
        with self._lock:
            if stamp != self._seen:
                keys: dict[str, str | None] = {}
                for paper in self._index.papers():
                    for key in paper_keys(paper):
                        keys[key] = paper.id if keys.get(key, paper.id) == paper.id else None
                self._keys, self._seen = keys, stamp
            return self._keys
