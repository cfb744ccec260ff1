"""The command line reads like the README (issue 19 point 8): every word after
``paperbot search`` that is not one of its options is the query, ``-word`` included,
wherever it stands; ``paperbot --help`` lists each command with its whole one-line
summary. Run as a real ``python -m bot`` process on a real index of the seeds."""

from __future__ import annotations

import json
import re

import click
import pytest

from tests.clikit import run, run_process


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli-words")
    r = run(["index", "build"], d)
    assert r.returncode == 0, r.stderr
    return d


def ids(ran) -> list[str]:
    return [hit["id"] for hit in json.loads(ran.stdout)["results"]]


def test_a_minus_word_after_the_query_excludes_it(cli_dir):
    everything = run_process(["search", "--json", "--limit", "100", "attention"], cli_dir)
    sparse = set(ids(run_process(["search", "--json", "--limit", "100", "sparse"], cli_dir)))
    assert set(ids(everything)) & sparse, "the seeds have papers about sparse attention"
    for args in (
        ["search", "attention", "-sparse", "--json"],  # the README's form, options after
        ["search", "--json", "attention", "-sparse"],
        ["search", "--json", "--", "attention", "-sparse"],  # `--` still ends the options
        ["search", "attention", "--limit", "3", "-sparse", "--json"],
    ):
        r = run_process(args, cli_dir)
        assert r.returncode == 0 and "No such option" not in r.stderr, (args, r.stderr)
        out = json.loads(r.stdout)
        assert out["query"] == "attention -sparse"
        assert ids(r) and not set(ids(r)) & sparse
    limited = run_process(["search", "attention", "--limit", "2", "-sparse", "--json"], cli_dir)
    assert len(ids(limited)) == 2


def test_a_minus_word_with_the_letter_of_an_option_is_still_a_word(cli_dir):
    r = run_process(["search", "attention", "-hidden", "--json"], cli_dir)  # -h is --help
    assert r.returncode == 0 and json.loads(r.stdout)["query"] == "attention -hidden"


def test_a_mistyped_long_option_is_still_an_error(cli_dir):
    r = run_process(["search", "--jsn", "attention"], cli_dir)
    assert r.returncode == 2 and "No such option" in r.stderr and "Traceback" not in r.stderr


def summaries(help_text: str) -> dict[str, str]:
    """``{command: summary}`` from the "Commands:" section of a help page (wrapped lines joined)."""
    section = help_text.split("Commands:", 1)[1]
    out: dict[str, str] = {}
    name = None
    for line in section.splitlines():
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2).strip()
        elif name and line.strip():
            out[name] += " " + line.strip()
    return out


def first_paragraph(command: click.Command) -> str:
    return " ".join((command.help or "").split("\f")[0].strip().split("\n\n")[0].split())


@pytest.mark.parametrize("group_path", [[], ["index"], ["digest"]], ids=["paperbot", "index", "digest"])
def test_help_lists_each_commands_whole_summary_on_one_line(cli_dir, group_path):
    from bot.cli.main import main

    group = main
    for name in group_path:
        group = group.commands[name]
    r = run_process([*group_path, "--help"], cli_dir, env_extra={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    listed = summaries(r.stdout)
    assert set(listed) == set(group.commands)
    for name, command in group.commands.items():
        assert listed[name] == first_paragraph(command), name  # whole: not cut to a sentence or "..."
    lines = r.stdout.split("Commands:", 1)[1].strip().splitlines()
    assert len(lines) == len(group.commands)  # one line each in 80 columns
