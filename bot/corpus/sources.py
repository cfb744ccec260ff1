"""Real paper sources in their own shapes: OpenReview notes and the arXiv metadata snapshot.

``normalise_record`` turns one record of either shape into the plain record fields
(``bot.corpus.records``: ``id``, ``title``, ``abstract``, ``authors``, ``url``,
``categories``, ``venue``) plus ``tldr``, ``keywords``, ``doi`` and ``status``; any other
record is returned unchanged. Shapes (docs/platform-facts.md "OpenReview and arXiv"):

* **OpenReview note** — a dict with a ``content`` dict, as the API returns it (also in
  ``{"notes": [...]}``): API 1 holds plain values (``"title": "…"``, ``"TL;DR": "…"``),
  API 2 wraps each in ``{"value": …}`` and spells the TL;DR ``TLDR``. The link is
  ``https://openreview.net/forum?id=<forum or id>``.
* **arXiv snapshot** — ``id``, ``title``, ``abstract``, ``authors`` (one string),
  ``authors_parsed`` (``[[last, first, suffix], …]``, preferred), ``categories``,
  ``versions``, ``doi``; the link is ``https://arxiv.org/abs/<id>``.

``status`` (OpenReview only) is what ``--accepted-only`` keeps or drops: "accepted",
"rejected", "withdrawn", "desk_rejected", "submitted" (under review or no decision
published) or "unknown" (nothing says; API 1 keeps decisions in separate notes). It is
read from ``content.venueid`` first, then ``content.venue``, then the invitation.
Pure: no I/O.
"""

from __future__ import annotations

import re

#: Statuses an OpenReview note can have here; only "accepted" survives ``--accepted-only``.
STATUSES = ("accepted", "rejected", "withdrawn", "desk_rejected", "submitted", "unknown")
#: Most keywords taken from a source that lists them.
MAX_KEYWORDS = 8
_TLDR_KEYS = ("TLDR", "TL;DR", "tldr", "TL;DR:", "tl;dr")
_DOI = re.compile(r"\b10\.\d{4,9}/\S+")


def unwrap(value: object) -> object:
    """An API 2 field ``{"value": x}`` → ``x``; anything else unchanged."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def is_openreview_note(rec: dict) -> bool:
    """True for a dict shaped like an OpenReview note (a ``content`` dict beside an id)."""
    return isinstance(rec.get("content"), dict) and bool(rec.get("id") or rec.get("forum"))


def is_arxiv_snapshot(rec: dict) -> bool:
    """True for a record of the arXiv metadata snapshot (``authors_parsed`` or ``versions``)."""
    return "authors_parsed" in rec or isinstance(rec.get("versions"), list)


def normalise_record(rec: dict) -> dict:
    """One source record in the plain record fields ``bot.corpus.records`` reads.

    Args:
        rec: a parsed JSON object or CSV row.

    Returns:
        For an OpenReview note or an arXiv snapshot record, a new dict with ``id``,
        ``title``, ``abstract``, ``authors`` (list of str), ``url``, ``categories``,
        ``venue``, ``tldr``, ``keywords`` (list), ``doi`` (str or None) and ``status``
        (OpenReview: one of ``STATUSES``; arXiv: None). Any other record unchanged.
        Never raises for odd values: wrong types read as missing.
    """
    if is_openreview_note(rec):
        return _openreview(rec)
    if is_arxiv_snapshot(rec):
        return _arxiv(rec)
    return rec


def _text(value: object) -> str:
    value = unwrap(value)
    if isinstance(value, str):
        return value
    return "" if value is None or isinstance(value, (dict, list)) else str(value)


def _names(value: object) -> list[str]:
    value = unwrap(value)
    if isinstance(value, str):
        return [value]
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):  # {"fullname": …, "username": …} in some API 2 exports
            item = item.get("fullname") or item.get("name") or ""
        name = " ".join(str(item).split())
        if name:
            out.append(name)
    return out


def _keywords(value: object) -> list[str]:
    value = unwrap(value)
    items = re.split(r"[,;]", value) if isinstance(value, str) else value if isinstance(value, list) else []
    out, seen = [], set()
    for item in items:
        word = " ".join(str(item).split()).strip(" .")
        if word and word.lower() not in seen:
            seen.add(word.lower())
            out.append(word)
    return out[:MAX_KEYWORDS]


def _openreview(rec: dict) -> dict:
    content = rec["content"]
    note_id = _text(rec.get("id")).strip() or _text(rec.get("forum")).strip()
    forum = _text(rec.get("forum")).strip() or note_id
    tldr = next((_text(content[k]) for k in _TLDR_KEYS if _text(content.get(k)).strip()), "")
    venue = " ".join(_text(content.get("venue")).split())
    return {
        "id": note_id,
        "title": _text(content.get("title")),
        "abstract": _text(content.get("abstract")),
        "authors": _names(content.get("authors")),
        "url": f"https://openreview.net/forum?id={forum}",
        "categories": [],
        "venue": venue,
        "tldr": " ".join(tldr.split()),
        "keywords": _keywords(content.get("keywords")),
        "doi": None,
        "status": note_status(content, rec.get("invitations") or rec.get("invitation")),
    }


def note_status(content: dict, invitations: object = None) -> str:
    """What OpenReview says became of a submission (one of ``STATUSES``).

    Rules (docs/platform-facts.md "OpenReview and arXiv"): an accepted paper's
    ``venueid`` is the venue's own id ("ICLR.cc/2024/Conference"); other outcomes end in
    ``/Withdrawn_Submission``, ``/Desk_Rejected_Submission``, ``/Rejected_Submission`` or
    ``/Submission`` (under review). Without a ``venueid``, the same words in ``venue``
    ("Submitted to ICLR 2024", "… Withdrawn Submission"; a venue without them, "ICLR 2024
    poster", is accepted); then a withdrawal or desk-rejection invitation; else "unknown".

    Args:
        content: the note's ``content`` (API 1 or API 2 shape).
        invitations: the note's ``invitation`` (str) or ``invitations`` (list), optional.
    """
    venueid = _text(content.get("venueid")).strip()
    if venueid:
        last = venueid.rstrip("/").rsplit("/", 1)[-1].lower()
        return _status_word(last.replace("_", " ")) or "accepted"
    venue = " ".join(_text(content.get("venue")).split()).lower()
    if venue:
        return _status_word(venue) or "accepted"
    names = [invitations] if isinstance(invitations, str) else invitations if isinstance(invitations, list) else []
    for name in names:
        found = _status_word(str(name).rsplit("/", 1)[-1].lower().replace("_", " "))
        if found and found != "submitted":
            return found
    return "unknown"


def _status_word(text: str) -> str | None:
    if "withdraw" in text:
        return "withdrawn"
    if "desk reject" in text or "desk-reject" in text:
        return "desk_rejected"
    if "reject" in text:
        return "rejected"
    if any(word in text for word in ("submission", "submitted", "under review")):
        return "submitted"
    return None


def first_doi(value: object) -> str | None:
    """The first DOI in a field ("10.1103/X 10.1016/Y" → "10.1103/X"), or None.

    The snapshot's ``doi`` may list several, separated by spaces
    (<https://info.arxiv.org/help/bib_feed.html>).
    """
    found = _DOI.search(_text(value))
    return found.group(0).rstrip(".,;") if found else None


def _arxiv(rec: dict) -> dict:
    out = dict(rec)
    arxiv_id = _text(rec.get("id")).strip()
    parsed = rec.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for parts in parsed:
            if isinstance(parts, list):
                last, first, suffix = ([str(p).strip() for p in parts] + ["", "", ""])[:3]
                name = " ".join(p for p in (first, last, suffix) if p)
                if name:
                    names.append(name)
        if names:
            out["authors"] = names
    if not _text(rec.get("url")).strip() and arxiv_id:
        out["url"] = f"https://arxiv.org/abs/{arxiv_id}"
    out["doi"] = first_doi(rec.get("doi"))
    out["status"] = None
    return out
