"""What the listeners share, so that no listener imports another (docs/architecture.md "Layers").
What clicks share — reading a button, answering it, drawing a message again —
is ``bot.slack.listeners.clicks``.

- ``user_time_zone``: the user's Slack zone, asked only for ``subscribe`` —
  the slash command, mentions, DMs.
- ``publish_home``: the Home tab drawn for one user — the App Home, and the
  reading-list buttons clicked in it.
- ``say_once``: the welcome, said once per user or channel — the App Home's
  Messages tab, the bot joining a channel.
- ``answer_message``: the answer to a mention, shared by the mention and DM
  listeners.
- ``signal_quietly``: a signal recorded after a post went out (a share, a
  mention's one-paper answer), its failure only logged.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, Callable

from slack_sdk import WebClient

from bot.core.models import Context
from bot.core.ports import Message, PostError
from bot.core.replies import EPHEMERAL, PaperReply
from bot.render import render
from bot.render.home import home_view
from bot.slack.delivery.event_keys import idempotency_keys, should_answer
from bot.slack.delivery.fair_slots import FairSlots, quick
from bot.slack.delivery.fallback import view_or_plain
from bot.slack.delivery.intake import later
from bot.slack.delivery.journal_context import RetryLater, reply_guard, settled
from bot.slack.delivery.modals import valid_view
from bot.slack.delivery.poster import TRANSIENT, SlackPoster
from bot.slack.transport.incoming_text import first_word, mention_text

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: A modal's status while its search runs (the search modal, the related-papers shortcut).
SEARCHING = "Searching…"
#: ``users.conversations``: Slack recommends ``limit`` ≤ 200; 20 pages cover
#: a viewer in 4,000 channels, beyond which the Home tab lists fewer.
MEMBER_PAGE_SIZE = 200
MEMBER_PAGES = 20
#: Conversation types a subscription can live in. Scopes: ``channels:read``
#: (public) and ``groups:read`` (private channels the bot is in).
MEMBER_TYPES = "public_channel,private_channel"
#: The Home tab when Slack refuses the real one (``bot.slack.delivery.fallback``).
HOME_PLAIN = "*paperbot* searches this workspace's conference papers. Type `/paper help` in any channel to start."


# ---------------------------------------------------------------- who asks
def user_time_zone(client: WebClient, user_id: str) -> str | None:
    """The user's Slack time zone ("Europe/Berlin"); "" when ``users.info``
    fails or gives none (the service then says it uses the default zone);
    None when there is no user to ask.

    Source: ``users.info`` returns ``user.tz`` (docs.slack.dev/reference/
    methods/users.info); needs the ``users:read`` scope.

    Args:
        client: Bolt's ``WebClient``.
        user_id: the Slack user id ("" when unknown).
    """
    if not user_id:
        return None
    try:
        tz = client.users_info(user=user_id).get("user", {}).get("tz")
    except Exception as exc:  # noqa: BLE001 — a missing zone only means "use the default"
        log.info("users.info for %s failed (%s); using the default zone", user_id, exc)
        return ""
    return tz if isinstance(tz, str) else ""


# ---------------------------------------------------------------- the Home tab
class Membership:
    """``is_member(channel_id)`` for one viewer, from Slack, at most once per Home open.

    The first call lists the viewer's channels with ``users.conversations``
    (paginated, ``MEMBER_PAGES`` at most); later calls reuse that set. A
    failing call counts as "not a member" for the channels not yet listed
    (logged), so the Home tab still opens.

    Args:
        client: Web API client (bot token; scopes in ``MEMBER_TYPES``).
        user_id: the viewer ("U0123").
    """

    def __init__(self, client: WebClient, user_id: str) -> None:
        self._client = client
        self._user = user_id
        self._channels: set[str] | None = None

    def __call__(self, channel_id: str) -> bool:
        """True when the viewer is a member of ``channel_id`` ("C0123")."""
        if self._channels is None:
            self._channels = self._load()
        return channel_id in self._channels

    def _load(self) -> set[str]:
        found: set[str] = set()
        cursor = None
        try:
            for _ in range(MEMBER_PAGES):
                response = self._client.users_conversations(
                    user=self._user, types=MEMBER_TYPES, exclude_archived=False, limit=MEMBER_PAGE_SIZE, cursor=cursor
                )
                found.update(c["id"] for c in response.get("channels") or [] if c.get("id"))
                cursor = (response.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    break
        except Exception as exc:  # noqa: BLE001 — unknown membership only hides channels
            log.warning("users.conversations for %s failed (%s); Home lists %d channel(s)", self._user, exc, len(found))
        return found


def publish_home(
    service: "Service", client: WebClient, team: str, user: str, saved_offset: int = 0, slots: FairSlots | None = None
) -> None:
    """``views.publish`` the Home tab of ``user``: today's paper, the papers picked for them
    (issue 22), their channels and feed, a page of their saved papers (from ``saved_offset``).
    The service's work (the picks train a model) holds one of ``slots``; the Slack calls do not.

    Args:
        service: the ``Service`` that answers.
        client: Bolt's ``WebClient``.
        team: the Slack team id.
        user: the Slack user id whose tab it is.
        saved_offset: the first reading-list entry shown.
        slots: the fair work slots held while the service works, or None (no slot).

    Raises:
        slack_sdk.errors.SlackApiError / SlackClientError: Slack refused it.
    """
    ctx = Context(team, "", user)
    tab = service.home(ctx, Membership(client, user))  # light: no slot (it may ask Slack)
    saved = service.reading_list.page(ctx, saved_offset)
    with slots(user) if slots is not None else contextlib.nullcontext():
        picks = service.recommendations.home(ctx)
        view = home_view(tab.today, tab.day, tab.channels, saved, picks, tab.examples)
    view_or_plain(client.views_publish, valid_view(view), HOME_PLAIN, user_id=user)


# ---------------------------------------------------------------- the welcome
def say_once(service: "Service", client: WebClient, ctx: Context, audience: str, channel: str) -> bool:
    """Post the welcome for ``audience`` in ``channel`` unless it was said before.

    Args:
        service: the ``Service`` that answers.
        client: Bolt's ``WebClient``.
        ctx: the team, channel and user it is for.
        audience: "user" (the Messages tab) or "channel" (the bot was added).
        channel: where the welcome is posted.

    Returns:
        bool: True when it was posted now.
    """
    try:
        reply = service.welcome(ctx, audience)
        if reply is None:
            return False
        SlackPoster(client).post(channel, render(reply))
        return True
    except PostError as exc:
        log.warning("welcome (%s) in %s not posted: %s; will try again", audience, channel, exc.code)
    except Exception:  # noqa: BLE001 — events are auto-acked; log and move on
        log.exception("welcome (%s) in %s failed", audience, channel)
    try:
        service.forget_welcome(ctx, audience)
    except Exception:  # noqa: BLE001 — the store is down: it will not be repeated, only missed
        log.exception("could not forget the welcome mark for %s", channel)
    return False


# ---------------------------------------------------------------- a mention or DM
#: A mention's answer when anything failed (posted in the thread, visibly).
MENTION_SORRY = "Sorry, something went wrong while answering that. Please try again in a moment."


def message_listener(
    service: "Service",
    *,
    seen: Callable[..., bool],
    slots: FairSlots | None,
    wants: Callable[[dict[str, Any]], bool] = lambda event: True,
    poster_for: Callable[[WebClient, dict[str, Any]], SlackPoster] = lambda client, event: SlackPoster(client),
) -> Callable[..., None]:
    """A Bolt listener (``body, event, client, context``) that queues the answer to
    a message event (``bot.slack.delivery.intake.later``): ``answer_message``,
    inside the journal's ``settled``, through its ``reply_guard``
    (bot.slack.delivery.journal_context). An event that is not for us (``wants``)
    queues nothing.

    Args:
        service: answers ``mention(text, ctx)``.
        seen: the claim of the event's keys when the journal does not keep it.
        slots: held while the service and the renderer run (None: unbounded).
        wants: False for an event of this kind that is not for us (a message outside a DM).
        poster_for: the poster for one event (a DM's threads differ from a mention's).
    """

    def listener(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: dict[str, Any]) -> None:
        if wants(event):
            later(context, lambda: answer(body, event, client, context))

    def answer(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: dict[str, Any]) -> None:
        with settled(context):
            check, poster = reply_guard(context, seen, poster_for(client, event), body, event)
            answer_message(
                body,
                event,
                service=service,
                poster=poster,
                seen=check,
                time_zone=lambda user: user_time_zone(client, user),
                slots=slots,
            )

    return listener


def answer_message(
    body: dict[str, Any],
    event: dict[str, Any],
    *,
    service: "Service",
    poster: SlackPoster,
    seen: Callable[..., bool],
    time_zone: Callable[[str], str | None] = lambda user: None,
    slots: FairSlots | None = None,
) -> bool:
    """Answer one mention (or DM) in its thread, unless it was answered already.

    Args:
        body: the Events API envelope (``event_id``, ``team_id``, …).
        event: ``body["event"]`` (``channel``, ``ts``, ``thread_ts``, ``text``, ``user``).
        service: answers ``mention(text, ctx)``.
        poster: posts the rendered reply (``SlackPoster``, or the journal's
            fenced one from ``bot.slack.delivery.journal_context.reply_guard``).
        seen: the one duplicate check, ``seen(*keys) -> bool`` over the event's
            keys (``bot.slack.delivery.event_keys.idempotency_keys``): True when
            it was answered (or is being answered) already.
        time_zone: the user's IANA zone or None; asked only for ``subscribe``
            (``users.info``, see ``user_time_zone``).
        slots: held while the service and the renderer run (None: unbounded).

    Returns:
        bool: True when the reply was handed to the poster. False when ignored,
        already answered, when ``seen`` raised (logged: without it a second reply
        cannot be ruled out) or when posting failed for good (logged:
        ``channel_not_found``, ``not_in_channel`` …).

    Raises:
        RetryLater: posting failed in a way that may pass (``poster.TRANSIENT``:
            HTTP 5xx, ``internal_error``, a dropped connection); the journal tries
            again later, and its retake looks in the thread first.
        NotMine: the fenced poster found the work taken over by another process.
    """
    if not should_answer(event):
        log.debug("ignored %s event (subtype %s)", event.get("type"), event.get("subtype"))
        return False
    keys = idempotency_keys(body, event)
    if _answered(seen, keys):
        return False
    message, about = _reply(body, event, service, time_zone, slots, keys)
    ts = _post(poster, event, message)
    if ts and about:  # an answer showing one paper: a 👍 on it counts (bot.service.signals)
        team = body.get("team_id") or event.get("team") or ""
        signal_quietly(lambda: service.signal_log.posted(team, event["channel"], ts, about))
    return ts is not None


def _answered(seen: Callable[..., bool], keys: list[str]) -> bool:
    """``seen(*keys)``, one claim over every key; True (logged) when it raised."""
    try:
        duplicate = seen(*keys)
    except Exception:  # noqa: BLE001 — e.g. the store is down: cannot tell, so never risk a 2nd reply
        log.exception("idempotency check failed for %s; not answered", " ".join(keys))
        return True
    if duplicate:
        log.info("%s already answered; skipped", " ".join(keys))
    return duplicate


def _reply(
    body: dict[str, Any],
    event: dict[str, Any],
    service: "Service",
    time_zone: Callable[[str], str | None],
    slots: FairSlots | None,
    keys: list[str],
) -> tuple[Message, str | None]:
    """The rendered answer to the event's text, or ``MENTION_SORRY`` (logged), and the
    id of the one paper it shows visibly (None for anything else)."""
    user = event.get("user") or ""
    try:
        raw = event.get("text")
        text = mention_text(raw if isinstance(raw, str) else "")  # Slack sends a string (or none)
        tz = time_zone(user) if first_word(text) == "subscribe" else None
        team = body.get("team_id") or event.get("team") or ""
        ctx = Context(team_id=team, channel_id=event["channel"], user_id=user, user_tz=tz)
        with slots(user, quick(text)) if slots is not None else contextlib.nullcontext():
            reply = service.mention(text, ctx)
            message = render(reply)
        one = isinstance(reply, PaperReply) and message.visibility != EPHEMERAL
        return message, (reply.paper.id if one else None)
    except Exception:  # noqa: BLE001 — listeners must not raise; the user gets a short note
        log.exception("mention failed (%s)", " ".join(keys))
        return Message(text=MENTION_SORRY, visibility="in_channel"), None


def _post(poster: SlackPoster, event: dict[str, Any], message: Message) -> str | None:
    """Post ``message`` in the event's thread — or, when it is ephemeral (help,
    "did you mean", no confident match — issue 12 point 4), to the asker only,
    except in a DM: in the thread the mention was in, else beside the mention
    in the channel, since Slack does not show an ephemeral message in a thread
    that has no reply yet (docs/slack-rules.md [ephemeral-thread]). Returns the
    post's ``ts`` ("" for an ephemeral one), None when it failed for good."""
    channel, user = event["channel"], event.get("user") or ""
    try:
        if message.visibility == EPHEMERAL and user and not channel.startswith("D"):
            poster.post_ephemeral(channel, user, message, thread_ts=event.get("thread_ts"))
            return ""
        return poster.post(channel, message, thread_ts=event.get("thread_ts") or event["ts"]) or ""
    except PostError as exc:
        log.warning("reply to mention in %s failed: %s", channel, exc.code)
        if exc.code in TRANSIENT:
            raise RetryLater(f"chat.postMessage {exc.code}") from None
        return None


def signal_quietly(record: Callable[[], None]) -> None:
    """Record a signal or a post of the bot's (``service.signal_log``) after the post
    it follows went out: a failure (the store down) is one log line, never the user's error.

    Args:
        record: the call to make, e.g. ``lambda: service.signal_log.shared(ctx, paper_id, ts)``.
    """
    try:
        record()
    except Exception:  # noqa: BLE001 — the post is out; only the signal is lost
        log.exception("a signal was not recorded")
