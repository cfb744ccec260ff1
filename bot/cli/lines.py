"""Byte-safe lines for the batch CLI (``paperbot search -``, ``--json``).

Input is read as bytes and split on ``b"\\n"`` only (a ``b"\\r"`` before it,
from a CRLF file, is dropped; inside a line, each run of spaces, tabs,
``\\r``, ``\\v`` and ``\\f`` becomes one space, as a Slack command's
whitespace does; any other byte stays in the query). Invalid
UTF-8 is replaced with U+FFFD and the line gets a note saying so, so every
input line gives exactly one output line. Output JSON is UTF-8 with U+0085,
U+2028 and U+2029 escaped: JSON allows them raw inside strings, but line
readers that honour them (Python's ``str.splitlines``, JavaScript before
ES2019) would split one result into two (https://www.rfc-editor.org/rfc/rfc8259#section-7,
https://docs.python.org/3/library/stdtypes.html#str.splitlines).
"""

from __future__ import annotations

import json
import re
import sys
from typing import BinaryIO, Iterator

from bot.cli.json_shapes import error_json, page_json
from bot.core.models import QueryError

#: Characters some line readers split on that ``json.dumps`` leaves raw.
LINE_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
#: The note a line gets when its bytes were not valid UTF-8.
REPLACED = "The query was not valid UTF-8; the invalid bytes were replaced with \ufffd."
#: ASCII whitespace runs inside a query (collapsed to one space).
_SPACES = re.compile(r"[ \t\r\v\f]+")


def read_lines(stream: BinaryIO) -> Iterator[tuple[str, str | None]]:
    """``(text, note)`` per line of ``stream``: split on ``b"\\n"`` only, one
    trailing ``b"\\r"`` dropped, decoded as UTF-8; ``note`` is ``REPLACED``
    when invalid bytes were replaced, else None. Blank lines are yielded."""
    for raw in stream:  # a binary stream's lines end at b"\n" only
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if line.endswith(b"\r"):
            line = line[:-1]
        yield decode(line)


def decode(data: bytes) -> tuple[str, str | None]:
    """``(text, note)``: ``data`` as UTF-8, invalid sequences replaced (note
    ``REPLACED``), ASCII whitespace runs collapsed to one space and trimmed."""
    try:
        text, note = data.decode("utf-8"), None
    except UnicodeDecodeError:
        text, note = data.decode("utf-8", errors="replace"), REPLACED
    return _SPACES.sub(" ", text).strip(" "), note


def from_argv(text: str) -> tuple[str, str | None]:
    """``(text, note)`` for a command-line argument: bytes that were not UTF-8
    reach Python as lone surrogates (PEP 383), which cannot be printed."""
    return decode(argv_bytes(text))


def argv_bytes(text: str) -> bytes:
    """The bytes a command-line argument was made from (PEP 383 surrogates
    back to their bytes; a surrogate that no byte made is kept as invalid
    UTF-8, which ``decode`` reads as U+FFFD)."""
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="surrogatepass")


def json_line(obj) -> bytes:
    """``obj`` as one line of UTF-8 JSON (``b"\\n"`` included), with
    ``LINE_BREAKS`` escaped."""
    text = json.dumps(obj, ensure_ascii=False)
    for char, escaped in LINE_BREAKS.items():
        text = text.replace(char, escaped)
    return text.encode("utf-8", errors="replace") + b"\n"


def print_json(obj: dict, note: str | None = None) -> None:
    """Write ``obj`` (with ``"note": note`` when given) to stdout as one
    ``json_line``, flushed, whatever the locale's encoding.

    Args:
        obj: a JSON-serialisable dict.
        note: a note on the input (``REPLACED``), or None.
    """
    sys.stdout.flush()
    sys.stdout.buffer.write(json_line({**obj, "note": note} if note else obj))
    sys.stdout.buffer.flush()


def print_related(index, data: bytes, limit: int) -> int:
    """``paperbot search --related``: ``data`` (all of stdin) as one text,
    ``index.related(text)`` printed as one JSON object — the search contract
    plus ``notes`` (a paper the text links to comes first, named there), or
    an error object. Returns the exit status (1 for a text with no words).

    Args:
        index: the search index (``related``).
        data: all of stdin, or the arguments' bytes.
        limit: most papers.
    """
    text, note = decode(data)
    try:
        page = index.related(text, limit=limit)
    except QueryError as e:
        print_json(error_json(text[:200], e.message), note)
        return 1
    print_json({**page_json(page), "notes": list(page.notes)}, note)
    return 0
