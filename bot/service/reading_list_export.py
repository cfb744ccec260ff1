"""The reading list's export: a BibTeX file and a Markdown list (pure).

BibTeX: one ``@misc`` entry per reading-list entry (``@inproceedings`` with
``booktitle`` when a venue is known), keyed by the paper id, with ``title``,
``author`` (names joined by `` and ``), ``year``, ``url``, ``doi`` when known, for an
arXiv paper ``eprint``, ``archivePrefix = {arXiv}`` and ``primaryClass`` (arXiv's
fields for e-prints: https://info.arxiv.org/help/hypertex/bibstyles/index.html), and a
``note`` saying when the title was derived and when the paper is no longer in the
index. ``year`` is the venue's year, else the arXiv id's (``2503.11731`` → 2025,
``hep-th/9901001`` → 1999: https://info.arxiv.org/help/arxiv_identifier.html).
Field values are brace-delimited; TeX's special characters are
escaped (``\\&``, ``\\%``, ``\\$``, ``\\#``, ``\\_``, ``\\{``, ``\\}``,
``\\textbackslash{}``, ``\\textasciitilde{}``, ``\\textasciicircum{}``) so
any BibTeX reader gets the text back; ``url`` and ``doi`` are kept verbatim (braces
percent-encoded), as the ``url`` package reads them. Format: the BibTeX entry/field
syntax documented at https://www.bibtex.org/Format/ .

The entries are the reading list's snapshots; what a snapshot lacks (the DOI, the
arXiv category) comes from the paper while it is in the index, and the arXiv id and
DOI also from the snapshot's page link (``arxiv.org/abs/…``, ``doi.org/…``), so an
entry whose paper left the index keeps them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import unquote

from bot.core import pages
from bot.core.models import Paper, ReadingListEntry
from bot.core.pages import DOI_RESOLVER

_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_TEX_RE = re.compile("|".join(re.escape(c) for c in _TEX))
DERIVED_NOTE = "Title derived by paperbot (the source has none)"
GONE_NOTE = "No longer in the paperbot index"
#: The name of the exported ``.bib`` file.
FILENAME = "paperbot-reading-list.bib"


@dataclass(frozen=True)
class Export:
    """A reading list ready to send.

    Attributes:
        markdown: the list as Markdown (the console prints it; Slack gets the same
            entries as mrkdwn, ``bot.render.reading_list.export_message``).
        bibtex: the ``.bib`` file's content.
        filename: e.g. "paperbot-reading-list.bib".
        count: number of entries.
        entries: the entries, in the list's order (newest first).
        gone: ids of entries no longer in the index.
    """

    markdown: str
    bibtex: str
    filename: str
    count: int
    entries: tuple[ReadingListEntry, ...] = ()
    gone: frozenset[str] = frozenset()


def export(entries: list[ReadingListEntry], papers: Mapping[str, Paper] | None = None) -> Export:
    """``entries`` as an ``Export`` (Markdown list and BibTeX file, in their order).

    Args:
        entries: the reading list's entries.
        papers: the entries' papers still in the index, by id (None: all of them gone);
            an entry without one is marked as no longer in the index.
    """
    papers = papers or {}
    gone = frozenset(e.paper_id for e in entries if e.paper_id not in papers)
    return Export(
        markdown=markdown(entries, gone),
        bibtex=bibtex(entries, gone, papers),
        filename=FILENAME,
        count=len(entries),
        entries=tuple(entries),
        gone=gone,
    )


def tex(text: str) -> str:
    """``text`` with TeX's special characters escaped, on one line."""
    return _TEX_RE.sub(lambda m: _TEX[m.group()], " ".join((text or "").split()))


def year_of(venue: str) -> str | None:
    """The four-digit year in a venue name ("ICML 2026" → "2026"), or None."""
    m = re.search(r"\b(19|20)\d\d\b", venue or "")
    return m.group() if m else None


def arxiv_year(arxiv_id: str) -> str | None:
    """The year an arXiv id was issued in: ``"2503.11731"`` → ``"2025"``, ``"hep-th/9901001"``
    → ``"1999"`` (ids are ``YYMM.NNNNN`` since April 2007, ``archive/YYMMNNN`` before:
    https://info.arxiv.org/help/arxiv_identifier.html); None for anything else."""
    m = re.fullmatch(r"(\d\d)(\d\d)\.\d{4,5}(?:v\d+)?|[a-z][a-z.-]*/(\d\d)(\d\d)\d{3}(?:v\d+)?", arxiv_id, re.I)
    if not m:
        return None
    yy, mm = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if not 1 <= int(mm) <= 12:
        return None
    return f"{'19' if int(yy) >= 91 else '20'}{yy}"


def arxiv_id(entry: ReadingListEntry, paper: Paper | None = None) -> str | None:
    """The entry's arXiv id (no version), from its page link or its paper's; None if not on arXiv.

    Args:
        entry: the reading-list entry (its ``url``).
        paper: its paper in the index, or None.
    """
    return pages.arxiv_id(entry.url) or (pages.arxiv_id(paper.url) if paper else None)


def doi_of(entry: ReadingListEntry, paper: Paper | None = None) -> str | None:
    """The entry's DOI: its paper's ``doi``, else the DOI its page link names (``doi.org/…``), else None.

    Args:
        entry: the reading-list entry (its ``url``).
        paper: its paper in the index, or None.
    """
    if paper is not None and paper.doi:
        return paper.doi
    url = entry.url or ""
    if url.startswith(DOI_RESOLVER):
        return unquote(url[len(DOI_RESOLVER) :]) or None
    return None


def _verbatim(text: str) -> str:
    return text.replace("{", "%7B").replace("}", "%7D")


def bib_fields(entry: ReadingListEntry, paper: Paper | None, gone: bool) -> list[tuple[str, str]]:
    """The ``(field, value)`` pairs of one entry, values already TeX-escaped (see the module doc).

    Args:
        entry: the reading-list entry (the snapshot of its paper).
        paper: its paper in the index (for the DOI and the arXiv category), or None.
        gone: True when the paper is no longer in the index (said in ``note``).
    """
    e = entry
    eprint = arxiv_id(e, paper)
    fields = [("title", tex(e.title))]
    if e.authors:
        fields.append(("author", " and ".join(tex(a) for a in e.authors)))
    if e.venue:
        fields.append(("booktitle", tex(e.venue)))
    year = e.year or (year_of(paper.venue) if paper else None) or (arxiv_year(eprint) if eprint else None)
    if year:
        fields.append(("year", year))
    if eprint:
        fields += [("eprint", tex(eprint)), ("archivePrefix", "arXiv")]
        if paper is not None and paper.categories:
            fields.append(("primaryClass", tex(paper.categories[0])))
    doi = doi_of(e, paper)
    if doi:
        fields.append(("doi", _verbatim(doi)))
    if e.url:
        fields.append(("url", _verbatim(e.url)))
    notes = [DERIVED_NOTE] if e.title_derived else []
    if gone:
        notes.append(GONE_NOTE)
    fields.append(("note", tex("; ".join(notes + [f"paperbot id {e.paper_id}"]))))
    return fields


def bibtex(
    entries: list[ReadingListEntry], gone: frozenset[str] = frozenset(), papers: Mapping[str, Paper] | None = None
) -> str:
    """The BibTeX file of ``entries``, in their order.

    Args:
        entries: the reading list's entries (snapshots of their papers).
        gone: ids no longer in the index (their entries say so in ``note``).
        papers: the entries' papers still in the index, by id (DOI, arXiv category), or None.

    Returns:
        str: ``@type{key, field = {value}, …}`` entries separated by blank lines.
    """
    out = []
    for e in entries:
        fields = bib_fields(e, (papers or {}).get(e.paper_id), e.paper_id in gone)
        kind = "inproceedings" if e.venue else "misc"
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        out.append(f"@{kind}{{{_key(e.paper_id)},\n{body}\n}}")
    return "\n\n".join(out) + "\n"


def markdown(entries: list[ReadingListEntry], gone: frozenset[str] = frozenset(), limit: int = 3500) -> str:
    """A Markdown list of ``entries`` for the export message (cut to ``limit`` chars).

    Each line: ``- Title — Authors (Venue) · id`` (with ``[Title](url)`` when
    there is a url), "(derived title)" and "(no longer in the index)" marks.

    Args:
        entries: the reading list's entries.
        gone: ids no longer in the index (marked "(no longer in the index)").
        limit: most characters of the list; longer lists end with "… and more".
    """
    lines = []
    for e in entries:
        title = f"[{e.title}]({e.url})" if e.url else e.title
        who = ", ".join(e.authors[:3]) + (" et al." if len(e.authors) > 3 else "")
        line = f"- {title}" + (f" — {who}" if who else "") + (f" ({e.venue})" if e.venue else "")
        line += f" · `{e.paper_id}`"
        if e.title_derived:
            line += " (derived title)"
        if e.paper_id in gone:
            line += " (no longer in the index)"
        lines.append(line)
    text = "\n".join(lines)
    if len(text) > limit:
        text = text[:limit].rsplit("\n", 1)[0] + f"\n… and more: all {len(entries)} are in the file."
    return text


def _key(paper_id: str) -> str:
    """A citation key: the id with anything but letters, digits, ``-_:.`` replaced."""
    return re.sub(r"[^A-Za-z0-9_:.\-]", "-", paper_id) or "paper"
