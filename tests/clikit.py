"""Running the ``paperbot`` CLI in tests: in-process through click's
``CliRunner`` (the default: the same click group, options, environment
lookup, exit codes and output streams, without starting Python), or as a real
``python -m bot`` process for what only a process shows (``.env`` lookup from
the working directory, import-time behaviour, signals).

Both return a ``Ran`` with ``returncode``, ``stdout`` and ``stderr``, so a
test reads the same either way. The in-process runner isolates what a
process would have had to itself: the environment (restored afterwards, also
what ``load_dotenv`` added), the working directory, the root logger's
handlers (so the CLI's ``logging.basicConfig`` takes effect and writes to the
captured stderr) and the SIGINT/SIGTERM handlers. An exception the CLI does
not turn into an exit status propagates and fails the test, so "no
traceback" holds by construction.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from tests.kit import ROOT, SEEDS

#: Variables the CLI reads; the caller's own values never leak into a test.
OWN_PREFIXES = ("SLACK_", "PAPERBOT_", "DATABASE_")


@dataclass(frozen=True)
class Ran:
    """What a CLI run left: exit status, both output streams as text (bytes
    that are not UTF-8 shown as U+FFFD) and stdout's bytes as written."""

    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""


def cli_env(cwd: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a run: ours without ``SLACK_*``/``PAPERBOT_*``/
    ``DATABASE_*``, the seeds, an index and a SQLite file under ``cwd``, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(OWN_PREFIXES)}
    env.update(
        {
            "PAPERBOT_SEEDS": str(SEEDS),
            "PAPERBOT_INDEX_DIR": str(cwd / "index"),
            "DATABASE_URL": f"sqlite:///{cwd / 'cli.db'}",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update(extra or {})
    return env


def run(
    args: list[str],
    cwd: Path,
    stdin: str | bytes | None = None,
    env_extra: dict[str, str] | None = None,
    timeout: float = 120,
) -> Ran:
    """``paperbot *args`` in this process, in ``cwd``, with ``cli_env(cwd, env_extra)``;
    ``stdin`` text is given as UTF-8, bytes as they are. After ``timeout``
    seconds the run gets a Ctrl-C (a command that should have stopped, e.g.
    ``serve`` without its variables, then fails its test instead of hanging)."""
    from bot.cli.main import main

    env = cli_env(cwd, env_extra)
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    root.handlers = []
    main_thread = threading.main_thread().ident
    watchdog = threading.Timer(timeout, signal.pthread_kill, (main_thread, signal.SIGINT))
    watchdog.daemon = True
    watchdog.start()
    try:
        result = CliRunner().invoke(main, args, input=stdin, catch_exceptions=False)
    finally:
        watchdog.cancel()
        for handler in root.handlers:
            handler.close()
        root.handlers, root.level = saved_handlers, saved_level
        for s, handler in saved_signals.items():
            signal.signal(s, handler)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return Ran(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)


def run_process(
    args: list[str], cwd: Path, stdin: str | bytes | None = None, env_extra: dict[str, str] | None = None
) -> Ran:
    """``python -m bot *args`` as a real process in ``cwd`` (timeout 120 s);
    ``stdin`` text is given as UTF-8, bytes as they are."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    r = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=cli_env(cwd, env_extra),
        timeout=120,
    )
    out, err = (b.decode("utf-8", errors="replace") for b in (r.stdout, r.stderr))
    return Ran(r.returncode, out, err, r.stdout)
