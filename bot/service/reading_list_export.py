"""The reading list's export: a BibTeX file and a Markdown list (pure; leaf module).

BibTeX: one ``@misc`` entry per reading-list entry (``@inproceedings`` with
``booktitle`` when a venue is known), keyed by the paper id, with ``title``,
``author`` (names joined by `` and ``), ``year``, ``url``, and a ``note``
saying when the title was derived and when the paper is no longer in the
index. Field values are brace-delimited; TeX's special characters are
escaped (``\\&``, ``\\%``, ``\\$``, ``\\#``, ``\\_``, ``\\{``, ``\\}``,
``\\textbackslash{}``, ``\\textasciitilde{}``, ``\\textasciicircum{}``) so
any BibTeX reader gets the text back. Format: the BibTeX entry/field syntax
documented at https://www.bibtex.org/Format/ .
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import ReadingListEntry

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
        markdown: the list for the message text (Slack shows it as is).
        bibtex: the ``.bib`` file's content.
        filename: e.g. "paperbot-reading-list.bib".
        count: number of entries.
    """

    markdown: str
    bibtex: str
    filename: str
    count: int


def export(entries: list[ReadingListEntry], gone: frozenset[str] = frozenset()) -> Export:
    """``entries`` as an ``Export`` (Markdown list and BibTeX file, in their order).

    Args:
        entries: the reading list's entries.
        gone: ids no longer in the index (their entries say so).
    """
    return Export(markdown=markdown(entries, gone), bibtex=bibtex(entries, gone), filename=FILENAME, count=len(entries))


def tex(text: str) -> str:
    """``text`` with TeX's special characters escaped, on one line."""
    return _TEX_RE.sub(lambda m: _TEX[m.group()], " ".join((text or "").split()))


def year_of(venue: str) -> str | None:
    """The four-digit year in a venue name ("ICML 2026" → "2026"), or None."""
    m = re.search(r"\b(19|20)\d\d\b", venue or "")
    return m.group() if m else None


def bibtex(entries: list[ReadingListEntry], gone: frozenset[str] = frozenset()) -> str:
    """The BibTeX file of ``entries``, in their order.

    Args:
        entries: the reading list's entries (snapshots of their papers).
        gone: ids no longer in the index (their entries say so in ``note``).

    Returns:
        str: ``@type{key, field = {value}, …}`` entries separated by blank lines.
    """
    out = []
    for e in entries:
        fields = [("title", tex(e.title))]
        if e.authors:
            fields.append(("author", " and ".join(tex(a) for a in e.authors)))
        if e.venue:
            fields.append(("booktitle", tex(e.venue)))
        if e.year:
            fields.append(("year", e.year))
        if e.url:
            fields.append(("url", e.url.replace("{", "%7B").replace("}", "%7D")))
        notes = [DERIVED_NOTE] if e.title_derived else []
        if e.paper_id in gone:
            notes.append(GONE_NOTE)
        fields.append(("note", tex("; ".join(notes + [f"paperbot id {e.paper_id}"]))))
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
