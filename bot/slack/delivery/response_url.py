"""The ``response_url`` POST, connected before it is marked as going out.

A ``/paper`` reply goes out once: the journal marks it "going out" right
before the POST, and a process taking the work over after a crash skips a
marked command, because a ``response_url`` reply cannot be looked up
(docs/architecture.md "Idempotency and the journal"). A reply is lost only
when the process dies after the mark and before the request reaches Slack, so
that gap must hold nothing slow: this sender opens the connection (TCP, and
TLS for ``https``) *first*, then calls ``ready()`` — which writes the mark —
and only then writes the request. slack_sdk's ``WebhookClient`` connects
inside its send, so the mark would have to precede the handshake (tens to
hundreds of milliseconds against Slack; a second or more when a loaded
listener's accept queue is full).

One connection per POST, closed afterwards, as ``WebhookClient`` does: no
pooled connection can turn out stale just as the body is sent.
"""

from __future__ import annotations

import http.client
import json
import ssl as ssl_lib
from typing import Any, Callable
from urllib.error import URLError
from urllib.parse import urlsplit

from slack_sdk.webhook import WebhookResponse

TIMEOUT_S = 30.0  # slack_sdk's WebhookClient default
USER_AGENT = "paperbot (response_url)"


def post_json(
    url: str,
    body: dict[str, Any],
    *,
    ready: Callable[[], None] | None = None,
    ssl: ssl_lib.SSLContext | None = None,
    timeout: float = TIMEOUT_S,
) -> WebhookResponse:
    """POST ``body`` as JSON to ``url``, calling ``ready()`` once connected.

    Args:
        url: an ``http`` or ``https`` ``response_url`` (never logged here).
        body: the message (``text``, ``blocks``, ``response_type`` …); keys
            whose value is None are left out, as slack_sdk does.
        ready: called after the connection is open and before a byte of the
            request is written; an exception from it aborts the POST and
            propagates (``bot.slack.delivery.journal_context.NotMine``: another process owns the work).
        ssl: the TLS context for ``https`` (default: the system's).
        timeout: seconds for the connection and for the answer.

    Returns:
        WebhookResponse: ``status_code`` and ``body`` (Slack answers ``ok``,
        or an error word such as ``invalid_blocks`` with HTTP 400).

    Raises:
        ValueError: ``url`` is not an http(s) URL.
        URLError: the connection could not be opened — nothing reached Slack,
            so the same reply may be sent again.
        ConnectionError / TimeoutError: the connection failed after the request
            was written — Slack may have shown it, so it must not be sent again.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("a response_url must be an http(s) URL")
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl or ssl_lib.create_default_context()
        )
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    data = json.dumps({k: v for k, v in body.items() if v is not None}).encode("utf-8")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        try:
            conn.connect()
        except OSError as exc:  # refused, DNS, TLS: Slack has nothing
            raise URLError(exc) from None
        if ready is not None:
            ready()
        try:
            conn.request(
                "POST",
                target,
                body=data,
                headers={"Content-Type": "application/json;charset=utf-8", "User-Agent": USER_AGENT},
            )
            answer = conn.getresponse()
            text = answer.read().decode(answer.headers.get_content_charset() or "utf-8", "replace")
        except http.client.HTTPException as exc:  # a garbled or cut answer: it may have arrived
            raise ConnectionError(type(exc).__name__) from None
        return WebhookResponse(url=url, status_code=answer.status, body=text, headers=dict(answer.headers.items()))
    finally:
        conn.close()
