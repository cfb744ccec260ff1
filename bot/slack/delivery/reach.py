"""Reaching a conversation with a message the bot may not be able to post there
(a shared paper's card): ``post_card``.

The ways, in order (docs/slack-rules.md [chat-write-public], [join],
[dm-membership], [response-url]): ``chat.postMessage``; for a public channel the
bot is not in (``not_in_channel``: a token without ``chat:write.public``), join it
(``conversations.join``, scope ``channels:join``) and post again; for any
conversation it cannot enter — a private channel, a DM or group DM between
people — Slack's ``response_url`` for that conversation, when the interaction
gave one (``response_type: in_channel``; no thread there, so that way posts the
card made for it, which promises no thread). When every way is refused,
``Unreachable`` says Slack's last answer.
"""

from __future__ import annotations

import logging
from urllib.error import URLError

from slack_sdk import WebClient

from bot.core.ports import Message, PostError
from bot.slack.delivery.poster import SlackPoster
from bot.slack.delivery.response_url import DELIVERED, outcome, post_json

log = logging.getLogger(__name__)

#: Slack's answers for a conversation the bot may not post in (docs/slack-rules.md [chat-write-public]).
NOT_POSTABLE = ("not_in_channel", "channel_not_found", "is_archived", "restricted_action")


class Unreachable(Exception):
    """The message could not be posted there (``code``: Slack's last answer, one of ``NOT_POSTABLE``)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def post_card(
    client: WebClient,
    channel: str,
    card: Message,
    alone: Message,
    *,
    thread_ts: str | None = None,
    response_url: str | None = None,
) -> str | None:
    """Post ``card`` into ``channel`` (in the thread ``thread_ts``) by the first way
    that works (see the module doc); through ``response_url``, ``alone`` instead.

    Args:
        client: Web API client (bot token).
        channel: the conversation id ("C…", "G…", "D…").
        card: the rendered card (its ``thread``: the abstract).
        alone: the card for a ``response_url``, where no thread reply can follow
            (``bot.render.cards.share_message(threaded=False)``: no "in the thread" promise).
        thread_ts: the thread to post in, or None for the top level.
        response_url: Slack's URL for that conversation, or None.

    Returns:
        str | None: the card's ``ts``; None when it went through ``response_url``
        (Slack gives no ``ts`` there).

    Raises:
        Unreachable: every way was refused (``code`` Slack's last answer).
        PostError: another failure of ``chat.postMessage`` (``ratelimited`` …).
    """
    poster = SlackPoster(client)
    ts, code = _posted(poster, channel, card, thread_ts)
    if code == "not_in_channel" and _joined(client, channel):
        ts, code = _posted(poster, channel, card, thread_ts)
    if code is None:
        return ts
    if response_url and _via_response_url(response_url, alone):
        return None
    raise Unreachable(code)


def _posted(poster: SlackPoster, channel: str, card: Message, thread_ts: str | None) -> tuple[str | None, str | None]:
    """``chat.postMessage``: ``(ts, None)`` when posted, ``(None, Slack's answer)`` when
    the bot may not post there.

    Raises:
        PostError: any other failure.
    """
    try:
        return poster.post(channel, card, thread_ts=thread_ts), None
    except PostError as exc:
        if exc.code not in NOT_POSTABLE:
            raise
        return None, exc.code


def _joined(client: WebClient, channel: str) -> bool:
    """``conversations.join`` (scope ``channels:join``); False when Slack refuses (a private channel …)."""
    try:
        client.conversations_join(channel=channel)
    except Exception as exc:  # noqa: BLE001 — not joinable: the caller tries the next way
        log.info("conversations.join %s failed (%s)", channel, exc)
        return False
    log.info("joined %s to post a shared paper", channel)
    return True


def _via_response_url(url: str, card: Message) -> bool:
    """Post ``card`` visibly through a ``response_url``; True when Slack took it
    (``response_url.outcome``) — or may have: a connection lost after the body went
    out counts as sent, so a paper is never shared twice."""
    payload = card.payload()
    payload.pop("metadata", None)
    try:
        response = post_json(url, dict(payload, response_type="in_channel", replace_original=False))
    except (ConnectionError, TimeoutError) as exc:
        log.warning("share through a response_url: connection lost after sending (%s); counted as sent", exc)
        return True
    except (URLError, ValueError) as exc:
        log.warning("share through a response_url failed: %s", exc)
        return False
    if outcome(response.status_code, response.body) != DELIVERED:
        log.warning("share through a response_url answered %s: %s", response.status_code, response.body[:200])
        return False
    return True
