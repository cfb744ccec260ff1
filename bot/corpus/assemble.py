"""One source record → one ``Paper``: clean, derive, key. Shared by every input format."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable

from bot.core.models import Paper
from bot.corpus.clean import Cleaned, clean, clean_text, has_markup
from bot.corpus.derive import contribution_index, derive_title, tldr
from bot.corpus.ids import IdKey, normalise_source_id, text_digest
from bot.corpus.keywords import keywords, title_keywords
from bot.corpus.names import find_name, title_name
from bot.corpus.sentences import Doc
from bot.corpus.urls import code_urls, find_urls, has_url

#: Control characters (but tab/newline/CR, which are whitespace) and lone
#: UTF-16 surrogates ("\\ud800" in JSON): never valid in a paper's text, and a
#: surrogate cannot even be encoded as UTF-8 (it crashed builds and searches).
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATES = re.compile(r"[\ud800-\udfff]")
#: Bidirectional embedding/override/isolate controls: they can make a title
#: display reversed or hide text in Slack and terminals; dropped.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def safe_text(value: object) -> str:
    """``value`` as text without control characters (→ space), lone
    surrogates (→ U+FFFD, the replacement character) or bidirectional
    override/isolate characters (dropped)."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if text.isascii():
        return _CONTROLS.sub(" ", text)
    return _BIDI.sub("", _SURROGATES.sub("\ufffd", _CONTROLS.sub(" ", text)))


@dataclass(frozen=True)
class Entry:
    """A paper plus what id assignment needs (its id is the base id until then)."""

    paper: Paper
    key: IdKey
    #: OpenReview decision ("accepted", "withdrawn", … — ``bot.corpus.sources.STATUSES``)
    #: or None when the source says nothing about acceptance.
    status: str | None = None


def make_entry(
    raw: str,
    *,
    title: str | None = None,
    source_id: object = None,
    authors: Iterable[str] = (),
    url: str | None = None,
    categories: Iterable[str] = (),
    venue: str = "",
    source: str = "",
    extra_code_urls: Iterable[str] = (),
    given_tldr: str = "",
    given_keywords: Iterable[str] = (),
    doi: str | None = None,
    status: str | None = None,
) -> Entry | None:
    """Build the ``Paper`` for one abstract; None when the abstract is empty.

    Args:
        raw: the abstract as found in the source (LaTeX/Markdown allowed).
        title: the source's title, or None/"" to derive one (``title_derived``).
        source_id: the source's own id (str or number), or None.
        authors, url, categories, venue, source: copied (cleaned/stripped).
        extra_code_urls: code links given by the source besides the abstract.
        given_tldr, given_keywords: the source's own TL;DR and keywords (OpenReview);
            used instead of derived ones when not empty.
        doi: the paper's DOI ("10.1145/…"), or None.
        status: the OpenReview decision, copied to ``Entry.status``.

    Returns:
        ``Entry(paper, key)`` where ``paper.id`` is the base id (see
        ``bot.corpus.ids``) — ``load_papers`` makes ids unique corpus-wide.
    """
    raw = " ".join(safe_text(raw).split())  # once: cleaning and the id hash both start from it
    title = safe_text(title)
    source_id = None if source_id is None else safe_text(source_id)
    extra = tuple(safe_text(u) for u in extra_code_urls)
    cleaned = clean(raw) if has_markup(raw) else Cleaned(raw)
    text = cleaned.text
    if not text:
        return None
    doc = Doc(text)
    given = clean_text(title) if title else ""
    if given:
        # Cheap path for titled sources (100k-paper corpora): name from the title only.
        info = title_name(given)
        name = info.name if info else None
        contribution = contribution_index(doc)
        final_title, derived = given, False
        phrases = title_keywords(given, text, name=name)
    else:
        info = find_name(text, raw, None, doc.sents)
        name = info.name if info else None
        final_title, contribution = derive_title(doc, info)
        if contribution is None:
            contribution = contribution_index(doc)
        derived = True
        phrases = keywords(text, name=name)
    digest = text_digest(raw, normalised=True)
    sid = (source_id or "").strip() or None
    normalised = normalise_source_id(sid)
    base = normalised or "p" + digest[:4]
    paper = Paper(
        id=base,
        title=final_title,
        abstract=text,
        title_derived=derived,
        source_id=sid,
        name=name,
        authors=tuple(a for a in (safe_text(x).strip() for x in authors) if a),
        url=safe_text(url).strip() or None,
        tldr=(clean_text(safe_text(given_tldr)) if given_tldr else "") or tldr(doc, contribution),
        keywords=_given(given_keywords) or phrases,
        code_urls=code_urls([*find_urls(text), *cleaned.link_urls, *extra])
        if cleaned.link_urls or extra or has_url(text)
        else (),
        venue=safe_text(venue),
        source=safe_text(source),
        categories=tuple(c for c in (safe_text(x).strip() for x in categories) if c),
        doi=safe_text(doi).strip() or None,
    )
    return Entry(paper, IdKey(base, digest, normalised is None, source), status)


def _given(words: Iterable[str]) -> tuple[str, ...]:
    """A source's own keywords, cleaned (LaTeX, whitespace), empty ones dropped."""
    return tuple(w for w in (" ".join(clean_text(safe_text(x)).split()) for x in words) if w)


def with_id(paper: Paper, pid: str) -> Paper:
    """``paper`` with its final id (the same object when unchanged).

    Args:
        paper: the paper with its base id.
        pid: its final id.
    """
    return paper if paper.id == pid else replace(paper, id=pid)
