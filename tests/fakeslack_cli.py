"""Try paperbot as a distributed app on this machine, against the strict fake Slack
(README "Distributed app (many workspaces)"): a fake Slack that installs the app into
made-up workspaces, and the person who clicks "Add to Slack", types ``/paper``,
mentions the bot and removes the app.

    python -m tests.fakeslack_cli serve                  # terminal 1: the fake Slack, printing every call
    paperbot serve                                       # terminal 2: with the .env lines it printed
    python -m tests.fakeslack_cli install T0ONE          # "Add to Slack" into workspace T0ONE
    python -m tests.fakeslack_cli command T0ONE "search chess"   # prints the reply (--json: its payload)
    python -m tests.fakeslack_cli mention T0ONE "KIStego"
    python -m tests.fakeslack_cli uninstall T0ONE

What it can do: these four steps only — install, a ``/paper`` command, a mention, an uninstall.
Not here: clicking buttons, opening or submitting modals, the App Home, DMs, link unfurls;
those are driven from Python against the same fake (``tests/slack/slackkit.py``: ``click``,
``interact``, ``event``), as the test suite does.

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


#: What the fake says of a reply sent to a ``response_url`` an earlier run of it handed out.
EARLIER_RUN = (
    "refused: {path} is a reply URL from an earlier run of this fake Slack (paperbot answered a command "
    "it took before the fake restarted); Slack answers such a URL 404 expired_url"
)


def said_by(run: str):
    """The fake's ``echo`` for a run labelled ``run``: one line per call it took in (the
    method, whose token, where, what), and a plain sentence for a reply to a
    ``response_url`` of an earlier run."""

    def said(call_: Call) -> None:
        if call_.path.startswith("/fake/"):
            return
        if call_.method == "response_url" and not call_.path.startswith(f"/response/{run}"):
            print(f"{call_.method:<22} {EARLIER_RUN.format(path=call_.path)}", flush=True)
            return
        body = call_.body
        text = str(body.get("text") or "").replace("\n", " ")
        print(
            f"{call_.method:<22} token={(call_.token or '-')[:24]:<24} {body.get('channel', ''):<12} {text[:70]}",
            flush=True,
        )

    return said


def make_fake(args: argparse.Namespace) -> FakeSlack:
    """The fake Slack ``serve`` runs, started on ``args.port``: redirecting installs to
    ``args.bot``, its reply URLs labelled with this run, printing each call it takes in."""
    fake = FakeSlack(MANIFEST)
    fake.redirect_url = args.bot + "/slack/oauth_redirect"
    fake.rotation = args.rotation
    fake.run = f"{time.time_ns():x}-"  # this run's reply URLs are its own
    fake.echo = said_by(fake.run)
    fake.start(args.port)
    return fake


def serve(args: argparse.Namespace) -> int:
    """Run the fake Slack until Ctrl-C; print the ``.env`` lines that point paperbot at it."""
    fake = make_fake(args)
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
    """A signed ``/paper`` command from the workspace; prints the reply: its text and its blocks' text."""
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
            print(json.dumps(replies[0], ensure_ascii=False, indent=1) if args.json else reply_text(replies[0]))
            return 0
        time.sleep(0.1)
    print(
        f"no reply within 10 s to {given['response_url']}: paperbot took the command (HTTP {answer.status}) "
        "but sent nothing there; its log says why. (A paperbot serve that outlived an earlier fake Slack "
        "on this port may answer that run's reply URLs: the fake's terminal then says so.)"
    )
    return 1


def reply_text(payload: dict) -> str:
    """What a reply shows, as lines: its ``text``, then each block's text (sections and
    their fields, headers, context lines joined by " · ", buttons as ``[label]``).

    Args:
        payload: the JSON the bot sent to the ``response_url``.
    """
    lines = [str(payload.get("text") or "")]
    for block in payload.get("blocks") or []:
        kind = block.get("type")
        if kind in ("section", "header"):
            texts = [block.get("text") or {}] + list(block.get("fields") or [])
            lines += [str(t.get("text", "")) for t in texts if t.get("text")]
        elif kind == "context":
            lines.append(" · ".join(str(e.get("text", "")) for e in block.get("elements") or [] if e.get("text")))
        elif kind == "actions":
            labels = [((e.get("text") or {}).get("text") or e.get("type", "")) for e in block.get("elements") or []]
            lines.append(" ".join(f"[{label}]" for label in labels))
        elif kind == "divider":
            lines.append("---")
    return "\n".join(line for line in lines if line)


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
        if go is command:
            p.add_argument("--json", action="store_true", help="print the reply's JSON payload (text and blocks)")
        p.add_argument("--channel", help="default: C + the team id without its T")
        p.set_defaults(go=go)
    args = parser.parse_args(argv)
    return args.go(args)


if __name__ == "__main__":
    sys.exit(main())
