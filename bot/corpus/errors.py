"""The corpus package's one exception type."""

from __future__ import annotations


class CorpusError(Exception):
    """Input the corpus loader cannot read: missing, unreadable or unsupported.

    The message is short and user-facing, e.g. ``"seeds/x.pdf: unsupported
    file type (use .txt, .jsonl, .json, .csv, optionally .gz)"``.
    """
