"""URLs in abstracts: finding them, trimming sentence punctuation, code hosts."""

from __future__ import annotations

import re
from typing import Iterable
from urllib.parse import urlsplit

#: Hosts whose links are code (or model/data repositories on a code host).
CODE_HOSTS = frozenset(
    {
        "github.com",
        "gitlab.com",
        "huggingface.co",
        "hf.co",
        "bitbucket.org",
        "codeberg.org",
        "gitee.com",
        "sourceforge.net",
        "anonymous.4open.science",
        "git.sr.ht",
        "pypi.org",
    }
)
_BARE_HOSTS = r"github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|codeberg\.org|gitee\.com"
_URL_CHARS = r"[^\s<>\"`{}|\\^\[\]]+"
#: URLs with a scheme or "www." (the first character is h/H/w/W, which keeps the scan fast).
URL_RE = re.compile(r"(?:[hH][tT][tT][pP][sS]?://|[wW][wW][wW]\.)" + _URL_CHARS)
#: Code-host links written without a scheme ("github.com/a/b"); not inside a longer URL.
BARE_URL_RE = re.compile(r"(?<![\w./@-])(?:" + _BARE_HOSTS + r")/" + _URL_CHARS, re.IGNORECASE)
_TRAILING = ".,;:!?'\"”’*_"
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def trim(url: str) -> str:
    """Strip sentence punctuation and unbalanced closing brackets from a URL's end.

    Args:
        url: a URL as matched in running text, e.g.
            ``"https://github.com/boqian333/sparse-dc-scaling."``.

    Returns:
        ``"https://github.com/boqian333/sparse-dc-scaling"``; a balanced ``)``
        (``https://en.wikipedia.org/wiki/A_(b)``) is kept.
    """
    while url:
        last = url[-1]
        if last in _TRAILING:
            url = url[:-1]
        elif last in _PAIRS and url.count(_PAIRS[last]) < url.count(last):
            url = url[:-1]
        else:
            break
    return url


def has_url(text: str) -> bool:
    """Cheap substring pre-check: could ``text`` contain a URL ``URL_RE`` finds?

    Every match of ``URL_RE`` contains "http", "www." or a bare code host,
    and each bare host contains ".com/", ".co/" or ".org/".
    """
    return "http" in text or "www." in text or has_bare_url(text)


def has_bare_url(text: str) -> bool:
    """Could ``text`` hold a scheme-less code-host link (``BARE_URL_RE``)?"""
    return ".com/" in text or ".co/" in text or ".org/" in text


def find_urls(text: str) -> list[str]:
    """All URLs in ``text`` in order, trimmed (see ``trim``); bare code-host links too.

    Args:
        text: any text; ``"see github.com/a/b."`` finds ``"github.com/a/b"``.

    Returns:
        The URLs as written (no scheme added), possibly with repeats.
    """
    if not has_url(text):
        return []
    spans = [m.span() for m in URL_RE.finditer(text)]
    if has_bare_url(text):
        spans = sorted(spans + [m.span() for m in BARE_URL_RE.finditer(text)])
    return [u for u in (trim(text[a:b]) for a, b in spans) if "." in u]


def normalise(url: str) -> str:
    """``"github.com/a/b/"`` → ``"https://github.com/a/b"`` (scheme added, final ``/`` dropped)."""
    if not re.match(r"https?://", url, re.IGNORECASE):
        url = "https://" + url
    return url.rstrip("/")


def is_code_url(url: str) -> bool:
    """True when ``url`` points into a repository on a code host (``CODE_HOSTS``).

    A bare host (``https://github.com``) or a project page (``*.github.io``)
    is not a code link; ``gitlab.<anything>`` (self-hosted GitLab) is.
    """
    try:
        parts = urlsplit(normalise(url))
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    if host not in CODE_HOSTS and not host.startswith("gitlab."):
        return False
    return bool(parts.path.strip("/"))


def code_urls(urls: Iterable[str]) -> tuple[str, ...]:
    """The code links among ``urls``, normalised, de-duplicated (case-insensitive), in order.

    Args:
        urls: candidate URLs (from ``find_urls`` and ``\\href`` targets).

    Returns:
        E.g. ``("https://github.com/Zemdalk/GLU-NTK",)``.
    """
    seen: set[str] = set()
    out: list[str] = []
    for raw in urls:
        url = normalise(trim(raw.strip()))
        key = url.lower().split("://", 1)[-1].removeprefix("www.")
        if is_code_url(url) and key not in seen:
            seen.add(key)
            out.append(url)
    return tuple(out)
