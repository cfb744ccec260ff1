"""No one's flood can make another person's request fail (issue 20, points 1 and 2):
a real journaled server (``tests.slack.burst.Servers``: waitress + Bolt + the
journal, as ``paperbot serve``) whose listener pool is held by one user's work
(``Held``: their mentions wait at a gate), and signed requests from another user.

- Every kind of request that must be acknowledged — a command, a button, a view
  submission, a shortcut, over HTTP and over Socket Mode — is acknowledged while
  the pool is full: its ack does not wait in the pool's queue (before: Bolt ran
  each ack inside its listener on that pool, and answered 404 after 3 s).
- The flooding user gets ``USER_PENDING`` requests in; the rest are refused with
  one log line (and one "busy" notice) per user and minute; a refused command is
  answered "busy" in its ack.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.daily.post_times import utc_now
from bot.slack.delivery import intake, work_queue
from bot.slack.delivery.intake import BUSY
from bot.slack.delivery.work_queue import USER_PENDING
from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.signing import FORM, JSON, signed_headers
from tests.slack.burst import Servers, command_fields, mention_envelope, replies_in_thread
from tests.slack.payloads import message_action
from tests.slack.slackkit import SECRET, block_actions, view_submission

FLOOD = "U0FLOOD"
OTHER = "U0OTHER"
#: The listener pool of the server under test: small, so a few held jobs fill it.
THREADS = 4
#: The shared cap of ``crowded``: the pool's threads and two queued jobs.
TOTAL = THREADS + 2


class Held:
    """The real service, except that the mentions of ``FLOOD`` (and of ``FLOOD1``,
    ``FLOOD2`` …) wait at the gate (``open``):
    the flood's work holds the pool's threads for as long as the test wants."""

    def __init__(self, service: Any, gate: threading.Event) -> None:
        self._service, self._gate = service, gate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)

    def mention(self, text: str, ctx: Any) -> Any:
        if (ctx.user_id or "").startswith(FLOOD):
            self._gate.wait(60)
        return self._service.mention(text, ctx)


def _held_servers(fake_slack, seed_index, tmp_path):
    """``(servers, gate)``: one journaled server on SQLite with ``THREADS`` listener
    threads; the gate is opened (and the server stopped) after the test."""
    gate = threading.Event()
    fake_slack.add_channel("C0GENERAL", bot_member=True)
    running = Servers(
        fake_slack,
        seed_index,
        f"sqlite:///{tmp_path / 'paperbot.db'}",
        tmp_path,
        1,
        threads=THREADS,
        wrap=lambda service: Held(service, gate),
    )
    try:
        yield running, gate
    finally:
        gate.set()
        running.close()


@pytest.fixture
def held(fake_slack, seed_index, tmp_path):
    """``_held_servers``: the work queue's caps as in production."""
    yield from _held_servers(fake_slack, seed_index, tmp_path)


@pytest.fixture
def crowded(fake_slack, seed_index, tmp_path, monkeypatch):
    """``_held_servers`` whose work queue holds ``TOTAL`` jobs of all users together."""
    monkeypatch.setattr(work_queue, "PENDING_MAX", TOTAL)
    yield from _held_servers(fake_slack, seed_index, tmp_path)


def post(url: str, body: str, retry: int = 0) -> tuple[int, bytes]:
    """POST one signed request (``retry``: its ``X-Slack-Retry-Num``, 0 for none); ``(status, body)``."""
    parts = urlsplit(url)
    headers = signed_headers(SECRET, body, content_type=JSON if body.startswith("{") else FORM)
    if retry:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/slack/events", body=body.encode("utf-8"), headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def flood(url: str, count: int, first: int = 0, user: str = FLOOD) -> list[str]:
    """``count`` mentions from ``user`` (each acknowledged); their message ``ts``s."""
    stamps = []
    for i in range(first, first + count):
        ts = f"{1766200000 + i}.000100"
        body = mention_envelope(f"Ev0FLOOD{i}", ts, text=f"<@{BOT_USER_ID}> sparse attention {i}", user=user)
        assert post(url, body)[0] == 200
        stamps.append(ts)
    return stamps


def links_shared() -> str:
    """A signed-ready ``link_shared`` event from ``FLOOD`` with one arXiv link."""
    links = {
        "type": "link_shared",
        "user": FLOOD,
        "channel": "C0GENERAL",
        "message_ts": "1766299999.000100",
        "links": [{"domain": "arxiv.org", "url": "https://arxiv.org/abs/2401.00001"}],
    }
    return json.dumps({"type": "event_callback", "team_id": TEAM_ID, "event_id": "Ev0LINKS", "event": links})


def command(fake, user: str, text: str = "search attention") -> tuple[dict[str, str], str]:
    """A ``/paper`` command's fields (a fresh ``response_url`` and ``trigger_id``) and its ``response_url``."""
    url = fake.new_response_url()
    return command_fields(user, text, url, trigger_id=fake.new_trigger_id()), url


def interaction(fake, kind: str) -> dict[str, Any]:
    """An interaction payload from ``OTHER`` that must be acknowledged within 3 s."""
    if kind == "button":
        payload = block_actions("paper_details", {"id": "p1"}, user=OTHER, response_url=fake.new_response_url())
    elif kind == "view_submission":
        payload = view_submission("sparse attention", user=OTHER)
    elif kind == "message_shortcut":
        payload = message_action("sparse attention in transformers", user=OTHER, response_url=fake.new_response_url())
    else:  # the global shortcut
        payload = {
            "type": "shortcut",
            "callback_id": "search_papers",
            "user": {"id": OTHER, "team_id": TEAM_ID},
            "team": {"id": TEAM_ID},
        }
    payload["trigger_id"] = fake.new_trigger_id()
    return payload


KINDS = ["command", "button", "view_submission", "message_shortcut", "global_shortcut"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_request_is_acknowledged_while_another_users_work_fills_the_pool(held, fake_slack, kind) -> None:
    running, gate = held
    url = running.urls[0]
    flood(url, THREADS + 2)  # every listener thread held, two more queued
    if kind == "command":
        fields, reply_url = command(fake_slack, OTHER)
        status, body = post(url, urlencode(fields))
    else:
        status, body = post(url, urlencode({"payload": json.dumps(interaction(fake_slack, kind))}))
    held_when_acked = not gate.is_set()
    gate.set()
    assert status == 200 and held_when_acked
    if kind == "command":
        assert body == b""
        (reply,) = [c.body for c in fake_slack.wait_for("response_url", where=lambda c: reply_url.endswith(c.path))]
        assert "attention" in json.dumps(reply).lower()
    if kind == "view_submission":
        assert json.loads(body)["response_action"] == "update"  # "Searching…", at once
        fake_slack.wait_for("views.update")  # then the results
    running.drain()


@pytest.mark.parametrize("kind", ["command", "view_submission"])
def test_over_socket_mode_too(held, fake_slack, kind) -> None:
    running, gate = held
    flood(running.urls[0], THREADS + 2)
    if kind == "command":
        fields, _ = command(fake_slack, OTHER)
        request = SocketModeRequest("slash_commands", "env-cmd", fields)
    else:
        request = SocketModeRequest("interactive", "env-view", interaction(fake_slack, kind))
    response = run_bolt_app(running.apps[0], request)
    held_when_acked = not gate.is_set()
    gate.set()
    assert response is not None and response.status == 200 and held_when_acked
    running.drain()


def test_one_users_flood_is_capped_with_one_line_and_one_notice(held, fake_slack, caplog) -> None:
    running, gate = held
    url = running.urls[0]
    caplog.set_level(logging.INFO)
    stamps = flood(url, USER_PENDING + 4)
    fields, refused_url = command(fake_slack, FLOOD)
    status, body = post(url, urlencode(fields))
    assert post(url, links_shared())[0] == 200
    fields_other, other_url = command(fake_slack, OTHER)
    assert post(url, urlencode(fields_other)) == (200, b"")  # another user: never refused
    gate.set()
    running.drain()

    assert status == 200 and json.loads(body) == {"response_type": "ephemeral", "text": BUSY}
    assert [replies_in_thread(fake_slack, ts) for ts in stamps] == [1] * USER_PENDING + [0] * 4
    busy = [r for r in caplog.records if r.getMessage().startswith("busy:")]
    assert len(busy) == 1 and FLOOD in busy[0].getMessage() and busy[0].levelno == logging.WARNING
    notices = [c.body for c in fake_slack.calls("chat.postEphemeral") if c.body.get("text") == BUSY]
    assert [(n["user"], n["channel"], n.get("thread_ts")) for n in notices] == [(FLOOD, "C0GENERAL", None)]
    assert fake_slack.calls("chat.unfurl") == []
    assert not [c for c in fake_slack.calls("response_url") if refused_url.endswith(c.path)]
    assert [c for c in fake_slack.calls("response_url") if other_url.endswith(c.path)]
    assert running.journals[0].store.journal_state(f"event:Ev0FLOOD{USER_PENDING}") is None  # never journaled


def busy_notices(fake) -> list[tuple[str, str]]:
    """``(user, channel)`` of every ephemeral "busy" notice posted."""
    return [(c.body["user"], c.body["channel"]) for c in fake.calls("chat.postEphemeral") if c.body.get("text") == BUSY]


def test_the_shared_cap_drops_a_heavy_users_job_not_a_newcomers(crowded, fake_slack, caplog) -> None:
    running, gate = crowded
    url = running.urls[0]
    caplog.set_level(logging.INFO)
    stamps = {}  # three flooding users, two mentions each: four held on the threads, two queued (FLOOD2's)
    for n in range(3):
        stamps[n] = flood(url, 2, first=2 * n, user=f"{FLOOD}{n}")
    fields, reply_url = command(fake_slack, OTHER)
    status, body = post(url, urlencode(fields))  # nothing pending: FLOOD2's newest mention makes room
    third_fields, _ = command(fake_slack, "U0THIRD")
    third = post(url, urlencode(third_fields))  # now nobody has two more queued: the shared cap refuses
    gate.set()
    running.drain()

    assert (status, body) == (200, b"")
    assert [c for c in fake_slack.calls("response_url") if reply_url.endswith(c.path)]
    assert third[0] == 200 and json.loads(third[1]) == {"response_type": "ephemeral", "text": BUSY}
    assert [replies_in_thread(fake_slack, ts) for n in range(3) for ts in stamps[n]] == [1, 1, 1, 1, 1, 0]
    assert busy_notices(fake_slack) == [(f"{FLOOD}2", "C0GENERAL")]
    busy = [r.getMessage() for r in caplog.records if r.getMessage().startswith("busy:")]
    assert len(busy) == 1 and f"all users together have {TOTAL} requests pending (at most {TOTAL})" in busy[0]
    assert "U0THIRD has 0" in busy[0]


def test_a_command_that_waited_past_its_bound_is_answered_busy_not_late(held, fake_slack, monkeypatch) -> None:
    running, gate = held
    url = running.urls[0]
    real = intake.stale_after
    monkeypatch.setattr(intake, "stale_after", lambda body: 0.0 if body.get("command") else real(body))
    flood(url, THREADS)  # every thread held: the command waits (past its bound of 0 s)
    fields, reply_url = command(fake_slack, OTHER)
    assert post(url, urlencode(fields)) == (200, b"")
    gate.set()
    running.drain()

    replies = [c.body for c in fake_slack.calls("response_url") if reply_url.endswith(c.path)]
    assert [r.get("text") for r in replies] == [BUSY] and replies[0]["response_type"] == "ephemeral"
    now = utc_now()  # its journal row was ended: nothing left for a retake, even once every lease ran out
    assert (
        running.journals[0].store.journal_stale("command", now - timedelta(hours=1), now=now + timedelta(hours=1)) == []
    )


def test_a_shortcut_whose_trigger_expired_opens_no_modal(held, fake_slack, monkeypatch) -> None:
    running, gate = held
    monkeypatch.setattr(intake, "TRIGGER_WAIT_S", 0.0)
    flood(running.urls[0], THREADS)
    assert post(running.urls[0], urlencode({"payload": json.dumps(interaction(fake_slack, "global_shortcut"))})) == (
        200,
        b"",
    )
    gate.set()
    running.drain()
    assert fake_slack.calls("views.open") == []


def test_retries_of_a_queued_mention_are_never_told_busy(held, fake_slack) -> None:
    running, gate = held
    url = running.urls[0]
    stamps = flood(url, USER_PENDING)  # FLOOD at their cap; the first mention is held on a thread
    first = mention_envelope("Ev0FLOOD0", stamps[0], text=f"<@{BOT_USER_ID}> sparse attention 0", user=FLOOD)
    copy = first.replace("Ev0FLOOD0", "Ev0FLOODCOPY")  # the same message under a new event id
    answers = [post(url, first, retry=1), post(url, copy, retry=2), post(url, first, retry=3)]
    gate.set()
    running.drain()

    assert answers == [(200, b"")] * 3
    assert busy_notices(fake_slack) == []
    assert [replies_in_thread(fake_slack, ts) for ts in stamps] == [1] * USER_PENDING


def test_a_refused_link_shared_does_not_use_up_the_users_busy_notice(held, fake_slack, caplog) -> None:
    """An attacker's finding: a flood of mentions and link_shared events from one user got
    no "busy" notice at all when a link_shared (which expects no answer) was refused first."""
    running, gate = held
    url = running.urls[0]
    flood(url, USER_PENDING)  # the user's places are full
    assert post(url, links_shared())[0] == 200  # refused: no answer expected, none given
    flood(url, 2, first=USER_PENDING)  # refused mentions: the first one is told
    gate.set()
    running.drain()
    assert busy_notices(fake_slack) == [(FLOOD, "C0GENERAL")]
