"""``--wait``: index writers (``paperbot index build`` / ``add``) wait their
turn instead of failing at once while another build or add holds the index's
lock (``DIR/LOCK``, README "Index layout").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, TypeVar

import click

T = TypeVar("T")
#: The ``--wait SECONDS`` option both index commands take (default 300).
WAIT_OPTION = click.option(
    "--wait",
    "wait",
    default=300.0,
    show_default=True,
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Wait this long for a running build or add on the index to finish.",
)


def in_turn(target: Path, wait: float, attempt: Callable[[], T], gave_up: str = "") -> T:
    """``attempt()``, tried again every ``search.WAIT_POLL_S`` s for up to
    ``wait`` seconds while it raises ``search.IndexBusy`` (another build or
    add holds ``target``'s lock; ``attempt`` must have changed nothing then;
    ``search.take_turn``).

    Says on stderr that it waits (then, on a terminal, redraws the seconds
    waited) and, once through, how long it waited.

    Args:
        target: the index folder whose lock is waited for.
        wait: most seconds to wait.
        attempt: the work; raises ``search.IndexBusy`` while another holds the lock.
        gave_up: added to the error when the wait runs out.

    Raises:
        click.ClickException: still busy after ``wait`` seconds: the lock's
            own message, how long it waited, then ``gave_up``.
    """
    from bot import search  # here, not at the top: `paperbot --help` does not import the search engine

    tty = sys.stderr.isatty()

    def on_wait(so_far: float) -> None:
        if not said:
            said.append(True)
            click.echo(
                f"another index build or add is running on {target}; waiting up to {wait:g} s for it to finish…",
                err=True,
            )
        elif tty:
            click.echo(f"\rwaiting… {so_far:.0f} s", err=True, nl=False)

    said: list[bool] = []
    try:
        result, waited = search.take_turn(attempt, wait, on_wait)
    except search.IndexBusy as e:
        how_long = f" Waited {e.waited_s:.0f} s (--wait SECONDS)." if e.waited_s is not None else ""
        raise click.ClickException(f"{e}{how_long}{gave_up}") from None
    if waited is not None:
        cr = "\r" if tty else ""  # end a redrawn line first
        click.echo(f"{cr}waited {waited:.0f} s for the other build or add", err=True)
    return result
