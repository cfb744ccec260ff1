"""The ``app_mention`` listener: answer ``@paperbot …`` once, in the message's thread.

Events are acked by Bolt before the listener runs (an auto-ack,
docs/platform-facts.md "Bolt"), so the work here never races the 3 s limit. Slack
retries an event it thinks was not received (``X-Slack-Retry-Num``, same
``event_id``) and an edited message keeps its ``ts``; both are recognised
through the injectable ``seen(*keys)`` check over two keys claimed together
— ``event:<event_id>`` and ``msg:<team>:<channel>:<ts>`` — so neither ever
produces a second reply, and concurrent duplicates give exactly one
(docs/interfaces.md "Mentions and direct messages").

``answer_message`` is transport-neutral over one message-like event, so the
later ``message.im`` (DM) listener reuses it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import App
from slack_sdk import WebClient

from bot.core.models import Context
from bot.core.ports import Message, PostError
from bot.core.replies import EPHEMERAL
from bot.render import render
from bot.slack.delivery.fair_slots import FairSlots, quick
from bot.slack.delivery.journal_context import RETAKEN, NotMine, RetryLater, journaled, settled, still_mine
from bot.slack.delivery.poster import TRANSIENT, SlackPoster
from bot.slack.listeners.slash_command import user_time_zone
from bot.slack.transport.incoming_text import first_word, mention_text

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Subtypes answered; everything else (``message_changed`` edits,
#: ``bot_message``, ``message_deleted``, canvas ``document_mention`` …) is
#: ignored. Source: docs.slack.dev/reference/events/app_mention and the
#: ``message`` subtypes list.
ANSWERED_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})
_UNBOUNDED = contextlib.nullcontext()
SORRY = "Sorry, something went wrong while answering that. Please try again in a moment."


class SeenKeys:
    """A bounded, thread-safe, in-memory set of handled idempotency keys.

    Stands in for ``Store.first_time(key)`` (which also survives restarts
    and is shared between processes). Oldest keys are forgotten first.

    Args:
        max_keys: keys kept. Slack retries an event within about 6 minutes
            (immediately, ~1 min, ~5 min; docs/platform-facts.md), so 10,000
            covers far more than the events of that window.
    """

    def __init__(self, max_keys: int = 10_000) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._max = max_keys
        self._lock = threading.Lock()

    def seen(self, *keys: str) -> bool:
        """True when any of ``keys`` had been recorded before (then nothing is
        recorded); otherwise record them all and return False — one atomic step."""
        with self._lock:
            if any(key in self._keys for key in keys):
                return True
            for key in keys:
                self._keys[key] = None
            while len(self._keys) > self._max:
                self._keys.popitem(last=False)
            return False


def register(app: App, service: "Service", *, seen: Callable[..., bool], slots: FairSlots | None = None) -> None:
    """Register the ``app_mention`` listener on ``app``.

    Args:
        app: the Bolt app.
        service: its ``mention(text: str, ctx: Context) -> Reply`` answers.
        seen: ``seen(*keys) -> bool``, True when any key was handled before;
            otherwise records all of them — atomically, as one claim (any
            number of duplicates may race).
        slots: bounds concurrent service calls (``bot.slack.app.WORK_SLOTS``).
    """
    slots = slots or FairSlots(1_000)

    def app_mention(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: dict[str, Any]) -> None:
        with settled(context):
            answer_message(
                body,
                event,
                service=service,
                poster=SlackPoster(client),
                seen=CLAIMED if journaled(context) else seen,
                time_zone=lambda user: user_time_zone(client, user),
                slots=slots,
                retaken=bool(context.get(RETAKEN)),
                owned=lambda: still_mine(context),
            )

    app.event("app_mention")(app_mention)


def CLAIMED(*keys: str) -> bool:
    """The ``seen`` check for work the journal middleware already claimed: never seen."""
    return False


def idempotency_keys(body: dict[str, Any], event: dict[str, Any]) -> list[str]:
    """The keys under which this event counts as handled.

    Returns:
        list[str]: ``["event:Ev123", "msg:T1:C1:1712345678.000100"]`` (either
        is left out when its parts are missing).
    """
    keys = []
    if body.get("event_id"):
        keys.append(f"event:{body['event_id']}")
    team = body.get("team_id") or event.get("team") or ""
    if event.get("channel") and event.get("ts"):
        keys.append(f"msg:{team}:{event['channel']}:{event['ts']}")
    return keys


def should_answer(event: dict[str, Any]) -> bool:
    """False for bots (ours included), edits, deletions and other subtypes."""
    if event.get("bot_id") or event.get("subtype") not in ANSWERED_SUBTYPES:
        return False
    return bool(event.get("channel") and event.get("ts"))


def answer_message(
    body: dict[str, Any],
    event: dict[str, Any],
    *,
    service: "Service",
    poster: SlackPoster,
    seen: Callable[..., bool],
    time_zone: Callable[[str], str | None] = lambda user: None,
    slots: FairSlots | None = None,
    retaken: bool = False,
    owned: Callable[[], bool] = lambda: True,
) -> bool:
    """Answer one mention (or DM) in its thread, unless already answered.

    Args:
        body: the Events API envelope (``event_id``, ``team_id``, …).
        event: ``body["event"]`` (``channel``, ``ts``, ``thread_ts``,
            ``text``, ``user``).
        service: answers ``mention(text, ctx)``.
        poster: posts the rendered reply (``chat.postMessage``).
        seen: the idempotency check (see ``register``).
        time_zone: the user's IANA zone or None; asked only for
            ``subscribe`` (``users.info``, see ``slash_command.user_time_zone``).
        slots: held while the service and the renderer run (None: unbounded).
        retaken: the journal took this over from a crashed or stalled owner
            that had started posting: post only if ``poster.replied_in_thread``
            says no reply is there yet (unknown → skipped, logged), and never
            an ephemeral reply (it cannot be looked up: skipped, logged).
        owned: renews the journal claim right before the post; False (another
            process took the work over after this one stalled past its lease)
            raises ``NotMine``: nothing is posted (fencing).

    Returns:
        bool: True when a reply was posted. False when ignored, already
        answered, when ``seen`` raised (logged: without it a second reply
        cannot be ruled out) or when posting failed for good (logged:
        ``channel_not_found``, ``not_in_channel`` …).

    Raises:
        RetryLater: posting failed in a way that may pass
            (``poster.TRANSIENT``: HTTP 5xx, ``internal_error``, a dropped
            connection); the journal tries again later, and its retake looks
            in the thread first, so a post that did land is not doubled.
    """
    if not should_answer(event):
        log.debug("ignored %s event (subtype %s)", event.get("type"), event.get("subtype"))
        return False
    keys = idempotency_keys(body, event)
    try:
        duplicate = seen(*keys)  # one claim over every key (see the module doc)
    except Exception:  # noqa: BLE001 — e.g. the store is down: cannot tell, so never risk a 2nd reply
        log.exception("idempotency check failed for %s; not answered", " ".join(keys))
        return False
    if duplicate:
        log.info("%s already answered; skipped", " ".join(keys))
        return False
    channel = event["channel"]
    thread_ts = event.get("thread_ts") or event["ts"]
    user = event.get("user") or ""
    if retaken:
        replied = poster.replied_in_thread(channel, thread_ts, after_ts=event["ts"])
        if replied is not False:
            log.warning(
                "%s: %s; not answering again",
                " ".join(keys),
                "already answered" if replied else "cannot read the thread to check",
            )
            return False
    try:
        raw = event.get("text")
        text = mention_text(raw if isinstance(raw, str) else "")  # Slack sends a string (or none)
        tz = time_zone(user) if first_word(text) == "subscribe" else None
        ctx = Context(
            team_id=body.get("team_id") or event.get("team") or "", channel_id=channel, user_id=user, user_tz=tz
        )
        with slots(user, quick(text)) if slots is not None else _UNBOUNDED:
            message = render(service.mention(text, ctx))
    except Exception:  # noqa: BLE001 — listeners must not raise; the user gets a short note
        log.exception("mention failed (%s)", " ".join(keys))
        message = Message(text=SORRY, visibility="in_channel")
    ephemeral = message.visibility == EPHEMERAL and bool(user) and not channel.startswith("D")
    if retaken and ephemeral:
        log.warning(
            "%s: an ephemeral reply may have gone out already and cannot be looked up; not answering again",
            " ".join(keys),
        )
        return False
    if not owned():  # fencing: stalled past the lease, another process answers it
        raise NotMine()
    try:
        if ephemeral:
            # help, "did you mean" and "no confident match" go to the asker only, in the
            # thread (issue 12 point 4; docs/slack-rules.md [ephemeral])
            poster.post_ephemeral(channel, user, message, thread_ts=thread_ts)
        else:
            poster.post(channel, message, thread_ts=thread_ts)
    except PostError as exc:
        log.warning("reply to mention in %s failed: %s", channel, exc.code)
        if exc.code in TRANSIENT:
            raise RetryLater(f"chat.postMessage {exc.code}") from None
        return False
    return True
