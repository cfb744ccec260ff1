"""The ``paperbot`` CLI as a user runs it, on real files: in-process through
click's ``CliRunner`` (``tests.clikit.run``), and as a real ``python -m bot``
process for what only a process shows — a piped console session, ``--help``
through ``python -m bot``, ``.env`` found from the working directory, and a
quiet Ctrl-C while importing."""

import json
import os
import subprocess
import sys

import pytest

from tests.clikit import run, run_process
from tests.kit import ROOT


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    r = run(["index", "build"], d)
    assert r.returncode == 0, r.stderr
    return d


def test_console_piped_prints_kistego_first(cli_dir):
    r = run_process(["console"], cli_dir, stdin="/paper search image steganography\n")
    assert r.returncode == 0, r.stderr
    first = next(line for line in r.stdout.splitlines() if line.startswith("*1. "))
    assert "KIStego" in first
    assert "Traceback" not in r.stdout + r.stderr


def test_console_mention_more_and_bad_input(cli_dir):
    lines = "@paperbot KIStego\n/paper search language models\nmore\n/paper search (((\n/paper similar UniSparse\n"
    r = run(["console"], cli_dir, stdin=lines)
    assert r.returncode == 0 and "Traceback" not in r.stdout + r.stderr
    assert "(reply in thread)" in r.stdout and "KIStego" in r.stdout
    assert "Showing 6–" in r.stdout  # `more` moved to the next page
    assert "⚠ " in r.stdout and ":warning:" not in r.stdout and "Papers like" in r.stdout


def test_search_json_contract(cli_dir):
    r = run(["search", "--json", "speculative decoding"], cli_dir)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"query", "total", "took_ms", "suggestion", "corrected_query", "results"}
    first = out["results"][0]
    assert first["name"] == "SpecForge"
    assert set(first) == {
        "id",
        "source_id",
        "title",
        "title_derived",
        "name",
        "authors",
        "venue",
        "url",
        "score",
        "snippet",
        "abstract",
        "code_urls",
    }
    assert first["venue"] == "ICML 2026" and first["title_derived"] is True and "*" in first["snippet"]
    scores = [x["score"] for x in out["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_stdin_one_json_line_per_query(cli_dir):
    r = run(["search", "--json", "--limit", "3", "-"], cli_dir, stdin="chess\n(((\n\nsteganografy\n")
    lines = r.stdout.splitlines()
    assert len(lines) == 4
    docs = [json.loads(x) for x in lines]
    assert "error" in docs[1] and docs[1]["query"] == "((("
    assert len(docs[0]["results"]) <= 3
    assert docs[3]["corrected_query"] and docs[3]["results"][0]["name"] == "KIStego"


@pytest.mark.parametrize(
    "command,names",
    [
        ("serve", "SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET"),
        ("socket", "SLACK_BOT_TOKEN, SLACK_APP_TOKEN"),
        ("clock", "SLACK_BOT_TOKEN"),
    ],
)
def test_missing_slack_variables_one_line_exit_2(tmp_path, monkeypatch, command, names):
    from bot.runtime import processes

    for started in ("serve", "socket", "clock"):  # a regression fails here instead of serving forever
        monkeypatch.setattr(processes, started, lambda *a, **k: pytest.fail("started without its variables"))
    r = run([command], tmp_path, env_extra={"SLACK_BOT_TOKEN": ""})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and names in r.stderr and "paperbot console" in r.stderr
    assert "Traceback" not in r.stderr


def test_dotenv_found_from_working_directory(tmp_path):
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-dotenv\n")
    r = run_process(["serve"], tmp_path)
    assert r.returncode == 2 and "SLACK_SIGNING_SECRET" in r.stderr and "SLACK_BOT_TOKEN" not in r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == ""  # a real process prints nothing else


def test_build_from_jsonl_and_explicit_index_is_never_auto_built(tmp_path):
    src = tmp_path / "papers.jsonl"
    src.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": f"x{i}",
                    "title": f"Paper {i} on graph coloring",
                    "abstract": f"We colour graphs number {i} quickly.",
                    "authors": ["Ada Lovelace"],
                }
            )
            for i in range(5)
        )
    )
    r = run(["index", "build", "--source", str(src), "--index", str(tmp_path / "idx")], tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(run(["search", "--index", str(tmp_path / "idx"), "--json", "graph"], tmp_path).stdout)
    assert out["total"] == 5 and out["results"][0]["source_id"].startswith("x")
    assert out["results"][0]["authors"] == ["Ada Lovelace"]
    r = run(["search", "--index", str(tmp_path / "nowhere"), "--json", "graph"], tmp_path)
    assert r.returncode != 0 and "Traceback" not in r.stderr and not (tmp_path / "nowhere" / "CURRENT").exists()
    assert f"paperbot index build --index {tmp_path / 'nowhere'}" in r.stdout + r.stderr


def test_index_add_says_when_it_creates_an_index_and_notes_are_plain(tmp_path):
    src = tmp_path / "add.jsonl"
    src.write_text(
        json.dumps({"id": "a1", "abstract": "Robots fold laundry."})
        + "\n"
        + json.dumps({"id": "a2", "abstract": ""})
        + "\n"
    )
    r = run(["index", "add", "--source", str(src), "--index", str(tmp_path / "typo")], tmp_path)
    assert r.returncode == 0 and r.stdout.startswith(f"there was no index in {tmp_path / 'typo'}")
    assert r.stderr.startswith("WARNING: add.jsonl: skipped 1 without abstract"), r.stderr
    r = run(["index", "add", "--source", str(src), "--index", str(tmp_path / "typo")], tmp_path)
    assert r.stdout.startswith("added or updated 1 paper in ")


def test_python_dash_m_bot_help_lists_commands(tmp_path):
    r = run_process(["--help"], tmp_path)
    assert r.returncode == 0, r.stderr
    for cmd in ("console", "index", "search", "serve", "socket", "clock", "digest"):
        assert cmd in r.stdout


def test_default_index_built_from_explicit_sources_is_kept(tmp_path):
    src = tmp_path / "mine.jsonl"
    src.write_text(json.dumps({"id": "m1", "title": "Laundry folding robots", "abstract": "Robots fold laundry."}))
    assert run(["index", "build", "--source", str(src)], tmp_path).returncode == 0
    out = json.loads(run(["search", "--json", "laundry"], tmp_path).stdout)
    assert out["total"] == 1 and out["results"][0]["source_id"] == "m1"


@pytest.mark.parametrize("var,value", [("PAPERBOT_DEFAULT_TZ", "Nowhere/Land"), ("PAPERBOT_DEFAULT_TIME", "7am")])
def test_bad_defaults_are_named_in_one_line(tmp_path, var, value):
    r = run(["console"], tmp_path, stdin="/paper help\n", env_extra={var: value})
    assert r.returncode == 1 and var in r.stderr and "Traceback" not in r.stderr


def test_unreachable_database_is_one_line(tmp_path):
    r = run(
        ["console"], tmp_path, stdin="/paper help\n", env_extra={"DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none"}
    )
    assert r.returncode == 1 and "DATABASE_URL" in r.stderr and "Traceback" not in r.stderr


def test_index_pointing_at_a_file_is_one_line(tmp_path):
    (tmp_path / "afile").write_text("not a directory")
    r = run(["index", "build", "--index", str(tmp_path / "afile")], tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert (
        r.stderr.strip() == f"Error: the index directory {tmp_path / 'afile'} is a file; "
        "give a directory (it is created when missing)"
    )
    r = run(["search", "graph"], tmp_path, env_extra={"PAPERBOT_INDEX_DIR": str(tmp_path / "afile")})
    assert r.returncode == 1 and "PAPERBOT_INDEX_DIR must be a directory" in r.stderr
    assert "Traceback" not in r.stderr
    r = run(["search", "--index", str(tmp_path / "afile"), "graph"], tmp_path)
    assert r.returncode == 1 and "is a file, not an index directory" in r.stderr


def test_ctrl_c_while_importing_exits_quietly(tmp_path):
    """bot.entry's import-time handler: status 130 and no traceback (a Ctrl-C
    half a second after `paperbot ...` printed one from inside SQLAlchemy)."""
    code = (
        "import os, signal, time, bot.entry as e\n"
        "signal.signal(signal.SIGINT, e._quiet_exit)\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(5)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (130, "")


def test_plain_search_shows_a_suggestion(cli_dir):
    r = run(["search", "distilation"], cli_dir)
    assert r.returncode == 0 and "Did you mean distillation?" in r.stdout


def test_search_related_reads_all_of_stdin_as_one_text(cli_dir):
    text = "We hide secret messages\ninside ordinary images without training:\nimage steganography.\n"
    r = run(["search", "--related"], cli_dir, stdin=text)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)  # one JSON object in the search contract
    assert {"query", "total", "took_ms", "suggestion", "corrected_query", "results"} <= set(out)
    assert out["results"][0]["name"] == "KIStego" and "\n" not in r.stdout.strip()


def test_search_related_takes_its_text_as_arguments_or_dash_for_stdin(cli_dir):
    text = "We hide secret messages inside ordinary images: image steganography."
    r = run(["search", "--related", text], cli_dir, stdin="chess engines and openings\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["query"] == text and out["results"][0]["name"] == "KIStego"
    words = run(["search", "--related", "image", "steganography"], cli_dir, stdin="")
    assert json.loads(words.stdout)["query"] == "image steganography"
    dash = run(["search", "--related", "-"], cli_dir, stdin=text + "\n")
    assert json.loads(dash.stdout)["query"] == text


@pytest.mark.parametrize("args", [["console"], ["search", "diffusion"], ["index", "build"]])
def test_run_outside_the_project_says_what_to_do(tmp_path, args):
    """The default seeds/ and index/ are relative to the folder paperbot runs in: from
    another folder, one line names it and says to cd into the project or set the variables."""
    ran = run(args, tmp_path, stdin="/paper help\n", env_extra={"PAPERBOT_SEEDS": "", "PAPERBOT_INDEX_DIR": ""})
    assert ran.returncode == 1
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith(f"Error: no papers at {tmp_path / 'seeds'}")
    assert f"read from the folder paperbot runs in, {tmp_path}" in line
    assert "cd into the paperbot project folder" in line and "PAPERBOT_SEEDS" in line and "PAPERBOT_INDEX_DIR" in line
    assert not (tmp_path / "index").exists() or not any((tmp_path / "index").iterdir())  # nothing half-built
