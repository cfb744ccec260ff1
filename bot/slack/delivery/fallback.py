"""When the real answer cannot be shown: Slack refused it (log Slack's reasons
once, answer in plain text), or it failed after the ack (``SORRY``).

The renderer keeps to Slack's rules (docs/slack-rules.md; the strict fake in
the tests checks them), but a refusal must still never leave a user with
silence. Every send path of the adapter goes through here:

- ``respond_or_plain``: a ``response_url`` reply (``/paper``, buttons), read by
  ``outcome``. Slack answers a refused body with HTTP 400 and a bare error word
  such as ``invalid_blocks`` (https://github.com/slackapi/java-slack-sdk/issues/1017)
  or ``{"ok": false, "error": …}``; the reply is then sent again as its ``text``
  alone, once. Success is HTTP 200 with ``ok`` — or ``{"ok": true}``, or an
  empty body, as other public reports have it (docs/slack-rules.md
  [response-url]): a reply is never sent twice.
- ``refusal``: tells a ``chat.postMessage`` / ``views.*`` refusal
  (``invalid_blocks``, ``invalid_arguments`` …) from other errors and logs its
  ``response_metadata.messages`` — the callers (``bot.slack.delivery.poster``,
  ``unfurls``, ``view_or_plain`` for every ``views.*`` call) then send the plain version.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any, Callable
from urllib.error import URLError

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler
from slack_sdk.webhook import WebhookClient

from bot.core.ports import Message
from bot.slack.delivery.response_url import post_json

log = logging.getLogger(__name__)

#: Errors meaning "this message or view breaks a Block Kit rule"
#: (docs.slack.dev/reference/methods/chat.postMessage and views.open, "Errors").
REFUSALS = frozenset(
    {
        "invalid_blocks",
        "invalid_blocks_format",
        "invalid_arguments",
        "invalid_attachments",
        "msg_too_long",
        "invalid_metadata_format",
        "invalid_metadata_schema",
        "metadata_too_large",
        "view_too_large",
    }
)
TEXT_MAX = 3900  # a plain fallback reply: Slack advises ≤ 4,000 characters of text
#: Shown when anything fails after the ack (plain text; no detail leaks).
SORRY = (
    "Sorry, something went wrong while answering that. "
    "Please try again in a moment; if it keeps happening, tell whoever runs paperbot."
)


def plain(message: Message) -> Message:
    """``message`` as its fallback ``text`` alone: no blocks, no thread."""
    return replace(message, text=(message.text or "…")[:TEXT_MAX], blocks=(), thread=())


def refusal(exc: BaseException, where: str) -> str | None:
    """Slack's error code when ``exc`` is a Block Kit refusal, else None.

    Logs the refusal once, at WARNING, with Slack's
    ``response_metadata.messages`` (the json-pointers say which block).

    Args:
        exc: what a ``slack_sdk`` call raised.
        where: what was being sent, for the log ("chat.postMessage in C0123").
    """
    if not isinstance(exc, SlackApiError) or exc.response is None:
        return None
    code = exc.response.get("error")
    if code not in REFUSALS:
        return None
    messages = (exc.response.get("response_metadata") or {}).get("messages") or []
    log.warning(
        "Slack refused %s (%s): %s; sending plain text instead",
        where,
        code,
        "; ".join(map(str, messages)) or "no details",
    )
    return code


def pre_send_retry() -> ConnectionErrorRetryHandler:
    """One retry of errors raised before Slack could have the request (``URLError``:
    refused, DNS, a failed send) — never of a drop after the body went out, which
    Slack may already have acted on (slack_sdk's default retries both)."""
    return ConnectionErrorRetryHandler(max_retry_count=1, error_types=[URLError])


def careful(respond: Callable[..., Any], ready: Callable[[], None] | None = None) -> Callable[..., Any]:
    """Bolt's ``respond`` without its blind retry, connected before ``ready()``.

    Bolt's ``Respond`` sends with slack_sdk's default ``WebhookClient``, whose
    ``ConnectionErrorRetryHandler`` also resends after the connection dropped
    *after* the body went out — Slack may already have posted it, so a Share
    appeared twice in the channel. This sender (``bot.slack.delivery.response_url.post_json``)
    opens the connection, calls ``ready()`` (the journal's "going out" mark),
    then sends; it tries again once only when the connection could not be
    opened (``URLError``: refused, DNS — Slack has nothing), never after the
    body went out (``ConnectionError`` / ``TimeoutError``: ambiguous, raised).
    Behind a proxy, slack_sdk's client sends (``pre_send_retry``), after
    ``ready()``. Anything that is not Bolt's ``Respond`` (tests, the console)
    is returned as is, and ``ready()`` is called before it.
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


def plain_view(view: dict, text: str) -> dict:
    """A minimal view of the same kind as ``view`` showing ``text`` (mrkdwn)."""
    out: dict[str, Any] = {
        "type": view.get("type") or "modal",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": (text or "…")[:3000]}}],
    }
    if out["type"] == "modal":
        out["title"] = {"type": "plain_text", "text": "paperbot"}
        out["close"] = {"type": "plain_text", "text": "Close"}
    return out


def view_or_plain(call: Callable[..., Any], view: dict, text: str, **kwargs: Any) -> Any:
    """``call(view=view, **kwargs)`` (a ``views.*`` method); if Slack refuses the
    view, log why once and send ``plain_view(view, text)`` instead.

    Raises:
        slack_sdk.errors.SlackApiError / SlackClientError: any other failure,
            or a refusal of the plain view too.
    """
    try:
        return call(view=view, **kwargs)
    except SlackApiError as exc:
        if not refusal(exc, getattr(call, "__name__", "views call")):
            raise
        return call(view=plain_view(view, text), **kwargs)
