"""How ``paperbot`` reads its command line, as the README shows it (issue 19 point 8).

- ``Commands``: the ``paperbot`` group (and its sub-groups) lists each command with its whole
  one-line summary — the first paragraph of its help — where click would cut it to the first
  sentence and to the terminal's width (``click.Command.get_short_help_str``).
- ``QueryCommand``: ``paperbot search`` reads every word that is not one of its options as the
  query, ``-word`` (an exclusion, docs/search.md) included, wherever it stands:
  ``paperbot search attention -sparse --limit 3`` searches ``attention -sparse``. A word
  starting with ``--`` is still read as an option, so a mistyped ``--jsn`` gets click's
  "No such option" instead of being searched; ``--`` ends the options, as everywhere.

click's own settings (``ignore_unknown_options``) would not do: a ``-word`` holding the
letter of a known short option (``-hidden``: ``-h``) would still run that option.
"""

from __future__ import annotations

import click


def summary(command: click.Command) -> str:
    """The first paragraph of ``command``'s help on one line ("" without help)."""
    text = (command.help or "").split("\f", 1)[0].strip()
    return " ".join(text.split("\n\n", 1)[0].split())


class SummaryCommand(click.Command):
    """A command listed with its whole summary (``summary``)."""

    def get_short_help_str(self, limit: int = 45) -> str:
        """The whole first paragraph of the help, whatever ``limit`` (click's listing width) is."""
        return self.short_help or summary(self)


class Commands(click.Group):
    """A group whose commands and sub-groups are listed with their whole summaries."""

    command_class = SummaryCommand
    group_class = type  # sub-groups are ``Commands`` too

    def get_short_help_str(self, limit: int = 45) -> str:
        """The whole first paragraph of the help, whatever ``limit`` is."""
        return self.short_help or summary(self)


def options_first(args: list[str], params: list[click.Parameter]) -> list[str]:
    """``args`` with the options (and their values) first, then ``--`` and every other word.

    Args:
        args: the command's arguments as typed (``["attention", "-sparse", "--limit", "3"]``).
        params: the command's parameters (``click.Command.get_params``).

    Returns:
        e.g. ``["--limit", "3", "--", "attention", "-sparse"]``. A word after ``--`` is a
        word; ``-`` alone is a word.
    """
    takes_value: dict[str, bool] = {}
    for param in params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                takes_value[name] = not param.is_flag and not param.count
    options: list[str] = []
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            words += list(rest)
            break
        name = arg.split("=", 1)[0]
        if arg.startswith("--") or arg in takes_value:
            options.append(arg)
            value = next(rest, None) if takes_value.get(name) and "=" not in arg else None
            if value is not None:
                options.append(value)
        else:
            words.append(arg)
    return options + (["--", *words] if words else [])


class QueryCommand(SummaryCommand):
    """A command whose words that are not its options are all its arguments (``options_first``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Put the options first, then ``--`` and the words, and let click parse that.

        Args:
            ctx: the command's context.
            args: the arguments as typed.
        """
        return super().parse_args(ctx, options_first(args, self.get_params(ctx)))
