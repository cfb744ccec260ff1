"""``tests/fakeslack_cli.py`` as the README tells a newcomer to use it, against a real
paperbot server of a distributed app: ``command`` prints the reply's blocks (``--json``: its
payload); a fake Slack started again on the same port hands out reply URLs of its own, so
paperbot — whose journal keys a command by its reply URL — answers the next command
instead of taking it for one already answered (before: nothing, silently); a reply sent
to a URL of an earlier run is named as such in the fake's terminal."""

from __future__ import annotations

import argparse
import json
import os

from tests.fakeslack_cli import EARLIER_RUN, command, install, make_fake, reply_text
from tests.kit import ROOT
from tests.slack.oauth.oauthkit import call, oauth_env
from tests.slack.slackkit import wait_until


def _args(fake_url: str, bot: str, **more) -> argparse.Namespace:
    return argparse.Namespace(
        **{"fake": fake_url, "bot": bot, "channel": None, "json": False, "rotation": False, **more}
    )


def test_command_prints_the_blocks_and_a_restarted_fake_still_gets_replies(
    sqlite_url, seed_index_dir, key, processes, capsys
) -> None:
    first = make_fake(_args("", "http://127.0.0.1:9", port=0))
    first_url = first.base_url
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
    env.update(oauth_env(first, sqlite_url, seed_index_dir, key), PYTHONPATH=str(ROOT))
    web = processes("serve", "--host", "127.0.0.1", "--port", "0", env=env)  # the real one: its journal too
    bot = "http://127.0.0.1:" + wait_until(lambda: web.said(r"serving on http://127\.0\.0\.1:(\d+)"), 120, "serve")[1]
    second = None
    try:
        first.redirect_url = bot + "/slack/oauth_redirect"
        assert install(_args(first_url, bot, team="T0ONE")) == 0
        capsys.readouterr()
        assert command(_args(first_url, bot, team="T0ONE", text="search image steganography")) == 0
        out = capsys.readouterr().out
        assert "KIStego" in out and "[Share] [Details] [Similar] [Save]" in out  # the blocks, not only `text`
        assert command(_args(first_url, bot, team="T0ONE", text="stauts", json=True)) == 0
        out = capsys.readouterr().out  # the fake's own lines (each call it took in) too
        payload = json.loads(out[out.index("\n{\n") + 1 : out.index("\n}\n") + 2])
        assert payload["blocks"] and "Did you mean `/paper status`?" in payload["text"]
        old_url = first.calls("response_url")[0].path
        first.stop()

        second = make_fake(_args("", bot, port=int(first_url.rsplit(":", 1)[1])))  # started again; paperbot runs on
        assert second.base_url == first_url and second.run != first.run
        assert command(_args(first_url, bot, team="T0ONE", text="search chess")) == 0
        assert "chess" in capsys.readouterr().out  # answered, not taken for the earlier run's first command
        # a reply to a URL the earlier run handed out is named as such in the fake's terminal
        call("POST", first_url + old_url, json.dumps({"text": "late"}), {"Content-Type": "application/json"})
        assert EARLIER_RUN.format(path=old_url) in capsys.readouterr().out
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_reply_text_lists_each_block():
    payload = {
        "text": "fallback",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": "Head"}},
            {"type": "section", "text": {"type": "mrkdwn", "text": "*Title*"}, "fields": [{"text": "F1"}]},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "a"}, {"type": "mrkdwn", "text": "b"}]},
            {"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text", "text": "Go"}}]},
            {"type": "divider"},
        ],
    }
    assert reply_text(payload) == "fallback\nHead\n*Title*\nF1\na · b\n[Go]\n---"
