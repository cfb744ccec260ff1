"""Deliver one Slack event several times at the same instant, to one server or
several sharing a database — what a Slack retry racing the original does
(docs/architecture.md "Idempotency and the journal"). Used by the duplicate-delivery tests and
by ``benchmarks/duplicates_bench.py``.

``Servers`` starts real paperbot HTTP servers (waitress + Bolt with the journal
middleware of ``paperbot serve``, the real ``Service`` over a given index), each
with its own ``Store`` and journal owner on one database URL, the way two
``paperbot serve`` processes share ``DATABASE_URL``.
``deliver_together`` sends copies of one signed envelope released by a barrier.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from bot.render.announce import PostingAnnouncer
from bot.runtime.processes import store_seen
from bot.service.service import Service
from bot.slack.app import LISTENER_THREADS, build_app, make_client
from bot.slack.delivery.journal import Journal
from bot.slack.delivery.poster import SlackPoster
from bot.slack.transport.http_server import make_server
from bot.store import Store
from tests.fakeslack import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.signing import FORM, JSON, signed_headers
from tests.slack.slackkit import SECRET, make_settings


class Servers:
    """``count`` paperbot servers on one database; ``close()`` stops them all.

    Args:
        fake: the fake Web API every server calls.
        index: the search index behind each server's ``Service``.
        database_url: the shared SQLAlchemy URL.
        tmp_path: for the settings (index dir unused: ``index`` is passed in).
        count: how many servers.
        threads: each server's listener pool (``LISTENER_THREADS``, as ``paperbot serve``).
        wrap: wraps each server's real ``Service`` (a test holding its work back).
    """

    def __init__(
        self,
        fake: FakeSlack,
        index: Any,
        database_url: str,
        tmp_path,
        count: int,
        *,
        threads: int = LISTENER_THREADS,
        wrap: Callable[[Service], Any] = lambda service: service,
    ) -> None:
        self.urls: list[str] = []
        self._parts: list[tuple[Any, threading.Thread, Store, ThreadPoolExecutor]] = []
        self.apps: list[Any] = []
        self.journals: list[Journal] = []
        settings = replace(make_settings(fake, tmp_path), database_url=database_url)
        for _ in range(count):
            client = make_client(settings)
            store = Store(database_url)
            service = wrap(Service(index, store, settings, announcer=PostingAnnouncer(SlackPoster(client))))
            executor = ThreadPoolExecutor(max_workers=threads)
            journal = Journal(store)
            app = build_app(
                settings, service, client=client, seen=store_seen(store), listener_executor=executor, journal=journal
            )
            self.journals.append(journal)
            server = make_server(app, "127.0.0.1", 0)
            thread = threading.Thread(target=server.run, name="paperbot-http", daemon=True)
            thread.start()
            self._parts.append((server, thread, store, executor))
            self.apps.append(app)
            self.urls.append(server.url)

    def drain(self) -> None:
        """Wait for every listener started so far (then the pools refuse work)."""
        for _, _, _, executor in self._parts:
            executor.shutdown(wait=True)

    def close(self) -> None:
        for server, thread, store, executor in self._parts:
            server.close()
            thread.join(10)
            executor.shutdown(wait=True)
            store.close()


def mention_envelope(
    event_id: str,
    ts: str,
    text: str = "<@U0PAPERBOT> sparse attention",
    channel: str = "C0GENERAL",
    user: str = "U0ALICE",
) -> str:
    """The JSON body of an ``app_mention`` delivery (docs.slack.dev/reference/events/app_mention).
    A burst meant to test delivery, not a flood, spreads ``user`` over several people: one
    person's requests past ``bot.slack.delivery.work_queue.USER_PENDING`` are refused."""
    event = {
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM_ID,
    }
    return json.dumps(
        {
            "token": "deprecated",
            "team_id": TEAM_ID,
            "api_app_id": "A0PAPERBOT",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [
                {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "is_enterprise_install": False}
            ],
        }
    )


def command_fields(
    user: str, text: str, response_url: str, *, trigger_id: str = "1.2.3", channel: str = "C0GENERAL"
) -> dict[str, str]:
    """The form fields of a ``/paper`` slash command (docs.slack.dev/interactivity/implementing-slash-commands)."""
    return {
        "team_id": TEAM_ID,
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "command": "/paper",
        "text": text,
        "api_app_id": "A0PAPERBOT",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def _post(url: str, body: str, retry: int | None) -> int:
    """POST one signed delivery: JSON (an event) or form-encoded (a slash command)."""
    headers = signed_headers(SECRET, body, content_type=JSON if body.startswith("{") else FORM)
    if retry:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/slack/events", body=body.encode("utf-8"), headers=headers)
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def deliver_together(urls: list[str], body: str, copies: int) -> list[int]:
    """Send ``copies`` of ``body`` at once (copy ``i`` to ``urls[i % len(urls)]``,
    copies after the first marked as Slack retries); returns the HTTP statuses."""
    barrier = threading.Barrier(copies)

    def one(i: int) -> int:
        barrier.wait(timeout=30)
        return _post(urls[i % len(urls)], body, retry=i or None)

    with ThreadPoolExecutor(max_workers=copies) as pool:
        return list(pool.map(one, range(copies)))


def replies_in_thread(fake: FakeSlack, ts: str) -> int:
    """How many ``chat.postMessage`` calls answered in the thread of ``ts``."""
    return sum(1 for c in fake.calls("chat.postMessage") if c.body.get("thread_ts") == ts)


ROOT = Path(__file__).resolve().parents[2]


class ServeProcess:
    """A real ``paperbot serve`` process on ``database_url`` (``start`` → its URL;
    ``kill`` is SIGKILL; ``stop`` is SIGTERM, which waits for running listeners)."""

    def __init__(self, fake: FakeSlack, workdir: Path, database_url: str, index_dir: Path) -> None:
        self.proc: subprocess.Popen | None = None
        self.url = ""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
        env.update(
            SLACK_BOT_TOKEN="xoxb-test-token",
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=fake.api_url.rstrip("/"),
            PAPERBOT_INDEX_DIR=str(index_dir),
            PAPERBOT_SEEDS=str(ROOT / "seeds"),
            DATABASE_URL=database_url,
            PORT="0",
            PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        )
        self.env, self.workdir = env, workdir

    def start(self, timeout: float = 120) -> str:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1"],
            cwd=self.workdir,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: list[str] = []
        deadline = time.monotonic() + timeout
        for line in self.proc.stderr:
            lines.append(line)
            if match := re.search(r"serving on (http://127\.0\.0\.1:\d+)", line):
                self.url = match.group(1)
                self.log = lines
                threading.Thread(target=lambda: lines.extend(self.proc.stderr), daemon=True).start()
                return self.url
            if time.monotonic() > deadline:
                break
        raise RuntimeError(f"paperbot serve did not start: {''.join(lines)[-3000:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def burst(url: str, bodies: list[str], workers: int = 32) -> list[int]:
    """POST every body (signed, concurrently); returns the HTTP statuses (0: no answer)."""

    def one(body: str) -> int:
        try:
            return _post(url, body, retry=None)
        except OSError:
            return 0

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, bodies))


def slow_down(fake: FakeSlack, method: str, seconds: float) -> None:
    """Make ``fake`` wait ``seconds`` before answering ``method`` (a slow Slack);
    ``"response_url"`` slows the ``response_url`` POSTs."""
    if method == "response_url":
        respond = fake._respond

        def slower_respond(path: str, body: dict[str, Any]):
            time.sleep(seconds)
            return respond(path, body)

        fake._respond = slower_respond
        return
    answer = fake._answer

    def slower(name: str, body: dict[str, Any]):
        if name == method:
            time.sleep(seconds)
        return answer(name, body)

    fake._answer = slower
