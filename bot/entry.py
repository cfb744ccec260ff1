"""The ``paperbot`` console script and ``python -m bot``: quiet while importing.

A Ctrl-C while the CLI was being imported printed a ``KeyboardInterrupt``
traceback from deep inside a library. Until the CLI is imported, Ctrl-C exits
quietly with status 130 (128 + SIGINT, as shells report it); then Python's
usual handler is back and click prints "Aborted!" — also while a command
imports the libraries it needs (the Slack SDK, SQLAlchemy, Whoosh: each
command imports its own, so ``paperbot --help`` starts without them).
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    """Entry point: import ``bot.cli.main`` with a quiet Ctrl-C, then run it."""
    signal.signal(signal.SIGINT, _quiet_exit)
    from bot.cli.main import main as cli_main

    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli_main()


def _quiet_exit(signum, frame) -> None:
    sys.exit(128 + signum)
