"""Shared output of the benchmark scripts: print the text report and, with
``--out FILE``, write it and its JSON twin (``FILE`` with ``.json``)."""

from __future__ import annotations

import json
from pathlib import Path


def publish(lines: list[str], out: Path | None, data: dict) -> None:
    """Print ``lines`` as the report; when ``out`` is set, write the report there
    and ``data`` as indented JSON next to it."""
    report = "\n".join(lines) + "\n"
    print(report)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report, encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
