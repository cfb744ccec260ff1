"""The Slack-facing CLI commands: ``serve``, ``socket``, ``clock``, ``digest send``.

Kept apart from ``bot.cli.main`` so that module stays small; each command checks
its required variables first (one line, exit 2), then hands over to the
composition root ``bot.runtime.processes`` (docs/architecture.md "Layers").
"""

from __future__ import annotations

import sys

import click


def _run(fn, *args, **kwargs):
    """Call a runtime entry point; a ``StartupError`` becomes one line, exit 1.

    ``SocketModeDisabled`` (Slack switched Socket Mode off) exits 1 too; its
    one ERROR line was already logged (``bot.slack.transport.socket_mode.run_socket``).
    """
    from bot.runtime.processes import StartupError
    from bot.slack.transport.socket_mode import SocketModeDisabled

    try:
        return fn(*args, **kwargs)
    except StartupError as e:
        click.echo(str(e), err=True)
        sys.exit(1)
    except SocketModeDisabled:
        sys.exit(1)


def register(main: click.Group, settings_fn, require_fn) -> None:
    """Attach the Slack commands to the ``paperbot`` group.

    Args:
        main: the ``paperbot`` click group.
        settings_fn: returns the ``Settings`` (read from the environment).
        require_fn: checks that settings a command needs are present (click errors otherwise).
    """

    @main.command()
    @click.option("--port", type=int, default=None, help="HTTP port (default: PORT, else 3000).")
    @click.option("--host", default="0.0.0.0", show_default=True, help="Interface to listen on.")
    def serve(port: int | None, host: str) -> None:
        """Serve Slack over HTTP (POST /slack/events); never runs the clock.

        Routes: POST /slack/events (Slack's requests), GET /healthz.

        Example: paperbot serve --port 3000
        """
        settings = settings_fn()
        require_fn(settings, "serve")
        from bot.runtime import processes

        _run(processes.serve, settings, host=host, port=port if port is not None else settings.port)

    @main.command()
    @click.option("--no-clock", is_flag=True, help="Do not run the daily digest scheduler in this process.")
    def socket(no_clock: bool) -> None:
        """Connect over Socket Mode; runs the clock too unless --no-clock.

        Example: paperbot socket
        """
        settings = settings_fn()
        require_fn(settings, "socket")
        from bot.runtime import processes

        _run(processes.socket, settings, with_clock=not no_clock)

    @main.command()
    def clock() -> None:
        """Run the digest scheduler alone (the Procfile's clock process).

        Example: paperbot clock
        """
        settings = settings_fn()
        require_fn(settings, "clock")
        from bot.runtime import processes

        _run(processes.clock, settings)

    @main.group()
    def digest() -> None:
        """Post the paper of the day by hand.

        Example: paperbot digest send
        """

    @digest.command("send")
    @click.option(
        "--date",
        "day",
        type=click.DateTime(formats=["%Y-%m-%d"]),
        default=None,
        help="Post this date's paper (default: each channel's local today).",
    )
    @click.option("--force", is_flag=True, help="Allow dates other than a channel's today or yesterday.")
    def digest_send(day, force: bool) -> None:
        """Post a date's papers now to every subscription that has not had them.

        Example: paperbot digest send --date 2027-01-05 --force
        """
        settings = settings_fn()
        require_fn(settings, "digest", "digest send")
        from bot.runtime import processes

        try:
            summary = _run(processes.digest_send, settings, day.date() if day else None, force)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
        click.echo(str(summary))
        sys.exit(1 if summary.stopped or summary.failed else 0)
