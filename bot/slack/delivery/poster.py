"""``SlackPoster``: ``bot.core.ports.Poster`` over the Slack Web API.

Posts a rendered ``Message`` with ``chat.postMessage`` (unfurls off), then
its ``thread`` messages as replies in that thread, and turns Slack's errors
into ``PostError(code)`` so the service and the digest never see slack_sdk
types. A message Slack refuses (``invalid_blocks`` …) is logged with Slack's
reasons and posted again as its plain text (``bot.slack.delivery.fallback``).
Also finds the bot's own recent post in a channel
(``conversations.history``) to reconcile a digest claim left by a crash, and
its own reply in a thread (``conversations.replies``) before a mention left
unanswered by a crash is answered again.

Rate limits: the ``WebClient`` built by ``bot.slack.app.make_client`` carries
a ``RateLimitErrorRetryHandler`` that sleeps ``Retry-After`` seconds and
retries (docs/platform-facts.md "slack_sdk"); a 429 that outlives the retries arrives here
as ``SlackApiError`` with error ``ratelimited`` → ``PostError("ratelimited")``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.core.ports import HistoryUnavailable, Message, PostError
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import plain, refusal

log = logging.getLogger(__name__)

#: Pages of ``conversations.history`` read when looking for our own post
#: (200 messages a page, the method's maximum per Slack's docs).
HISTORY_PAGES = 5
HISTORY_PAGE_SIZE = 200


#: ``PostError`` codes that may pass if the post is tried again later: Slack's
#: own "try again" errors (docs.slack.dev/reference/methods/chat.postMessage,
#: "Errors": ``internal_error``, ``fatal_error``, ``service_unavailable``,
#: ``request_timeout``), a 429 that outlived the retries, any other HTTP 5xx —
#: JSON or a proxy's plain "503 Unavailable" (``server_error``) — and a network
#: failure or an answer under 500 that is not JSON (``request_failed``: the
#: post may have landed, so whoever tries again looks first).
TRANSIENT = frozenset(
    {
        "internal_error",
        "fatal_error",
        "service_unavailable",
        "request_timeout",
        "ratelimited",
        "server_error",
        "request_failed",
    }
)
#: How slack_sdk words the ``error`` of a body that is not JSON (an HTML or
#: plain-text page from a proxy or load balancer).
NOT_JSON = "Received a response in a non-JSON format"


def _error_code(exc: Exception) -> str:
    """Slack's error string for ``exc`` ("is_archived"), or a generic code."""
    if isinstance(exc, SlackApiError):
        response = exc.response
        code = response.get("error") if response is not None else None
        if not code and response is not None and response.status_code == 429:
            code = "ratelimited"
        if response is not None and response.status_code >= 500 and code not in TRANSIENT:
            code = "server_error"  # any 5xx may pass, JSON or not (a proxy's "503 Unavailable")
        elif isinstance(code, str) and code.startswith(NOT_JSON):
            code = "request_failed"  # an answer that is not Slack's: the post may have landed
        return str(code or "slack_api_error")
    return "request_failed"


class SlackPoster:
    """Posts ``bot.core.ports.Message`` objects to Slack channels.

    Args:
        client: a ``slack_sdk.WebClient`` holding the bot token (scopes:
            ``chat:write``; ``chat:write.public`` to post in public channels
            the bot has not joined; ``channels:history`` / ``groups:history``
            and ``channels:join`` for ``find_recent_post``; docs/scopes.md).

        slots: the listeners' ``FairSlots``: a post made while holding one (the
            subscribe confirmation, inside the service) gives it back while
            Slack answers, so a slow Web API never holds a search slot.

    Thread safety: safe to share between threads (``WebClient`` is; the
    cached bot identity is guarded by a lock).
    """

    def __init__(self, client: WebClient, slots: FairSlots | None = None) -> None:
        self._client = client
        self._slots = slots
        self._identity: tuple[str | None, str | None] | None = None
        self._lock = threading.Lock()

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        """Post ``message``, then each of ``message.thread`` as thread replies.

        Args:
            channel_id: Slack channel id ("C0123").
            message: the rendered message (text fallback + Block Kit dicts).
            thread_ts: post as a reply in this thread (the parent's ``ts``),
                or None for a new top-level message.

        Returns:
            str: the ``ts`` of the first message posted (the parent).

        Raises:
            PostError: the first message could not be posted; ``code`` is
                Slack's error ("not_in_channel", "is_archived",
                "channel_not_found", "invalid_auth", "ratelimited", …) or
                "request_failed" for network errors. A failing *thread reply*
                is logged and does not raise: the parent is already posted,
                and raising would make a caller believe nothing was.
        """
        with self._slots.outside() if self._slots is not None else contextlib.nullcontext():
            ts = self._post_one(channel_id, message, thread_ts)
            reply_to = thread_ts or ts
            for part in message.thread:
                try:
                    self._post_one(channel_id, part, reply_to)
                except PostError as exc:
                    log.warning("thread reply in %s (thread %s) failed: %s", channel_id, reply_to, exc.code)
        return ts

    def post_ephemeral(self, channel_id: str, user_id: str, message: Message, thread_ts: str | None = None) -> None:
        """Show ``message`` to ``user_id`` only (``chat.postEphemeral``, scope ``chat:write``).

        Args:
            channel_id: where the user is ("C0123").
            user_id: who sees it ("U0123"); Slack refuses a user not in the channel.
            message: the rendered message (its ``thread`` is not sent: an
                ephemeral message has no replies).
            thread_ts: show it in this thread, or None.

        Raises:
            PostError: Slack refused ("user_not_in_channel", …) or the network failed.
        Source: https://docs.slack.dev/reference/methods/chat.postEphemeral
        """
        kwargs = {k: v for k, v in message.payload().items() if k not in ("metadata", "unfurl_links", "unfurl_media")}
        if thread_ts:
            kwargs["thread_ts"] = thread_ts
        if not kwargs.get("blocks"):
            kwargs.pop("blocks", None)
        try:
            self._client.chat_postEphemeral(channel=channel_id, user=user_id, **kwargs)
        except (SlackApiError, SlackClientError, OSError) as exc:
            raise PostError(_error_code(exc), type(exc).__name__) from exc

    def _post_one(self, channel_id: str, message: Message, thread_ts: str | None) -> str:
        kwargs = message.payload()
        if thread_ts:
            kwargs["thread_ts"] = thread_ts
        if not kwargs.get("blocks"):
            kwargs.pop("blocks", None)
        try:
            try:
                response = self._client.chat_postMessage(channel=channel_id, **kwargs)
            except SlackApiError as exc:
                if not kwargs.get("blocks") or not refusal(exc, f"chat.postMessage in {channel_id}"):
                    raise
                kwargs = dict(kwargs, text=plain(message).text)  # the user still gets an answer
                kwargs.pop("blocks")
                response = self._client.chat_postMessage(channel=channel_id, **kwargs)
        except (SlackApiError, SlackClientError, OSError) as exc:
            raise PostError(_error_code(exc), type(exc).__name__) from exc
        return str(response["ts"])

    def _bot_identity(self) -> tuple[str | None, str | None]:
        """(bot user id, bot id) from ``auth.test``, cached after success."""
        with self._lock:
            if self._identity is None:
                result = self._client.auth_test()
                self._identity = (result.get("user_id"), result.get("bot_id"))
            return self._identity

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        """The ``ts`` of the bot's own post containing ``marker``, newest first.

        Reads up to ``HISTORY_PAGES`` × ``HISTORY_PAGE_SIZE`` messages of
        ``conversations.history`` (scopes ``channels:history`` /
        ``groups:history``) newer than ``oldest_ts`` and matches ``marker`` in
        the message's metadata, blocks (``block_id``) or text. The digest posts
        into public channels it never joined (``chat:write.public``), whose
        history answers ``not_in_channel``: then it joins the channel
        (``conversations.join``, scope ``channels:join``) and reads again —
        only here, after an interrupted post (README "Paper of the day").

        Args:
            channel_id: Slack channel id.
            marker: a string the post is known to contain (e.g. a paper id).
            oldest_ts: Unix time in seconds; older messages are not read.

        Returns:
            str | None: the message ``ts``; None when every message since
            ``oldest_ts`` was read and none is that post.

        Raises:
            HistoryUnavailable: history cannot be read (missing ``*:history``
                scope, the bot cannot join, network error, a personal feed's
                DM addressed by user id) or holds more
                messages than one look reads — the caller then cannot know.
        """
        if channel_id[:1] in ("U", "W"):
            # a personal feed posts to the user id (docs/slack-rules.md [dm-by-user-id]); the
            # history of that DM is only readable by its D… id, which is not kept
            raise HistoryUnavailable(f"a post to user {channel_id} has no history to read by user id")
        try:
            try:
                return self._search_history(channel_id, marker, oldest_ts)
            except SlackApiError as exc:
                if _error_code(exc) != "not_in_channel":
                    raise
                self._client.conversations_join(channel=channel_id)
                log.info("joined %s to look for the post of an interrupted digest run", channel_id)
                return self._search_history(channel_id, marker, oldest_ts)
        except (SlackApiError, SlackClientError, OSError) as exc:
            raise HistoryUnavailable(f"cannot read the history of {channel_id} ({_error_code(exc)})") from None

    def _search_history(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        user_id, bot_id = self._bot_identity()
        cursor = None
        for _ in range(HISTORY_PAGES):
            response = self._client.conversations_history(
                channel=channel_id,
                oldest=f"{oldest_ts:.6f}",
                limit=HISTORY_PAGE_SIZE,
                cursor=cursor,
                include_all_metadata=True,
            )
            for msg in response.get("messages") or []:
                mine = (bot_id and msg.get("bot_id") == bot_id) or (user_id and msg.get("user") == user_id)
                carried = json.dumps([msg.get("metadata"), msg.get("blocks")]) + (msg.get("text") or "")
                if mine and marker in carried:
                    return str(msg["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not response.get("has_more") or not cursor:
                return None
        raise HistoryUnavailable(
            f"more than {HISTORY_PAGES * HISTORY_PAGE_SIZE} messages in {channel_id} since the claim"
        )

    def replied_in_thread(self, channel_id: str, thread_ts: str, after_ts: str) -> bool | None:
        """Whether the bot already posted in the thread ``thread_ts`` after ``after_ts``.

        One ``conversations.replies`` call (docs.slack.dev/reference/methods/
        conversations.replies; scopes ``channels:history``, ``groups:history``,
        ``im:history``), newest 200 messages of the thread.

        Args:
            channel_id: the channel.
            thread_ts: the thread's parent message ``ts``.
            after_ts: only messages newer than this ``ts`` count.

        Returns:
            bool | None: True when a message of the bot newer than ``after_ts``
            is in the thread, False when none is, None when the thread cannot
            be read (missing scope, not in the channel, network) — then the
            caller cannot know and must not post again.
        """
        try:
            user_id, bot_id = self._bot_identity()
            response = self._client.conversations_replies(channel=channel_id, ts=thread_ts, limit=HISTORY_PAGE_SIZE)
        except (SlackApiError, SlackClientError, OSError) as exc:
            log.info("cannot read the thread %s in %s (%s)", thread_ts, channel_id, _error_code(exc))
            return None
        for msg in response.get("messages") or []:
            mine = (bot_id and msg.get("bot_id") == bot_id) or (user_id and msg.get("user") == user_id)
            if mine and float(msg.get("ts") or 0) > float(after_ts):
                return True
        return False

    def replied_in_channel(self, channel_id: str, after_ts: str) -> bool | None:
        """Whether the bot posted anything in ``channel_id`` after ``after_ts``
        (one ``conversations.history`` page; for a DM answered at top level).

        Args:
            channel_id: the channel (a DM).
            after_ts: only messages newer than this ``ts`` count.

        Returns:
            bool | None: as ``replied_in_thread``; None when history cannot be read.
        """
        try:
            user_id, bot_id = self._bot_identity()
            response = self._client.conversations_history(channel=channel_id, oldest=after_ts, limit=HISTORY_PAGE_SIZE)
        except (SlackApiError, SlackClientError, OSError) as exc:
            log.info("cannot read the history of %s (%s)", channel_id, _error_code(exc))
            return None
        return any(
            (bot_id and m.get("bot_id") == bot_id) or (user_id and m.get("user") == user_id)
            for m in response.get("messages") or []
        )
