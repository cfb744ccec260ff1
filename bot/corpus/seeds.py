"""Seed text files: a one-line header naming the venue, then one abstract per paragraph.

Format (docs/interfaces.md "CLI", ``seeds/*.txt``): the first paragraph is a header
when it is a single short line ("ICML 2026 Papers", "ICML 2026 论文列表");
the venue is the first "<ACRONYM> <YEAR>" in it. Every following paragraph
(blank-line separated) is one abstract; its lines are joined with spaces.
A paragraph whose lines are all long (≥ 300 characters) is read as one
abstract per line. ``source`` is ``"<file name>#<n>"``, n counting abstracts
from 1.
"""

from __future__ import annotations

import logging
import re

from bot.core.models import Paper
from bot.corpus.assemble import Entry, make_entry, with_id
from bot.corpus.ids import assign_ids

log = logging.getLogger(__name__)

_VENUE = re.compile(r"(?<![A-Za-z])([A-Z][A-Za-z]*[A-Z](?:-[A-Z]+)?)\s*['’]?\s*((?:19|20)\d{2})(?!\d)")
_PARAGRAPHS = re.compile(r"\n[ \t\u3000]*\n")
_HEADER_MAX = 200
_LONG_LINE = 300


def venue_from_header(header: str) -> str:
    """``"ICML 2026 Papers"`` or ``"ICML 2026 论文列表"`` → ``"ICML 2026"``; ``""`` when none.

    Args:
        header: the header line.

    Returns:
        "<CONF> <YEAR>": an acronym starting and ending with a capital
        (ICML, NeurIPS, ACL-IJCNLP) followed by a 19xx/20xx year.
    """
    m = _VENUE.search(header)
    return f"{m.group(1)} {m.group(2)}" if m else ""


def _is_header(first: str) -> bool:
    """The first paragraph is a header when it is one short line that names a
    venue, or one very short line that is not a sentence (no final period) —
    never a short abstract."""
    if "\n" in first or len(first) > _HEADER_MAX:
        return False
    if venue_from_header(first):
        return True
    return len(first) <= 80 and not first.rstrip().endswith((".", "!", "?"))


def split_seed_text(text: str) -> tuple[str, list[str]]:
    """Split a seed file's text into (venue, abstracts as raw paragraphs).

    Args:
        text: the whole file, any line endings, optional BOM.

    Returns:
        ``(venue, paragraphs)``; venue "" when the file has no header naming one.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = [p.strip() for p in _PARAGRAPHS.split(text) if p.strip()]
    venue = ""
    if paragraphs and _is_header(paragraphs[0]):
        header = paragraphs.pop(0)
        venue = venue_from_header(header)
    abstracts: list[str] = []
    for para in paragraphs:
        lines = [line.strip() for line in para.split("\n") if line.strip()]
        if len(lines) > 1 and all(len(line) >= _LONG_LINE for line in lines):
            abstracts.extend(lines)
        else:
            abstracts.append(" ".join(lines))
    return venue, abstracts


def seed_entries(text: str, file_name: str) -> list[Entry]:
    """Entries (papers with base ids) for one seed file's text, in file order.

    Args:
        text: the seed file's text.
        file_name: its name, for each paper's ``source``.
    """
    venue, abstracts = split_seed_text(text)
    entries = []
    for n, raw in enumerate(abstracts, 1):
        try:
            entry = make_entry(raw, venue=venue, source=f"{file_name}#{n}")
        except Exception as exc:  # noqa: BLE001 - one odd paragraph never stops a build
            log.warning("%s#%d: paragraph skipped (%s: %s)", file_name, n, type(exc).__name__, exc)
            continue
        if entry is not None:
            entries.append(entry)
    return entries


def parse_seed_text(text: str, file_name: str) -> list[Paper]:
    """Parse one seed file's text into papers (pure; no file access).

    Args:
        text: the file's content.
        file_name: the name used in ``source`` ("000_254e68ea7beed2d1.txt").

    Returns:
        One ``Paper`` per abstract, in file order, ids unique within this
        text (``load_papers`` makes them unique across files), titles derived.
    """
    entries = seed_entries(text, file_name)
    kept, ids = assign_ids([e.key for e in entries])
    return [with_id(entries[i].paper, pid) for i, pid in zip(kept, ids)]
