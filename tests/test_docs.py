"""The README documents every command, and CI runs the README's test command verbatim."""
import re

from tests.kit import ROOT

README = (ROOT / "README.md").read_text()


def test_every_cli_command_is_in_the_readme():
    from bot.cli import main
    names = []
    for name, cmd in main.commands.items():
        subs = getattr(cmd, "commands", None)
        names += [f"paperbot {name} {s}" for s in subs] if subs else [f"paperbot {name}"]
    assert {"paperbot console", "paperbot index build", "paperbot search", "paperbot digest send"} <= set(names)
    for name in names:
        assert name in README, name


def test_every_env_variable_is_documented():
    example = (ROOT / ".env.example").read_text()
    for var in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL",
                "DATABASE_URL", "PAPERBOT_INDEX_DIR", "PAPERBOT_SEEDS", "PAPERBOT_DEFAULT_TIME",
                "PAPERBOT_DEFAULT_TZ", "PORT"):
        assert f"{var}=" in example and var in README


def test_quick_start_has_two_commands_and_ci_runs_the_test_one_verbatim():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", quick, re.S)
    assert len(blocks) == 2
    assert "paperbot console" in blocks[0] and "pytest" in blocks[1]
    assert blocks[1] in (ROOT / ".ci" / "run").read_text()


def test_every_slash_subcommand_is_in_the_readme():
    from bot.parsing import ALONE_ONLY, WITH_ARGUMENT
    assert {"search", "subscribe", "help"} <= set(ALONE_ONLY + WITH_ARGUMENT)
    for sub in ALONE_ONLY + WITH_ARGUMENT:
        assert f"/paper {sub}" in README, sub
