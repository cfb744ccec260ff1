"""Signed requests Slack would never send, and refusals that name their reason:
400 or 413 with a short body and one WARNING line, never a traceback
(docs/interfaces.md "Quality bars"; Slack's signing rule:
https://docs.slack.dev/authentication/verifying-requests-from-slack)."""

from __future__ import annotations

import http.client
import json
import logging
import time
from urllib.parse import quote, urlsplit

import pytest

from tests.signing import FORM, JSON, signed_headers
from tests.slack.slackkit import SECRET, SlackHarness


@pytest.mark.parametrize(
    "body,reason",
    [
        ('{"type":"event_callback","event_id":"Ev3","event":"str","team_id":"T0"}', "event is not an object"),
        (
            '{"type":"event_callback","event_id":"Ev2","event":{"type":"app_mention","text":123,'
            '"channel":"C0GENERAL","ts":"1.2","user":"U1"},"team_id":"T0"}',
            "event.text is not a string",
        ),
        ('{"type":"url_verification"}', "without a challenge"),
        ('{"type":"url_verification","challenge":null}', "without a challenge"),
    ],
)
def test_signed_events_of_a_shape_slack_never_sends_are_400_in_one_line(
    slack: SlackHarness, body: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    response = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=JSON))
    assert response.status == 400 and b"challenge" not in response.body
    # waitress itself warns "Task queue depth is N" on a loaded machine: not our line
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and not r.name.startswith("waitress")]
    assert len(warnings) == 1 and reason in warnings[0].getMessage() and warnings[0].exc_info is None
    assert "Traceback" not in caplog.text and slack.fake.calls("chat.postMessage") == []


def test_a_body_over_the_limit_is_read_and_answered_413_with_a_short_body(slack: SlackHarness, caplog) -> None:
    from bot.slack.transport.http_server import MAX_BODY

    body = "text=" + "a" * (2 * MAX_BODY)
    caplog.set_level(logging.WARNING, logger="bot.slack.transport.http_server")
    response = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body))
    assert response.status == 413 and len(response.body) < 100
    assert [r.getMessage() for r in caplog.records if r.name == "bot.slack.transport.http_server"] == [
        f"refused a request to /slack/events (413): its body has {len(body)} bytes, more than {MAX_BODY}"
    ]


@pytest.mark.parametrize("change,reason", [("timestamp", "BAD_TIMESTAMP"), ("bytes", "NOT_UTF8")])
def test_a_refusal_names_its_true_reason(slack: SlackHarness, caplog, change: str, reason: str) -> None:
    from bot.slack.transport import http_server

    raw = b"command=%2Fpaper&text=sparse&x=\xff\xfe"
    headers = signed_headers(SECRET, "command=%2Fpaper&text=sparse")
    if change == "timestamp":
        raw = b"command=%2Fpaper&text=sparse"
        headers["X-Slack-Request-Timestamp"] = "abc"
    else:
        headers = _signed_bytes(raw)
    caplog.set_level(logging.WARNING, logger="bot.slack.transport.http_server")
    status = _post_bytes(slack, raw, headers)
    assert status == 401
    assert [r.getMessage() for r in caplog.records if r.name == "bot.slack.transport.http_server"] == [
        f"rejected a request to /slack/events (401): {getattr(http_server, reason)}"
    ]


def _signed_bytes(raw: bytes) -> dict[str, str]:
    """Slack's v0 signature over raw bytes (https://docs.slack.dev/authentication/verifying-requests-from-slack)."""
    import hashlib
    import hmac

    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": "v0=" + digest,
    }


def _post_bytes(slack: SlackHarness, raw: bytes, headers: dict[str, str]) -> int:
    parts = urlsplit(slack.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/slack/events", body=raw, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


DEEP = '{"type":"event_callback","event":' + "[" * 40_000 + "]" * 40_000 + "}"


@pytest.mark.parametrize(
    "body,content_type,reason",
    [
        (DEEP, JSON, "nested too deeply"),
        (
            "payload=" + quote(json.dumps({"type": "block_actions", "actions": "x", "user": {"id": "U1"}})),
            FORM,
            "payload.actions is not a list of objects",
        ),
        (
            "payload=" + quote(json.dumps({"type": "block_actions", "actions": [], "user": "U1"})),
            FORM,
            "payload.user is not an object",
        ),
        ("payload=" + quote("[1, 2]"), FORM, "payload is not a JSON object"),
    ],
)
def test_signed_bodies_bolt_would_choke_on_are_400_in_one_line(
    slack: SlackHarness, body: str, content_type: str, reason: str, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    response = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=content_type))
    assert response.status == 400
    # the server's own line (another test's background thread may still log meanwhile)
    warnings = [
        r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "bot.slack.transport.http_server"
    ]
    assert len(warnings) == 1 and reason in warnings[0].getMessage() and warnings[0].exc_info is None
    assert "Traceback" not in caplog.text


def test_a_signature_with_bytes_beyond_ascii_is_401_without_a_traceback(slack: SlackHarness, caplog) -> None:
    from bot.slack.transport import http_server

    raw = b"command=%2Fpaper&text=sparse"
    headers = _signed_bytes(raw)
    headers["X-Slack-Signature"] = "v0=\u00e9"  # sent as the byte 0xE9 (HTTP headers are Latin-1)
    caplog.set_level(logging.DEBUG)
    assert _post_bytes(slack, raw, headers) == 401
    assert [r.getMessage() for r in caplog.records if r.name == "bot.slack.transport.http_server"] == [
        f"rejected a request to /slack/events (401): {http_server.MISMATCH}"
    ]
    assert "Traceback" not in caplog.text
