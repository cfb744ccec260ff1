"""The start-up line of the long-running commands: each setting with its source
(environment, ``.env``, default), secrets as set/unset only (docs/interfaces.md
"Environment variables")."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from click.testing import CliRunner

from bot.cli import main as cli_module
from bot.cli.main import main
from bot.core import config
from bot.runtime import processes


def test_describe_names_each_source_and_hides_secrets() -> None:
    settings = config.from_env(
        {
            "SLACK_BOT_TOKEN": "xoxb-1-secret",
            "PORT": "8080",
            "DATABASE_URL": "postgres://bot:hunter2@db.example:5432/paperbot",
        }
    )
    line = config.describe(settings, {"SLACK_BOT_TOKEN": ".env", "PORT": "environment", "DATABASE_URL": "environment"})
    assert "SLACK_BOT_TOKEN=set (.env)" in line and "SLACK_APP_TOKEN=unset (default)" in line
    assert "PORT=8080 (environment)" in line
    assert "DATABASE_URL=postgresql+psycopg://bot:***@db.example:5432/paperbot (environment)" in line
    assert "xoxb-1-secret" not in line and "hunter2" not in line
    assert [part.split("=")[0] for part in line.removeprefix("settings: ").split(", ")] == list(config.VARIABLES)


def test_sources_are_environment_dotenv_or_default(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in config.VARIABLES:  # absent now, and again after the test (load_dotenv writes some)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PORT", "5000")  # in both: the environment wins
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-dotenv-secret\nPORT=4000\n", encoding="utf-8")
    sources = cli_module._load_dotenv()
    assert (sources["SLACK_BOT_TOKEN"], sources["PORT"], sources["PAPERBOT_DEFAULT_TZ"]) == (
        ".env",
        "environment",
        "default",
    )


def test_a_started_process_logs_the_line_once_without_secrets(caplog: pytest.LogCaptureFixture) -> None:
    settings = replace(
        config.from_env({"SLACK_BOT_TOKEN": "xoxb-9-secret", "PORT": "5000"}),
        sources={"SLACK_BOT_TOKEN": ".env", "PORT": "environment"},
    )
    with caplog.at_level(logging.WARNING, logger="bot.runtime.processes"):
        processes._log_settings(settings)
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("settings: ") and "SLACK_BOT_TOKEN=set (.env)" in line
    assert "PORT=5000 (environment)" in line and "xoxb-9-secret" not in caplog.text


def test_one_shot_commands_log_no_settings_line(
    tmp_path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.WARNING, logger="bot.cli.main")
    CliRunner().invoke(main, ["digest", "send"], env={"SLACK_BOT_TOKEN": ""})
    assert not [r for r in caplog.records if r.getMessage().startswith("settings: ")]
