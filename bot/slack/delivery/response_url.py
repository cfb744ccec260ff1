"""Replying through a ``response_url`` (``/paper``, buttons, shortcuts): the
sender (``careful``), the reply with its plain-text resend when Slack refuses
it (``respond_or_plain``), and the POST itself, connected before it is marked
as going out (``post_json``).

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
import logging
import ssl as ssl_lib
from typing import Any, Callable
from urllib.error import URLError
from urllib.parse import urlsplit

from slack_sdk.webhook import WebhookClient, WebhookResponse

from bot.core.ports import Message
from bot.slack.delivery.fallback import plain, pre_send_retry

log = logging.getLogger(__name__)

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


def careful(respond: Callable[..., Any], ready: Callable[[], None] | None = None) -> Callable[..., Any]:
    """Bolt's ``respond`` without its blind retry, connected before ``ready()``.

    Bolt's ``Respond`` sends with slack_sdk's default ``WebhookClient``, whose
    ``ConnectionErrorRetryHandler`` also resends after the connection dropped
    *after* the body went out — Slack may already have posted it, so a Share
    appeared twice in the channel. This sender (``post_json``)
    opens the connection, calls ``ready()`` (the journal's "going out" mark),
    then sends; it tries again once only when the connection could not be
    opened (``URLError``: refused, DNS — Slack has nothing), never after the
    body went out (``ConnectionError`` / ``TimeoutError``: ambiguous, raised).
    Behind a proxy, slack_sdk's client sends (``pre_send_retry``), after
    ``ready()``. Anything that is not Bolt's ``Respond`` (tests, the console)
    is returned as is, and ``ready()`` is called before it.

    Args:
        respond: Bolt's ``respond`` (or any callable taking the message's keyword arguments).
        ready: called once, right before the request is written (the journal's "going out" mark); what it raises
            propagates.
    """
    url = getattr(respond, "response_url", None)
    if not isinstance(url, str) or not url:
        if ready is None:
            return respond

        def then(**kwargs: Any):
            ready()
            return respond(**kwargs)

        return then
    proxy, context = getattr(respond, "proxy", None), getattr(respond, "ssl", None)

    def send(**kwargs: Any):
        if proxy:
            if ready is not None:
                ready()
            return WebhookClient(url=url, proxy=proxy, ssl=context, retry_handlers=[pre_send_retry()]).send(**kwargs)
        try:
            return post_json(url, kwargs, ready=ready, ssl=context)
        except URLError:
            return post_json(url, kwargs, ready=ready, ssl=context)

    return send


#: What a ``response_url`` answer means (``outcome``).
DELIVERED, REFUSED, TRY_LATER = "delivered", "refused", "try later"


def outcome(status: int, body: str | None) -> str:
    """Read a ``response_url`` answer: ``DELIVERED``, ``REFUSED`` or ``TRY_LATER``.

    HTTP 200 with body ``ok``, ``{"ok": true}`` or nothing is delivered; HTTP
    5xx is Slack's side failing (the same reply may go again later); anything
    else — ``{"ok": false, …}``, an error word (``invalid_blocks``,
    ``expired_url`` …), any 4xx — is a refusal. Public reports disagree on the
    success body (docs/slack-rules.md [response-url]; java-slack-sdk#1017 for a
    refusal).

    Args:
        status: the HTTP status.
        body: the answer's text (None: none).
    """
    text = (body or "").strip()
    if status >= 500:
        return TRY_LATER
    if status != 200:
        return REFUSED
    if text in ("", "ok"):
        return DELIVERED
    try:
        answer = json.loads(text)
    except ValueError:
        return REFUSED  # an error word
    return DELIVERED if isinstance(answer, dict) and answer.get("ok") is True else REFUSED


def respond_or_plain(
    respond: Callable[..., Any], message: Message, *, ready: Callable[[], None] | None = None, **kwargs: Any
) -> bool:
    """Send ``message`` through a ``response_url``; if Slack refuses it, send its text.

    Args:
        respond: Bolt's ``respond``.
        message: the rendered reply.
        ready: called once, right before the first request is written
            (``careful``); what it raises propagates.
        kwargs: ``response_type``, ``replace_original`` … passed on both times.

    The answer is read by ``outcome``: delivered, it is never sent again; a
    refusal of a reply with blocks is logged once and its text is sent alone,
    once; other refusals (an expired URL …) are logged. Network errors
    propagate (the caller logs them): ``URLError`` means nothing reached Slack;
    ``ConnectionError`` / ``TimeoutError`` after the body was sent means it may
    have (``careful``).

    Returns:
        bool: False when the ``response_url`` answered HTTP 5xx (Slack's side
        failed; the same reply may be sent again later), else True (delivered,
        or failed for good: logged).
    """
    first, respond = careful(respond, ready), careful(respond)
    try:
        response = first(
            text=message.text, blocks=list(message.blocks) or None, unfurl_links=False, unfurl_media=False, **kwargs
        )
    except ValueError:  # not an http(s) URL: no request Slack sends has one, and it never works
        log.warning("the request's response_url is not an http(s) URL; the reply cannot be sent")
        return True
    if response is None:  # a stand-in respond (tests, the console) answers nothing
        return True
    body = (response.body or "").strip()
    result = outcome(response.status_code, body)
    if result == DELIVERED:
        return True
    if result == TRY_LATER or not message.blocks:
        log.warning("response_url answered %s: %s", response.status_code, body[:200])
        return result != TRY_LATER
    log.warning(
        "response_url answered %s: %s — Slack refused the reply; sending plain text instead",
        response.status_code,
        body[:200],
    )
    again = respond(text=plain(message).text, unfurl_links=False, unfurl_media=False, **kwargs)
    if again is not None and outcome(again.status_code, again.body) != DELIVERED:
        log.warning("response_url refused the plain reply too: %s %s", again.status_code, (again.body or "")[:200])
    return True
