"""The progress line of ``paperbot index build`` on a terminal (stderr), kept
apart from ``bot.cli.main`` so that module stays small (docs/architecture.md "Layers":
an entry-point module, click only).
"""

from __future__ import annotations

import sys
import time

import click


def progress(label: str):
    """A progress display on a terminal (stderr), else silent.

    Returns ``(update, done)``: ``update(n_done, total)`` redraws one line —
    "reading the sources…" until the first call, then a bar with the elapsed
    seconds, and once every paper is in, a note that the index files are
    being written (a quarter of a large build); ``done()`` ends the line.
    """
    if not sys.stderr.isatty():
        return None, lambda: None
    started = time.monotonic()
    click.echo("reading the sources…", err=True, nl=False)

    def update(done: int, total: int | None = None) -> None:
        secs = f"{time.monotonic() - started:.0f} s"
        if total:
            width = 30
            filled = int(width * done / max(total, 1))
            tail = " · writing the index files…" if done >= total else ""
            line = f"{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {secs}{tail}"
        else:
            line = f"{label} {done} papers {secs}"
        click.echo(f"\r{line:<79}", err=True, nl=False)

    return update, lambda: click.echo("", err=True)
