"""JSON Lines, JSON and CSV sources (``.gz`` too), streamed record by record.

Fields (docs/interfaces.md "CLI", source formats), case-insensitive for CSV headers: ``id`` or
``_id``; ``title``; ``abstract`` or ``text``; ``authors`` (a list — of names
or of ``{"name": …}`` — or a string "A, B and C" / "A; B"); ``url``;
``categories`` (a list or a space/comma-separated string); ``venue``;
optional ``code_urls``/``code_url``/``code`` and ``doi``. A record without abstract text
is skipped and counted, and so is a line that is not a JSON object — one bad
line never stops a file. Papers with an arXiv id and categories but no url
get ``https://arxiv.org/abs/<id>``. OpenReview notes (also as ``{"notes": [...]}``) and
arXiv metadata snapshot records are read in their own shapes (``bot.corpus.sources``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator

from bot.corpus.assemble import Entry, make_entry
from bot.corpus.errors import CorpusError
from bot.corpus.sources import first_doi, normalise_record

RECORD_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv")
_ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$")
_AUTHOR_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&)\s*")
_CATEGORY_SPLIT = re.compile(r"[\s,;]+")

log = logging.getLogger(__name__)

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


@dataclass
class LoadStats:
    """Counts filled in while loading (pass one to ``load_papers`` to read them).

    Attributes:
        files: files read.
        papers: papers returned (after de-duplication).
        skipped_no_abstract: records (or paragraphs) without abstract text.
        bad_lines: lines that were not a JSON object / unreadable CSV rows.
        duplicates: exact duplicates dropped (same id and same text).
        skipped_files: files in folders ignored for their type (``README.md``).
        notes: one short line per file with skipped or bad records.
        not_accepted: with ``accepted_only``, OpenReview notes left out, by status
            (``{"withdrawn": 3, "rejected": 12, …}``).
    """

    files: int = 0
    papers: int = 0
    skipped_no_abstract: int = 0
    bad_lines: int = 0
    duplicates: int = 0
    skipped_files: int = 0
    notes: list[str] = field(default_factory=list)
    not_accepted: dict[str, int] = field(default_factory=dict)


def record_kind(path: Path) -> str | None:
    """ "jsonl", "json" or "csv" from the name (``x.jsonl.gz`` → "jsonl"), else None."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith(".csv"):
        return "csv"
    return None


def _open(path: Path) -> IO[bytes]:
    try:
        return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")
    except OSError as e:
        raise CorpusError(f"{path}: cannot open ({e.strerror or e})") from e


def _authors(value: object) -> list[str]:
    if isinstance(value, str):
        return [a for a in _AUTHOR_SPLIT.split(value) if a]
    if isinstance(value, (list, tuple)):
        return [str(a.get("name", "")) if isinstance(a, dict) else str(a) for a in value]
    return []


def _listish(value: object) -> list[str]:
    if isinstance(value, str):
        return [c for c in _CATEGORY_SPLIT.split(value) if c]
    if isinstance(value, (list, tuple)):
        return [str(c) for c in value]
    return []


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def record_entry(rec: dict, source: str) -> Entry | None:
    """The ``Entry`` for one parsed record, or None when it has no abstract text.

    Args:
        rec: field name → value (JSON object or CSV row; keys as in the module docstring,
            or an OpenReview note / arXiv snapshot record, see ``bot.corpus.sources``).
        source: ``"<file name>#<line or row number>"``.
    """
    shaped = normalise_record(rec)
    own_shape, rec = shaped is not rec, shaped  # OpenReview/arXiv: keywords are the authors'
    raw = _text(rec.get("abstract")) or _text(rec.get("text"))
    if not raw.strip():
        return None
    sid = rec.get("id", rec.get("_id"))
    sid = None if sid is None or _text(sid).strip() == "" else _text(sid).strip()
    categories = _listish(rec.get("categories"))
    url = _text(rec.get("url")).strip() or None
    if url is None and sid and categories and _ARXIV_ID.match(sid):
        url = f"https://arxiv.org/abs/{sid}"
    code = _listish(rec.get("code_urls") or rec.get("code_url") or rec.get("code"))
    return make_entry(
        raw,
        title=_text(rec.get("title")).strip() or None,
        source_id=sid,
        authors=_authors(rec.get("authors")),
        url=url,
        categories=categories,
        venue=" ".join(_text(rec.get("venue")).split()),
        source=source,
        extra_code_urls=code,
        given_tldr=_text(rec.get("tldr")),
        given_keywords=_listish(rec.get("keywords")) if own_shape else (),
        doi=first_doi(rec.get("doi")),
        status=rec.get("status"),
    )


def _jsonl_items(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(stream, 1):
        if line.strip():
            yield number, line


def _json_items(stream: IO[bytes], stats: LoadStats, path: Path) -> Iterator[tuple[int, object]]:
    data = stream.read()
    start = data.lstrip()[:1]
    if start == b"{":  # an API answer {"notes": [...]} (OpenReview), else JSON Lines
        try:
            whole = json.loads(data)
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("notes"), list):
            yield from enumerate(whole["notes"], 1)
            return
    if start != b"[":
        yield from _jsonl_items(io.BytesIO(data))
        return
    try:
        items = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise CorpusError(f"{path}: not valid JSON ({e})") from e
    yield from enumerate(items, 1)


def _csv_items(stream: IO[bytes], stats: LoadStats) -> Iterator[tuple[int, dict]]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    reader = csv.reader(text)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except (StopIteration, csv.Error):
        return
    number = 1
    while True:
        number += 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error:
            stats.bad_lines += 1
            continue
        if row:
            yield number, dict(zip(header, row))


def raw_items(path: Path, stats: LoadStats) -> Iterator[tuple[int, object]]:
    """The unparsed records of one file: ``(line/row number, JSON line bytes or dict)``.

    Args:
        path: a JSON Lines, JSON or CSV file, maybe gzipped.
        stats: counts what was read (updated).

    Raises:
        CorpusError: the file cannot be opened or read (bad gzip, I/O error),
            has an unsupported type, or is a JSON array that does not parse.
    """
    kind = record_kind(path)
    if kind is None:
        raise CorpusError(f"{path}: unsupported file type (use .txt, .jsonl, .json or .csv, optionally .gz)")
    with _open(path) as stream:
        try:
            if kind == "jsonl":
                yield from _jsonl_items(stream)
            elif kind == "json":
                yield from _json_items(stream, stats, path)
            else:
                yield from _csv_items(stream, stats)
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            raise CorpusError(f"{path}: cannot read ({e})") from e


def entries_from_items(name: str, items: list[tuple[int, object]]) -> tuple[list[Entry], int, int]:
    """Parse a batch of raw items (also run in worker processes).

    Args:
        name: the file name for ``source`` ("arxiv-000.jsonl.gz").
        items: ``(number, JSON line bytes or record dict)`` pairs.

    Returns:
        ``(entries, skipped without abstract, bad lines)``; never raises for a
        bad record.
    """
    entries: list[Entry] = []
    skipped = bad = 0
    for number, item in items:
        if isinstance(item, bytes):
            try:
                item = json.loads(item)
            except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, nesting
                bad += 1
                continue
        if not isinstance(item, dict):
            bad += 1
            continue
        try:
            entry = record_entry(item, f"{name}#{number}")
        except Exception as exc:  # noqa: BLE001 - a record we cannot parse is counted, never fatal
            log.warning("%s#%s: unreadable record skipped (%s: %s)", name, number, type(exc).__name__, exc)
            bad += 1
            continue
        if entry is None:
            skipped += 1
        else:
            entries.append(entry)
    return entries, skipped, bad


def finish_file(path: Path, stats: LoadStats, skipped: int, bad: int) -> None:
    """Count a file as read and note its skipped/bad records (also logged by ``load_papers``).

    Args:
        path: the file read.
        stats: the counts to update.
        skipped: records without an abstract.
        bad: records that could not be read.
    """
    stats.files += 1
    stats.skipped_no_abstract += skipped
    stats.bad_lines += bad
    if skipped or bad:
        stats.notes.append(f"{path.name}: skipped {skipped} without abstract, {bad} unreadable")


def iter_file_entries(path: Path, stats: LoadStats) -> Iterator[Entry]:
    """Stream the entries of one JSON Lines / JSON / CSV file (optionally gzipped), in order.

    Args:
        path: a JSON Lines, JSON or CSV file, maybe gzipped.
        stats: counts what was read and skipped (updated).

    Raises:
        CorpusError: see ``raw_items``.
    """
    skipped = bad = 0
    batch: list[tuple[int, object]] = []
    for item in raw_items(path, stats):
        batch.append(item)
        if len(batch) >= 256:
            entries, s, b = entries_from_items(path.name, batch)
            skipped, bad, batch = skipped + s, bad + b, []
            yield from entries
    entries, s, b = entries_from_items(path.name, batch)
    yield from entries
    finish_file(path, stats, skipped + s, bad + b)
