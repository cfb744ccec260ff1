"""When the real answer cannot be shown: Slack refused it (log Slack's reasons
once, answer in plain text), or it failed after the ack (``SORRY``).

The renderer keeps to Slack's rules (docs/slack-rules.md; the strict fake in
the tests checks them), but a refusal must still never leave a user with
silence:

- ``refusal``: tells a ``chat.postMessage`` / ``views.*`` refusal
  (``invalid_blocks``, ``invalid_arguments`` …) from other errors and logs its
  ``response_metadata.messages`` — the callers (``bot.slack.delivery.poster``,
  ``unfurls``, ``view_or_plain`` for every ``views.*`` call) then send the plain version.
- ``plain`` / ``plain_view``: the plain version of a message or a view; a
  ``response_url`` reply that Slack refuses is sent again as ``plain``
  (``bot.slack.delivery.response_url.respond_or_plain``).
- ``pre_send_retry``: the one retry slack_sdk's clients may make — of errors
  raised before Slack could have the request.
- ``failed``: the one log line of a Slack call that could not be made at all —
  an ``expired_trigger_id``, a dropped connection: Slack's error code, no
  traceback (a user clicking fast, or a flood, makes many); any other
  exception is a defect and keeps its traceback.
- ``quiet_unwritable``: a failure because the database cannot be written
  (read-only, full, an I/O error: an operator's problem, not a defect) is one
  ERROR line naming the database and the cause, not a traceback, whichever
  listener logged it.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable
from urllib.error import URLError

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler

from bot.core.ports import Message
from bot.slack.delivery.work_queue import waited
from bot.store.db import database_place, unwritable

log = logging.getLogger(__name__)

#: A ``trigger_id`` expires 3 s after Slack sends it
#: (docs/platform-facts.md "Link unfurls and shortcuts"); a job
#: that waited longer than this in the work queue does not try one.
TRIGGER_LIFE_S = 3.0

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


def failed(what: str, exc: BaseException) -> None:
    """Log that ``what`` failed: one WARNING line with Slack's error code when Slack
    refused it or the network failed (``SlackApiError``, ``SlackClientError``,
    ``OSError``); an ERROR with the traceback for anything else (a defect).

    Args:
        what: what could not be done ("views.open of the search modal").
        exc: what was raised.
    """
    if isinstance(exc, SlackApiError) and exc.response is not None:
        log.warning("%s failed: Slack answered %s", what, exc.response.get("error") or exc.response.status_code)
    elif isinstance(exc, (SlackClientError, OSError)):
        log.warning("%s failed: %s", what, type(exc).__name__)
    else:
        log.error("%s failed", what, exc_info=exc)


def pre_send_retry() -> ConnectionErrorRetryHandler:
    """One retry of errors raised before Slack could have the request (``URLError``:
    refused, DNS, a failed send) — never of a drop after the body went out, which
    Slack may already have acted on (slack_sdk's default retries both)."""
    return ConnectionErrorRetryHandler(max_retry_count=1, error_types=[URLError])


def plain_view(view: dict, text: str) -> dict:
    """A minimal view of the same kind as ``view`` showing ``text`` (mrkdwn).

    Args:
        view: the view Slack refused (its ``type``).
        text: what to show instead (mrkdwn; cut to 3,000 characters).
    """
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

    Args:
        call: a bound ``WebClient`` ``views.*`` method.
        view: the view.
        text: its plain version's text (the message's ``text``).
        kwargs: the call's other arguments (``trigger_id``, ``view_id``, ``user_id`` …), sent both times.

    Raises:
        slack_sdk.errors.SlackApiError / SlackClientError: any other failure,
            or a refusal of the plain view too; ``expired_trigger_id`` without a
            call when the queued job running it waited past ``TRIGGER_LIFE_S``.
    """
    age = waited()
    if kwargs.get("trigger_id") and age is not None and age > TRIGGER_LIFE_S:
        # known without asking Slack: the caller's fallback answers at once, no request is spent
        raise SlackApiError("trigger_id expired before the job ran", {"ok": False, "error": "expired_trigger_id"})
    try:
        return call(view=view, **kwargs)
    except SlackApiError as exc:
        if not refusal(exc, getattr(call, "__name__", "views call")):
            raise
        return call(view=plain_view(view, text), **kwargs)


class Unwritable(logging.Filter):
    """A logger filter: a record whose exception says the database cannot be written
    (``bot.store.db.unwritable``) loses its traceback and gains the cause —
    ``"/paper failed (…): the database at /srv/paperbot.db cannot be written:
    attempt to write a readonly database"``. Other records pass unchanged.

    Args:
        place: where the database is (``bot.store.db.database_place``).
    """

    def __init__(self, place: str) -> None:
        super().__init__()
        self.place = place

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` in place when its exception is an unwritable database; always True."""
        why = unwritable(record.exc_info[1] if record.exc_info else None)
        if why is not None:
            record.msg = f"{record.getMessage()}: the database at {self.place} cannot be written: {why}"
            record.args, record.exc_info, record.exc_text = None, None, None
        return True


class _UnwritableRecords:
    """A log record factory: each record of a ``bot`` logger passes ``Unwritable`` as it
    is made — loggers created later included (a module imported on first use), which a
    filter put on each existing logger would miss.

    Args:
        base: the factory it wraps (logging's own, or one set before).
        place: where the database is (``bot.store.db.database_place``).
    """

    def __init__(self, base: Callable[..., logging.LogRecord], place: str) -> None:
        self.base = base
        self.unwritable = Unwritable(place)

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.base(*args, **kwargs)
        if record.name == "bot" or record.name.startswith("bot."):
            self.unwritable.filter(record)
        return record


def quiet_unwritable(database_url: str) -> None:
    """Pass every record of a ``bot.*`` logger through ``Unwritable`` (replacing an
    earlier call's place), through logging's record factory
    (https://docs.python.org/3/library/logging.html#logging.setLogRecordFactory):
    a logger's own filters see only the records logged on it, and a module imported
    after this call has a logger of its own.

    Args:
        database_url: the store's URL (only its place is logged, never a password).
    """
    current = logging.getLogRecordFactory()
    base = current.base if isinstance(current, _UnwritableRecords) else current
    logging.setLogRecordFactory(_UnwritableRecords(base, database_place(database_url)))
