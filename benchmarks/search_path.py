#!/usr/bin/env python3
"""How many distinct ``bot.*`` functions and modules one search passes through.

Usage::

    .venv/bin/python benchmarks/search_path.py [--query "sparse attention"] [--out FILE]

Builds the seed index (``seeds/``) in a temporary folder, makes the real
``Service`` (SQLite store in the same folder), answers the query once to open
the index (not counted), then answers it again under ``sys.setprofile`` as the
console and Slack paths do: ``Service.command("search <query>", ctx)``. Every
Python function whose code lives under ``bot/`` and that is entered during
that call is counted once (by file and qualified name), and so is its module.
Rendering is not included (the service's reply is the end of the path).

With ``--listener`` the traced call is the real ``/paper`` Bolt listener
instead (``make_listener(service, slots)(ack, command, respond, client)``):
ack, decode, context, work slot, service, render and the ``response_url``
POST to a loopback HTTP server that answers ``ok`` — the whole path of the
slash command inside its listener thread (issue 17's measure).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import corpus, search  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.core.models import Context  # noqa: E402
from bot.runtime.wiring import open_store  # noqa: E402
from bot.service.service import Service  # noqa: E402

CTX = Context(team_id="T0BENCH", channel_id="C0BENCH", user_id="U0BENCH")
BOT = str(ROOT / "bot")


def _loopback_ok():
    """A loopback HTTP server answering every POST ``ok`` (a response_url); returns (server, url)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Ok(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hook"


def _listener_call(service, query: str):
    """A zero-argument call of the real ``/paper`` listener for ``search <query>``."""
    from slack_bolt import Ack, Respond
    from slack_sdk import WebClient

    from bot.slack.app import WORK_SLOTS
    from bot.slack.delivery.fair_slots import FairSlots
    from bot.slack.listeners.slash_command import make_listener

    _server, url = _loopback_ok()
    listener = make_listener(service, FairSlots(WORK_SLOTS))
    command = {
        "text": f"search {query}",
        "team_id": CTX.team_id,
        "channel_id": CTX.channel_id,
        "user_id": CTX.user_id,
        "response_url": url,
    }
    client = WebClient(token="xoxb-bench", base_url="http://127.0.0.1:9/")
    return lambda: listener(ack=Ack(), command=command, respond=Respond(response_url=url), client=client, context={})


def count(query: str, listener: bool = False) -> dict[str, list[str]]:
    """``{module: [function qualnames]}`` entered by one search of ``query``.

    Args:
        query: the words after ``/paper search``.
        listener: trace the real ``/paper`` listener (see the module doc), not only the service.
    """
    with tempfile.TemporaryDirectory() as tmp:
        seeds = ROOT / "seeds"
        index_dir = Path(tmp) / "index"
        search.build_index(
            index_dir,
            corpus.load_papers(sorted(seeds.glob("*.txt"))),
            fingerprint=corpus.seeds_fingerprint(sorted(seeds.glob("*.txt"))),
        )
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'bench.db'}", index_dir=index_dir, seeds_dir=seeds)
        service = Service(search.SearchIndex(index_dir), open_store(settings), settings, rng=random.Random(7))
        text = f"search {query}"
        call = _listener_call(service, query) if listener else (lambda: service.command(text, CTX))
        call()  # opens the generation: not part of the path
        seen: dict[str, set[str]] = defaultdict(set)

        def profile(frame, event, arg):
            if event == "call":
                code = frame.f_code
                if code.co_filename.startswith(BOT):
                    module = frame.f_globals.get("__name__", code.co_filename)
                    seen[module].add(getattr(code, "co_qualname", code.co_name))

        sys.setprofile(profile)
        try:
            call()
        finally:
            sys.setprofile(None)
    return {m: sorted(f) for m, f in sorted(seen.items())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--query", default="sparse attention")
    ap.add_argument("--listener", action="store_true", help="trace the real /paper listener, not the service")
    ap.add_argument("--out", type=Path, help="also write the report to this file")
    args = ap.parse_args()
    found = count(args.query, args.listener)
    n = sum(len(f) for f in found.values())
    lines = [f"/paper search {args.query}: {n} distinct bot.* functions in {len(found)} modules", ""]
    for module, functions in found.items():
        lines.append(f"{module} ({len(functions)}): {', '.join(functions)}")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
