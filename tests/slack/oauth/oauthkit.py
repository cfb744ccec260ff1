"""Helpers for the distributed-app tests: a browser that installs, signed requests
from any workspace, and a real paperbot HTTP server put together as ``paperbot
serve`` puts a distributed app together (``bot.runtime.distributed``), over the
strict fake Slack's OAuth (``tests.strict.oauth``).
"""

from __future__ import annotations

import html
import http.client
import json
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from cryptography.fernet import Fernet

from bot.core.config import Settings, from_env
from bot.render.announce import PostingAnnouncer
from bot.runtime.distributed import Distributed, open_distributed
from bot.runtime.processes import store_seen
from bot.service.service import Service
from bot.slack.app import LISTENER_THREADS, build_app, make_client
from bot.slack.oauth.uninstalls import Uninstalls
from bot.slack.transport.http_server import make_server
from bot.store import Store
from tests.fakeslack import BOT_USER_ID, FakeSlack
from tests.kit import ROOT, SEEDS, stop_process
from tests.signing import JSON, signed_headers
from tests.strict.oauth import APP_ID, CLIENT_ID, CLIENT_SECRET

SECRET = "test-signing-secret-oauth-0123456789"
MANIFEST = ROOT / "manifest.oauth.yml"
STATE_COOKIE = "slack-app-oauth-state"


def new_key() -> str:
    """A fresh Fernet key for ``PAPERBOT_TOKEN_KEY`` (never a fixed one in the repository)."""
    return Fernet.generate_key().decode("ascii")


def oauth_env(fake: FakeSlack, database_url: str, index_dir: Path, key: str) -> dict[str, str]:
    """A distributed app's variables against ``fake``: its client id and secret, no bot token."""
    return {
        "SLACK_CLIENT_ID": CLIENT_ID,
        "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SIGNING_SECRET": SECRET,
        "PAPERBOT_TOKEN_KEY": key,
        "SLACK_API_URL": fake.api_url,
        "DATABASE_URL": database_url,
        "PAPERBOT_INDEX_DIR": str(index_dir),  # built once, as at release time
        "PAPERBOT_SEEDS": str(SEEDS),
    }


def oauth_settings(fake: FakeSlack, database_url: str, index_dir: Path, key: str) -> Settings:
    """``Settings`` read from ``oauth_env`` as the CLI reads the environment."""
    return from_env(oauth_env(fake, database_url, index_dir, key))


def install(fake: FakeSlack, server_url: str, team: str, channel: str) -> None:
    """Install the app into ``team`` (through ``server_url``), which owns ``channel`` (the bot is in it)."""
    fake.own_channel(channel, team)
    fake.add_channel(channel, bot_member=True)
    page = Browser().install(server_url, team)
    assert page.status == 200 and "Thank you!" in page.text, page


@dataclass
class Answer:
    """An HTTP answer: status, headers (names lower-cased), body text."""

    status: int
    headers: dict[str, str]
    text: str


def call(method: str, url: str, body: str = "", headers: dict[str, str] | None = None) -> Answer:
    """One request, no redirects followed."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, path, body=body.encode("utf-8") if body else None, headers=headers or {})
        answer = conn.getresponse()
        return Answer(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode("utf-8"))
    finally:
        conn.close()


@dataclass
class Browser:
    """A person installing the app: keeps the cookies a server sets, follows the
    "Add to Slack" link to the fake Slack, and comes back with what Slack redirects to."""

    cookies: dict[str, str] = field(default_factory=dict)

    def get(self, url: str) -> Answer:
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        answer = call("GET", url, headers={"Cookie": cookie} if cookie else {})
        for name, value in re.findall(r"(?:^|,\s*)([\w-]+)=([^;,]*)", answer.headers.get("set-cookie", "")):
            if name == STATE_COOKIE:
                self.cookies[name] = value
        return answer

    def start(self, server_url: str, team: str) -> str:
        """Open ``/slack/install?team=…`` and click "Add to Slack": the URL Slack sends back to."""
        page = self.get(f"{server_url}/slack/install?team={team}")
        assert page.status == 200 and "Add to Slack" in page.text, page
        link = html.unescape(re.search(r'<a href="([^"]+)"', page.text).group(1))
        allowed = self.get(link)
        assert allowed.status == 302, allowed
        return allowed.headers["location"]

    def install(self, server_url: str, team: str, finish_url: str | None = None) -> Answer:
        """Install into ``team`` starting at ``server_url``, finishing at ``finish_url`` (default the same)."""
        back = self.start(server_url, team)
        if finish_url is not None:
            back = finish_url + back[back.index("/slack/oauth_redirect") :]
        return self.get(back)


def signed_post(url: str, body: str, content_type: str = "application/x-www-form-urlencoded") -> Answer:
    """POST ``body`` to ``url``'s ``/slack/events``, signed as Slack signs it."""
    return call("POST", url + "/slack/events", body, signed_headers(SECRET, body, content_type=content_type))


def command(
    server_url: str,
    fake: FakeSlack,
    text: str,
    *,
    team: str,
    channel: str,
    user: str = "U0ALICE",
    enterprise: str | None = None,
    org: bool = False,
) -> tuple[Answer, str]:
    """A signed ``/paper`` command from ``team`` (of ``enterprise``; ``org``: the app is
    installed org-wide). Returns the answer and the command's ``response_url``."""
    response_url = fake.new_response_url()
    fields = {
        "token": "deprecated",
        "team_id": team,
        "team_domain": team.lower(),
        "channel_id": channel,
        "channel_name": channel.lower(),
        "user_id": user,
        "user_name": user.lower(),
        "command": "/paper",
        "text": text,
        "api_app_id": APP_ID,
        "is_enterprise_install": "true" if org else "false",
        "response_url": response_url,
        "trigger_id": fake.new_trigger_id(),
    }
    if enterprise:
        fields.update(enterprise_id=enterprise, enterprise_name=f"Org {enterprise}")
    return signed_post(server_url, urlencode(fields)), response_url


def event(
    server_url: str,
    inner: dict[str, Any],
    *,
    team: str,
    event_id: str,
    enterprise: str | None = None,
    org: bool = False,
) -> Answer:
    """A signed Events API envelope around ``inner`` from ``team``."""
    envelope = {
        "token": "deprecated",
        "team_id": team,
        "api_app_id": APP_ID,
        "event": inner,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [{"team_id": team, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": org}],
    }
    if enterprise:
        envelope.update(enterprise_id=enterprise, is_enterprise_install=org)
        envelope["authorizations"][0]["enterprise_id"] = enterprise
    return envelope_post(server_url, envelope)


def envelope_post(server_url: str, envelope: dict[str, Any]) -> Answer:
    """POST an Events API envelope (``FakeSlack.uninstall``'s, say), signed."""
    return signed_post(server_url, json.dumps(envelope), JSON)


def mention(team: str, channel: str, text: str, ts: str) -> dict[str, Any]:
    """An ``app_mention`` in ``channel`` of ``team``."""
    return {
        "type": "app_mention",
        "user": "U0ALICE",
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": team,
    }


@dataclass
class Served:
    """One running paperbot HTTP server of a distributed app (in this process)."""

    url: str
    store: Store
    service: Service
    distributed: Distributed
    app: Any
    executor: ThreadPoolExecutor
    close: Any

    def drain(self) -> None:
        """Wait for every listener started so far (then the pool takes no more work)."""
        self.executor.shutdown(wait=True)


def serve(settings: Settings, index: Any) -> Served:
    """Start a server as ``paperbot serve`` builds a distributed app (no journal thread):
    the store, ``open_distributed``, the service announcing through each team's poster,
    Bolt's OAuth set-up and the uninstall listeners, on a free loopback port."""
    store = Store(settings.database_url)
    client = make_client(settings)
    distributed = open_distributed(settings, store, client)
    service = Service(index, store, settings, announcer=PostingAnnouncer(distributed.posters))
    executor = ThreadPoolExecutor(max_workers=LISTENER_THREADS)
    app = build_app(
        settings,
        service,
        client=client,
        seen=store_seen(store),
        listener_executor=executor,
        oauth=distributed.app_options(settings, store, client),
        uninstalls=Uninstalls(store, distributed.installations),
    )
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, name="paperbot-oauth-http", daemon=True)
    thread.start()

    def close() -> None:
        server.close()
        thread.join(10)
        executor.shutdown(wait=True)
        store.close()

    return Served(server.url, store, service, distributed, app, executor, close)


class Process:
    """A ``python -m bot …`` process whose stderr lines are collected as they come."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line)

    def said(self, pattern: str) -> re.Match | None:
        return next((m for line in list(self.lines) if (m := re.search(pattern, line))), None)

    def stop(self) -> None:
        stop_process(self.proc)
