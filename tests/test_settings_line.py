"""The start-up line of the long-running commands: each setting with its source
(environment, ``.env``, default), secrets as set/unset only (docs/interfaces.md
"Configuration")."""
from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from bot import config
from bot.cli import main


def test_describe_names_each_source_and_hides_secrets() -> None:
    settings = config.from_env({"SLACK_BOT_TOKEN": "xoxb-1-secret", "PORT": "8080",
                                "DATABASE_URL": "postgres://bot:hunter2@db.example:5432/paperbot"})
    line = config.describe(settings, {"SLACK_BOT_TOKEN": ".env", "PORT": "environment",
                                      "DATABASE_URL": "environment"})
    assert "SLACK_BOT_TOKEN=set (.env)" in line and "SLACK_APP_TOKEN=unset (default)" in line
    assert "PORT=8080 (environment)" in line
    assert "DATABASE_URL=postgresql+psycopg://bot:***@db.example:5432/paperbot (environment)" in line
    assert "xoxb-1-secret" not in line and "hunter2" not in line
    assert [part.split("=")[0] for part in line.removeprefix("settings: ").split(", ")] == list(config.VARIABLES)


def test_serve_logs_one_line_with_env_dotenv_and_default(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    for name in config.VARIABLES:   # absent now, and again after the test (load_dotenv writes some)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-dotenv-secret\nPORT=4000\n", encoding="utf-8")
    caplog.set_level(logging.WARNING, logger="bot.cli")
    # PORT is in both: the environment wins. SLACK_SIGNING_SECRET is missing: serve stops (exit 2)
    # after the line, before anything listens.
    result = CliRunner().invoke(main, ["serve"], env={"PORT": "5000", "DATABASE_URL": f"sqlite:///{tmp_path}/x.db"})
    assert result.exit_code == 2, result.output
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("settings: ")]
    assert len(lines) == 1
    assert "SLACK_BOT_TOKEN=set (.env)" in lines[0] and "PORT=5000 (environment)" in lines[0]
    assert "SLACK_SIGNING_SECRET=unset (default)" in lines[0] and "PAPERBOT_DEFAULT_TZ=UTC (default)" in lines[0]
    assert "xoxb-from-dotenv-secret" not in caplog.text + result.output


def test_one_shot_commands_log_no_settings_line(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.WARNING, logger="bot.cli")
    CliRunner().invoke(main, ["digest", "send"], env={"SLACK_BOT_TOKEN": ""})
    assert not [r for r in caplog.records if r.getMessage().startswith("settings: ")]
