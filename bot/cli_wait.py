"""``--wait``: index writers (``paperbot index build`` / ``add``) wait their
turn instead of failing at once while another build or add holds the index's
lock (``DIR/LOCK``, README "Index layout").
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable, TypeVar

import click

from bot import search

T = TypeVar("T")
#: Seconds between tries of a busy index's lock.
WAIT_POLL_S = 0.25
#: The ``--wait SECONDS`` option both index commands take (default 300).
WAIT_OPTION = click.option("--wait", "wait", default=300.0, show_default=True, type=click.FloatRange(min=0),
                           metavar="SECONDS",
                           help="Wait this long for a running build or add on the index to finish.")


def in_turn(target: Path, wait: float, attempt: Callable[[], T], gave_up: str = "") -> T:
    """``attempt()``, tried again every ``WAIT_POLL_S`` s for up to ``wait``
    seconds while it raises ``search.IndexBusy`` (another build or add holds
    ``target``'s lock; ``attempt`` must have changed nothing then).

    Says on stderr that it waits (then, on a terminal, redraws the seconds
    waited) and, once through, how long it waited.

    Raises:
        click.ClickException: still busy after ``wait`` seconds: the lock's
            own message, how long it waited, then ``gave_up``.
    """
    started, waited = time.monotonic(), None
    tty = sys.stderr.isatty()
    cr = "\r" if tty else ""      # end a redrawn line first
    while True:
        try:
            result = attempt()
        except search.IndexBusy as e:
            so_far = time.monotonic() - started
            if so_far >= wait:
                how_long = f" Waited {so_far:.0f} s (--wait SECONDS)." if waited is not None else ""
                raise click.ClickException(f"{e}{how_long}{gave_up}") from None
            if waited is None:
                click.echo(f"another index build or add is running on {target}; "
                           f"waiting up to {wait:g} s for it to finish…", err=True)
            elif tty:
                click.echo(f"\rwaiting… {so_far:.0f} s", err=True, nl=False)
            waited = so_far
            time.sleep(min(WAIT_POLL_S, wait - so_far))
            continue
        if waited is not None:
            click.echo(f"{cr}waited {waited:.0f} s for the other build or add", err=True)
        return result
