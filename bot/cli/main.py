"""``paperbot`` command line (also ``python -m bot``): thin wrappers over the library.

Each command parses options, builds objects through ``bot.runtime.wiring`` and turns
library errors into one clear line (``click.ClickException``, exit 1) or, for
missing Slack variables, one line and exit status 2 (docs/interfaces.md
"Environment variables"). Option > environment variable > default. ``.env`` is found
from the working directory. The only module that reads ``os.environ``
(docs/architecture.md "Layers").
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from dotenv import dotenv_values, find_dotenv, load_dotenv

from bot.cli.command_line import Commands, QueryCommand
from bot.cli.wait import WAIT_OPTION
from bot.core import config

if TYPE_CHECKING:
    from bot import corpus, search

# The index, the store, the search engine, Slack's SDK, numpy and scikit-learn are
# imported inside the commands that use them, not here: `paperbot --help`, a mistyped
# command and the light commands start without them (about 0.7 s of imports;
# benchmarks/cli_start.py, benchmarks/results/cli_start.txt).

#: ``--index DIR`` of the index and search commands (default ``PAPERBOT_INDEX_DIR``).
index_option = click.option(
    "--index", "index_dir", type=click.Path(path_type=Path), help="Index directory (default PAPERBOT_INDEX_DIR)."
)


def _settings() -> config.Settings:
    """``Settings`` from the environment, with each value's source (``Settings.sources``)."""
    try:
        settings = config.from_env(os.environ)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    ctx = click.get_current_context(silent=True)
    # Where each value came from, for the start-up line of serve/socket/clock (bot.runtime.processes).
    return replace(settings, sources=dict((ctx.obj if ctx is not None else None) or {}))


def _load_dotenv() -> dict[str, str]:
    """Load ``.env`` (found from the working directory; the environment wins) and
    return each variable's source: "environment", ".env" or "default"."""
    before = {name for name in config.VARIABLES if (os.environ.get(name) or "").strip()}
    path = find_dotenv(usecwd=True)
    load_dotenv(path)
    in_file = set(dotenv_values(path)) if path else set()
    return {
        name: "environment"
        if name in before
        else ".env"
        if name in in_file and (os.environ.get(name) or "").strip()
        else "default"
        for name in config.VARIABLES
    }


def _require(settings: config.Settings, command: str, shown: str | None = None) -> None:
    try:
        settings.require(command)
    except config.MissingSettings as e:
        click.echo(
            f"paperbot {shown or command}: missing {', '.join(e.names)} (set in the environment or .env; "
            f"see .env.example). To try the bot without Slack, run: paperbot console",
            err=True,
        )
        sys.exit(2)
    except config.ModeRefused as e:
        click.echo(f"paperbot {shown or command}: {e}", err=True)
        sys.exit(2)


def _stop_on_sigterm() -> None:
    """Make SIGTERM (docker stop, systemd) unwind like Ctrl-C, so a build's
    cleanup runs: worker processes are stopped and the lock is released."""
    import signal

    parent = os.getpid()

    def handler(signum, frame):
        if os.getpid() != parent:  # a forked build worker being stopped: exit quietly
            os._exit(128 + signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


#: Long-running commands: their log lines carry time and logger name.
SERVER_COMMANDS = ("serve", "socket", "clock", "digest")


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("-v", "--verbose", is_flag=True, help="Log more (INFO) to stderr.")
def main(verbose: bool) -> None:
    """paperbot: search a conference's papers from Slack (or the console).

    Example: paperbot console
    """
    click.get_current_context().obj = _load_dotenv()
    # Servers log with time and source; one-shot commands print plain notes
    # ("WARNING: papers.jsonl: skipped 1 without abstract, 0 unreadable").
    server = click.get_current_context().invoked_subcommand in SERVER_COMMANDS
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s" if server or verbose else "%(levelname)s: %(message)s",
    )


@main.command()
def console() -> None:
    """Run the bot in the terminal on /paper and @paperbot lines.

    Reads the lines from stdin.

    Example: echo "/paper search image steganography" | paperbot console
    """
    from bot import corpus, search
    from bot.cli.console import ConsolePoster, run
    from bot.runtime import wiring
    from bot.store import StoreError

    settings = _settings()
    # Input is read as UTF-8 whatever the locale, bytes that are not UTF-8
    # becoming U+FFFD (as `search -` does, bot/cli/lines.py); nothing read yet,
    # so the encoding may still change. Output a terminal cannot show is replaced too.
    for stream, how in ((sys.stdin, {"encoding": "utf-8", "errors": "replace"}), (sys.stdout, {"errors": "replace"})):
        if hasattr(stream, "reconfigure"):  # not when closed (None) or replaced
            stream.reconfigure(**how)

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        service = wiring.build_service(settings, ConsolePoster(write))
        service.index.warm()
    except (corpus.CorpusError, search.IndexBusy, search.IndexMissing, wiring.IndexUnwritable, StoreError) as e:
        raise click.ClickException(str(e)) from None
    sys.exit(run(service, sys.stdin, write, interactive=sys.stdin.isatty()))


ACCEPTED_HELP = (
    "Keep only accepted OpenReview notes (by venueid/venue); leave out withdrawn, "
    "rejected, desk-rejected and submitted-only ones. Other sources are kept."
)


@main.group()
def index() -> None:
    """Build or update the search index.

    Example: paperbot index build --source seeds/
    """


@index.command("build")
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Seed text file or folder, JSON Lines or CSV (.gz too). Repeatable. Default: PAPERBOT_SEEDS.",
)
@index_option
@click.option("--accepted-only", is_flag=True, help=ACCEPTED_HELP)
@WAIT_OPTION
def index_build(sources: tuple[Path, ...], index_dir: Path | None, accepted_only: bool, wait: float) -> None:
    """Build a new index generation and switch to it atomically.

    Example: paperbot index build --source corpus.jsonl --index /tmp/idx
    \f
    Args:
        sources: the paper files (none: the seeds).
        index_dir: the index folder (None: the default one).
        accepted_only: leave out papers not accepted at their venue.
        wait: most seconds to wait for another build or add on the folder.
    """
    from bot import corpus, search
    from bot.cli.progress import progress
    from bot.cli.wait import in_turn
    from bot.runtime import wiring

    settings = _settings()
    _stop_on_sigterm()
    paths = list(sources) or wiring.seed_paths(settings)
    if not sources and not any(p.exists() for p in paths):
        raise click.ClickException(wiring.no_seeds(settings, index=False))
    target = index_dir or settings.index_dir
    update, done = progress("indexing")
    # Sources are read inside the build's lock, so an `index add` cannot slip in
    # between reading and switching CURRENT (and be lost).
    source = wiring.LazyPapers(paths, accepted_only=accepted_only)
    try:
        fingerprint = corpus.seeds_fingerprint(paths) if not (sources or accepted_only) else None
        gen = in_turn(
            target,
            wait,
            lambda: search.build_index(
                target,
                source,
                fingerprint=fingerprint,
                progress=(lambda n: update(n, source.total)) if update else None,
            ),
        )
    except click.ClickException:
        done()
        raise
    except (corpus.CorpusError, ValueError) as e:
        done()
        raise click.ClickException(str(e)) from None
    except search.WorkerFailed as e:
        done()
        raise click.ClickException(f"the index build failed ({e}); the old index is untouched") from None
    except OSError as e:
        done()
        raise click.ClickException(wiring.write_error(target, e)) from None
    done()
    click.echo(f"indexed {_plural(source.total, 'paper')} into {target / gen}{_left_out(source.stats)}")


@index.command("add")
@click.option(
    "--source",
    "sources",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="File or folder to add (same formats as build). Repeatable.",
)
@index_option
@click.option("--accepted-only", is_flag=True, help=ACCEPTED_HELP)
@WAIT_OPTION
def index_add(sources: tuple[Path, ...], index_dir: Path | None, accepted_only: bool, wait: float) -> None:
    """Add or update documents without a full rebuild.

    Example: paperbot index add --source new-papers.jsonl
    \f
    Args:
        sources: the paper files or folders to add (at least one).
        index_dir: the index folder (None: the default one).
        accepted_only: leave out papers not accepted at their venue.
        wait: most seconds to wait for another build or add on the folder.
    """
    from bot import corpus, search
    from bot.cli.wait import in_turn
    from bot.runtime import wiring

    settings = _settings()
    _stop_on_sigterm()
    target = index_dir or settings.index_dir
    try:
        stats = corpus.LoadStats()
        papers = corpus.load_papers(list(sources), stats=stats, accepted_only=accepted_only)
        created, n = in_turn(
            target,
            wait,
            lambda: (not search.has_index(target), search.add_to_index(target, papers)),
            " Nothing was added.",
        )
    except (corpus.CorpusError, search.IndexMissing, ValueError) as e:
        raise click.ClickException(str(e)) from None
    except OSError as e:
        raise click.ClickException(wiring.write_error(target, e)) from None
    if created:
        click.echo(f"there was no index in {target}: created one with {_plural(n, 'paper')}{_left_out(stats)}")
    else:
        click.echo(f"added or updated {_plural(n, 'paper')} in {target}{_left_out(stats)}")


def _left_out(stats: corpus.LoadStats) -> str:
    """`` (left out as not accepted: 12 rejected, 3 withdrawn)`` or ""."""
    from bot import corpus

    summary = corpus.not_accepted_summary(stats)
    return f" (left out as not accepted: {summary})" if summary else ""


@main.command("search", cls=QueryCommand)
@index_option
@click.option(
    "--limit", default=10, show_default=True, type=click.IntRange(1, 100), help="Results to print (at most 100)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per query (see README).")
@click.option(
    "--related",
    is_flag=True,
    help="QUERY... (or all of stdin, with no QUERY or \"-\") is one text; print one "
    "JSON object of the papers most like it.",
)
@click.argument("query", nargs=-1)
def search_cmd(index_dir: Path | None, limit: int, as_json: bool, related: bool, query: tuple[str, ...]) -> None:
    """Search the index: all words but options are the query, -word too.

    QUERY "-" reads one query per line from stdin.

    Example: paperbot search --json speculative decoding -draft
    \f
    Args:
        index_dir: the index folder (None: the default one, built when its seeds changed).
        limit: results per query.
        as_json: one JSON object per query instead of text.
        related: the words (or all of stdin) are one text; its related papers as one JSON object.
        query: the query words, or "-" for one query per line of stdin.
    """
    if not query and not related:
        raise click.UsageError("Give a QUERY, \"-\" to read queries from stdin, or --related.")
    from bot.cli import lines

    idx = _open_index(index_dir)
    text = " ".join(query)
    if related:  # the words, or all of stdin, are one text: one JSON object (bot/cli/lines.py)
        data = sys.stdin.buffer.read() if text in ("", "-") else lines.argv_bytes(text)
        sys.exit(lines.print_related(idx, data, limit))
    batch = text == "-"
    # The first query after start pays no opening; the page cache is read ahead only for
    # a batch, where more queries follow (docs/search.md "Speed").
    idx.warm(read_ahead=batch)
    # Any bytes in, one line out per b"\n"-ended input line (bot/cli/lines.py).
    queries = lines.read_lines(sys.stdin.buffer) if batch else [lines.from_argv(text)]
    refused = False
    for q, note in queries:
        refused |= not _print_answer(idx, q, note, limit, as_json, batch)
    sys.exit(1 if refused and not batch else 0)  # in a batch, a refused query is one line of the output


def _open_index(index_dir: Path | None) -> search.SearchIndex:
    """The index at ``index_dir`` (None: the default one, built when its seeds changed)."""
    from bot import corpus, search
    from bot.runtime import wiring

    settings = _settings()
    try:
        if index_dir is None:
            wiring.ensure_default_index(settings)
        return search.SearchIndex(index_dir or settings.index_dir)
    except (corpus.CorpusError, search.IndexBusy, search.IndexMissing, wiring.IndexUnwritable) as e:
        raise click.ClickException(str(e)) from None


def _print_answer(idx: search.SearchIndex, q: str, note: str | None, limit: int, as_json: bool, batch: bool) -> bool:
    """Print the answer to one query (in a batch, headed by the query it answers, on stdout
    like the others); False when the query could not run."""
    from bot import search
    from bot.cli import lines
    from bot.cli.json_shapes import error_json, page_json
    from bot.core.models import QueryError

    try:
        page = idx.search(q, limit=limit)
    except QueryError as e:
        if as_json:
            lines.print_json(error_json(q, e.message), note)
        else:
            if batch:
                click.echo(f"== {q}")
            click.echo(f"{note + ' ' if note else ''}{e.message} Example: {e.example}", err=not batch)
        return False
    except search.IndexMissing as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        lines.print_json(page_json(page), note)
    else:
        if batch:
            click.echo(f"== {q}")
        if note:
            click.echo(note)
        _print_page(page)
    return True


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _print_page(page) -> None:
    from bot.render import counts

    for note in page.notes:
        click.echo(note)
    if page.corrected_query:
        click.echo(f"Showing results for {page.corrected_query}; search instead for {page.query}")
    elif page.suggestion:
        click.echo(f"Did you mean {page.suggestion}?")
    click.echo(f"{counts.plain_count(page)} ({page.took_ms:.1f} ms)")
    divider = counts.divider_at(page)
    for i, hit in enumerate(page.hits, 1):
        if i - 1 == divider:
            click.echo(counts.SOME_WORDS)
        click.echo(f"{i:>3}. [{hit.paper.id}] {hit.paper.title}\n     {hit.snippet}")


from bot.cli import serving  # noqa: E402  (registers serve, socket, clock, digest)

serving.register(main, _settings, _require)
