"""Try paperbot as a distributed app on this machine, against the strict fake Slack
(README "Distributed app (many workspaces)"): a fake Slack that installs the app into
made-up workspaces, and the person who clicks "Add to Slack", types ``/paper``,
mentions the bot and removes the app.

    python -m tests.fakeslack_cli serve                  # terminal 1: the fake Slack, printing every call
    paperbot serve                                       # terminal 2: with the .env lines it printed
    python -m tests.fakeslack_cli install T0ONE          # "Add to Slack" into workspace T0ONE
    python -m tests.fakeslack_cli command T0ONE "search chess"
    python -m tests.fakeslack_cli mention T0ONE "KIStego"
    python -m tests.fakeslack_cli uninstall T0ONE

Needs the test extra (``pip install '.[test]'``). Everything stays on loopback; the
signing secret and client secret below are the fake's, not secrets.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from urllib.parse import urlencode

from tests.fakeslack import FakeSlack
from tests.slack.oauth.oauthkit import MANIFEST, SECRET, Browser, call, envelope_post, event, mention, signed_post
from tests.strict.oauth import APP_ID, CLIENT_ID, CLIENT_SECRET
from tests.strict.records import Call

FAKE = "http://127.0.0.1:8900"
BOT = "http://127.0.0.1:3000"


def _said(call_: Call) -> None:
    """One line per call the fake took in: the method, whose token, where, what."""
    if call_.path.startswith("/fake/"):
        return
    body = call_.body
    text = str(body.get("text") or "").replace("\n", " ")
    print(
        f"{call_.method:<22} token={(call_.token or '-')[:24]:<24} {body.get('channel', ''):<12} {text[:70]}",
        flush=True,
    )


def serve(args: argparse.Namespace) -> int:
    """Run the fake Slack until Ctrl-C; print the ``.env`` lines that point paperbot at it."""
    fake = FakeSlack(MANIFEST)
    fake.redirect_url = args.bot + "/slack/oauth_redirect"
    fake.rotation = args.rotation
    fake.echo = _said
    fake.start(args.port)
    print(
        "# paperbot's .env for this fake Slack (PAPERBOT_TOKEN_KEY: see the README):\n"
        f"SLACK_API_URL={fake.api_url}\nSLACK_CLIENT_ID={CLIENT_ID}\nSLACK_CLIENT_SECRET={CLIENT_SECRET}\n"
        f"SLACK_SIGNING_SECRET={SECRET}\n# installs come back to {fake.redirect_url}; Ctrl-C to stop\n",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()
    return 0


def install(args: argparse.Namespace) -> int:
    """Open the bot's install page, click "Add to Slack", allow, come back."""
    call("GET", f"{args.fake}/fake/channel?{urlencode({'id': args.channel or _channel(args.team), 'team': args.team})}")
    page = Browser().install(args.bot, args.team)
    ok = page.status == 200
    print(f"{args.team}: {'installed' if ok else f'refused ({page.status})'}")
    return 0 if ok else 1


def command(args: argparse.Namespace) -> int:
    """A signed ``/paper`` command from the workspace; prints the reply's text."""
    given = json.loads(call("GET", f"{args.fake}/fake/response_url").text)
    fields = {
        "team_id": args.team,
        "channel_id": args.channel or _channel(args.team),
        "user_id": "U0ALICE",
        "command": "/paper",
        "text": args.text,
        "api_app_id": APP_ID,
        "response_url": given["response_url"],
        "trigger_id": given["trigger_id"],
    }
    answer = signed_post(args.bot, urlencode(fields))
    print(f"HTTP {answer.status}")
    path = "/" + given["response_url"].split("/", 3)[3]
    for _ in range(100):
        replies = json.loads(call("GET", f"{args.fake}/fake/replies?{urlencode({'path': path})}").text)["replies"]
        if replies:
            print(replies[0].get("text", ""))
            return 0
        time.sleep(0.1)
    print("no reply within 10 s")
    return 1


def mention_(args: argparse.Namespace) -> int:
    """A signed ``app_mention`` from the workspace; the answer shows in the fake's terminal."""
    ts = f"{time.time():.6f}"
    answer = event(
        args.bot,
        mention(args.team, args.channel or _channel(args.team), args.text, ts),
        team=args.team,
        event_id=f"Ev{ts}",
    )
    print(f"HTTP {answer.status}")
    return 0 if answer.status == 200 else 1


def uninstall(args: argparse.Namespace) -> int:
    """Remove the app from the workspace: Slack revokes its tokens and sends ``app_uninstalled``."""
    got = call("GET", f"{args.fake}/fake/uninstall?{urlencode({'team': args.team})}")
    if got.status != 200:
        print(json.loads(got.text)["error"])
        return 1
    answer = envelope_post(args.bot, json.loads(got.text))
    print(f"{args.team}: uninstalled (HTTP {answer.status})")
    return 0 if answer.status == 200 else 1


def _channel(team: str) -> str:
    """The made-up channel of ``team`` ("T0ONE" → "C0ONE")."""
    return "C" + team[1:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakeslack_cli", description=__doc__.splitlines()[0])
    parser.add_argument("--fake", default=FAKE, help=f"the fake Slack (default {FAKE})")
    parser.add_argument("--bot", default=BOT, help=f"paperbot serve (default {BOT})")
    sub = parser.add_subparsers(dest="what", required=True)
    run = sub.add_parser("serve", help="run the fake Slack")
    run.add_argument("--port", type=int, default=8900)
    run.add_argument("--rotation", action="store_true", help="issue expiring tokens (token_rotation_enabled)")
    run.set_defaults(go=serve)
    for name, go, text in (
        ("install", install, False),
        ("command", command, True),
        ("mention", mention_, True),
        ("uninstall", uninstall, False),
    ):
        p = sub.add_parser(name, help=(go.__doc__ or "").splitlines()[0])
        p.add_argument("team", help="a made-up workspace id, e.g. T0ONE")
        if text:
            p.add_argument("text")
        p.add_argument("--channel", help="default: C + the team id without its T")
        p.set_defaults(go=go)
    args = parser.parse_args(argv)
    return args.go(args)


if __name__ == "__main__":
    sys.exit(main())
