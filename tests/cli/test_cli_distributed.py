"""The command line of a distributed app (README "Distributed app (many workspaces)"):
which variables each mode needs, both modes at once and Socket Mode refused in one
line, and a missing, malformed or wrong ``PAPERBOT_TOKEN_KEY`` one line — never a
traceback, never a plaintext fallback. One-workspace messages are unchanged."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.core.config import BOTH_MODES, SOCKET_DISTRIBUTED
from bot.store import Store, TokenCipher
from tests.clikit import run

APP = {"SLACK_CLIENT_ID": "1111.2222", "SLACK_CLIENT_SECRET": "the-client-secret", "SLACK_SIGNING_SECRET": "s3cret"}


@pytest.mark.parametrize(
    "command, env, missing",
    [
        (["serve"], {"SLACK_CLIENT_ID": "1111.2222"}, "SLACK_CLIENT_SECRET, SLACK_SIGNING_SECRET, PAPERBOT_TOKEN_KEY"),
        (["serve"], APP, "PAPERBOT_TOKEN_KEY"),
        (["clock"], {"SLACK_CLIENT_SECRET": "x"}, "SLACK_CLIENT_ID, PAPERBOT_TOKEN_KEY"),
        (["digest", "send"], {"SLACK_CLIENT_ID": "1111.2222", "SLACK_CLIENT_SECRET": "x"}, "PAPERBOT_TOKEN_KEY"),
        (["serve"], {}, "SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET"),  # one workspace, as before
    ],
)
def test_each_mode_names_what_it_misses(tmp_path, command, env, missing):
    r = run(command, tmp_path, env_extra=env)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        f"paperbot {' '.join(command)}: missing {missing} (set in the environment or .env; "
        "see .env.example). To try the bot without Slack, run: paperbot console"
    ]


@pytest.mark.parametrize(
    "command, env, line",
    [
        (["serve"], {**APP, "SLACK_BOT_TOKEN": "xoxb-1-2-3"}, BOTH_MODES),
        (["socket"], {**APP, "SLACK_APP_TOKEN": "xapp-1"}, SOCKET_DISTRIBUTED),
    ],
)
def test_refused_modes_are_one_line(tmp_path, command, env, line):
    r = run(command, tmp_path, env_extra=env)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [f"paperbot {command[0]}: {line}"]
    assert "xoxb-1-2-3" not in r.stdout + r.stderr


def test_a_malformed_key_is_one_line(tmp_path):
    r = run(["serve", "--port", "0"], tmp_path, env_extra={**APP, "PAPERBOT_TOKEN_KEY": "not-a-key"})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (line,) = [x for x in r.stderr.splitlines() if "PAPERBOT_TOKEN_KEY" in x]
    assert line.startswith("paperbot serve: PAPERBOT_TOKEN_KEY is not a Fernet key") and "not-a-key" not in line


def test_a_key_that_opens_no_stored_token_is_one_line_and_nothing_starts(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'cli.db'}")
    sealed_with = TokenCipher(Fernet.generate_key().decode())
    store.installations("1111.2222", sealed_with).save(
        Installation(app_id="A1", team_id="T0ONE", user_id="U1", bot_token="xoxb-9-9-secret", bot_id="B1")
    )
    store.close()
    other = Fernet.generate_key().decode()
    r = run(["digest", "send"], tmp_path, env_extra={**APP, "PAPERBOT_TOKEN_KEY": other})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("paperbot digest send: PAPERBOT_TOKEN_KEY does not open the tokens stored in DATABASE_URL")
    assert other not in r.stderr and "xoxb-9-9-secret" not in r.stderr


def test_every_variable_is_in_the_example_the_readme_and_the_interfaces_page():
    from bot.core.config import VARIABLES
    from tests.kit import ROOT

    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    interfaces = (ROOT / "docs" / "interfaces.md").read_text(encoding="utf-8")
    for name in VARIABLES:
        assert f"\n{name}=" in example and f"`{name}`" in readme and f"`{name}`" in interfaces, name
