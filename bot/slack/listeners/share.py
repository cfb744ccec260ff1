"""Sharing a paper (issue 12 point 4; issue 19 point 3): a compact card posted
once, from a message or from a modal, where the people it is for see it.

*Share*, from a message (search results, a paper card): ``ack()``; claim the share
(``Service.sharing``, key ``team:channel:message ts:paper id``) — a second
click is told where it was shared; post the card (``post_card``: the abstract
in its thread, or its start on the card where no thread can follow; who shared
it by name — ``users.info`` — so no one is notified) where the message is: in
its thread when it is in one. Then, on the clicker's own (ephemeral) results,
redraw them in place with that row saying "Shared in #channel ✓" (the
button's value carries the page); on a message
others see, confirm to the clicker alone, saying where it went.

*Share to…*, from a modal (no channel of its own; ``{"id"}``): push the share
modal — a conversation picker with ``response_url_enabled`` and a person
picker — while the stack has room, else replace the current view
(docs/slack-rules.md [view-stack]). Its submission claims each share (once per
modal, paper and target) and posts the card: into the conversation picked
(``post_card``), and to the person picked, in the bot's own DM with them
(``conversations.open``, scope ``im:write``). The submission is acknowledged at
once with the modal saying "Sharing…" (an ack never waits for a post,
docs/architecture.md "Acks never wait behind work"); the posts are a job, which
then shows "Shared in #x ✓" / "Sent to @y ✓", or what went wrong, in the same
modal (``views.update``). Only a form that cannot be read or names no one is
answered on its input.

``bot.slack.delivery.reach.post_card`` posts the card: ``chat.postMessage``, a
public channel joined first, any other conversation the bot cannot enter reached
through the ``response_url`` Slack gave for it (the click's, or the submission's
for the picked conversation). Only a channel is answered with "Invite
@paperbot …": Slack lets no one invite the bot into a DM.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.core.json_values import json_object
from bot.core.models import Context
from bot.core.ports import Message, PostError
from bot.core.replies import EPHEMERAL, ErrorReply, ShareReply
from bot.render import ACTION_SHARE, render
from bot.render.blocks import ACTION_SHARE_TO
from bot.render.cards import (
    SHARE_MODAL_ID,
    SHARE_PERSON_ACTION,
    SHARE_PERSON_BLOCK,
    SHARE_TARGET_ACTION,
    SHARE_TARGET_BLOCK,
    share_message,
    share_modal,
    shared_modal,
)
from bot.service.sharing import share_key
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY, failed, view_or_plain
from bot.slack.delivery.intake import later
from bot.slack.delivery.modals import STACK_MAX, message_modal, valid_view, view_depth
from bot.slack.delivery.poster import SlackPoster
from bot.slack.delivery.reach import NOT_POSTABLE, Unreachable, post_card
from bot.slack.listeners.clicks import (
    EXAMPLE,
    BadValue,
    Click,
    answer,
    click_listener,
    on_public_message,
    paper_id,
    read_value,
    redraw,
)
from bot.slack.listeners.common import signal_quietly

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: The share modal while its card is being posted.
SHARING = "Sharing…"
#: A DM (``D…``) the bot is not in: only a ``response_url`` reaches it, and no one can invite the bot.
NO_WAY_INTO_DM = "Slack gave me no way into that direct message: pick the person under “Or send to a person” instead."


def invite_first(channel: str) -> str:
    """The answer for a channel the bot cannot post in (mrkdwn)."""
    return f"Invite @paperbot to <#{channel}> first (`/invite @paperbot` there), then share again."


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register *Share* (from a message), *Share to…* (from a modal) and the share modal's submission.

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """
    app.action(ACTION_SHARE)(make_listener(service, slots))
    app.action(ACTION_SHARE_TO)(make_share_to_listener(service))
    app.view(SHARE_MODAL_ID)(make_share_submit_listener(service, slots))


def sharer_name(client: WebClient, user_id: str) -> str:
    """The user's display name (``users.info``, scope ``users:read``), else "someone".

    Args:
        client: Bolt's ``WebClient``.
        user_id: the Slack user id.
    """
    try:
        user = client.users_info(user=user_id).get("user") or {}
    except Exception as exc:  # noqa: BLE001 — a missing name only makes the card vaguer
        log.info("users.info for %s failed (%s)", user_id, exc)
        return "someone"
    profile = user.get("profile") or {}
    for name in (profile.get("display_name"), profile.get("real_name"), user.get("real_name"), user.get("name")):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return "someone"


def make_listener(service: "Service", slots: FairSlots):
    """The *Share* listener (Bolt arguments ``ack, body, action, respond, client, context``):
    ``ack()``, then the share as a job (``bot.slack.listeners.clicks.click_listener``).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def share(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        try:
            message, replace_original = share_from_message(service, slots, body, action, client)
        except BadValue as bad:
            message, replace_original = render(ErrorReply(message=bad.message, example=EXAMPLE)), False
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("share failed")
            message, replace_original = Message(text=SORRY), False
        answer(body, respond, client, message, replace_original=replace_original)

    return click_listener(share)


def share_from_message(
    service: "Service", slots: FairSlots, body: dict[str, Any], action: dict[str, Any], client: WebClient
) -> tuple[Message, bool]:
    """Do one share from a message click; return ``(answer, replace the clicked message)``.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
        body: the ``block_actions`` payload.
        action: the clicked button (its value names the paper).
        client: Bolt's ``WebClient``.

    Raises:
        BadValue: the button value is not one we draw, or the click has no channel.
    """
    click = Click.of(body)
    value = read_value(action)
    pid = paper_id(value)
    if not click.channel_id:
        raise BadValue("Share works from a message in a channel: try `/paper search …` there.")
    container = body.get("container") or {}
    message_ts = container.get("message_ts") or ""
    thread_ts = container.get("thread_ts") or (body.get("message") or {}).get("thread_ts")
    key = share_key(click.team_id, click.channel_id, message_ts, pid)
    claimed, where = service.sharing.claim(key, click.channel_id)
    if not claimed:
        return _ephemeral(f"You already shared this paper in <#{where or click.channel_id}>."), False
    try:
        with slots(click.user_id or ""):
            reply = service.share(pid, click.context, sharer=sharer_name(client, click.user_id))
            card = render(reply)
        if not isinstance(reply, ShareReply):
            service.sharing.release(key)
            return card, False
        alone = share_message(reply, threaded=False)
        ts = post_card(
            client, click.channel_id, card, alone, thread_ts=thread_ts, response_url=body.get("response_url")
        )
    except (Unreachable, PostError) as exc:
        service.sharing.release(key)
        code = exc.code
        log.info("share into %s refused: %s", click.channel_id, code)
        if code not in NOT_POSTABLE:
            return _ephemeral(SORRY), False
        if click.channel_id.startswith("D"):
            return _ephemeral("Slack did not let me post in this conversation. " + DM_INSTEAD), False
        return _ephemeral(invite_first(click.channel_id)), False
    except Exception:
        service.sharing.release(key)
        raise
    signal_quietly(lambda: service.signal_log.shared(click.context, pid, ts))
    if not on_public_message(body):  # the clicker's own page or card, drawn again marked
        redrawn = redraw(service, slots, value, click, message_ts)
        if redrawn is not None:
            return redrawn, True
    if thread_ts:
        return _ephemeral("Shared in this thread ✓"), False
    return _ephemeral(f"Shared in <#{click.channel_id}> ✓"), False


#: How to reach a person when the conversation cannot be posted in.
DM_INSTEAD = "To send it to a person, open the paper's *Details* and use *Share to…*."


def _ephemeral(text: str) -> Message:
    return Message(text=text, visibility=EPHEMERAL)


# ---------------------------------------------------------------- from a modal
def make_share_to_listener(service: "Service"):
    """*Share to…* → ``ack()``, then (a job) the share modal, pushed (or in place when the stack is full)."""

    def share_to(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        ack()
        later(context, lambda: open_share_modal(body, action, client))

    def open_share_modal(body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        view = body.get("view") or {}
        depth = view_depth(view)
        try:
            paper = service.index.get(paper_id(read_value(action)))
            modal = (
                valid_view(share_modal(paper, min(depth + 1, STACK_MAX)))
                if paper
                else message_modal(_plain("That paper has left the index."), depth=depth)
            )
            if depth < STACK_MAX and view.get("type") == "modal":
                client.views_push(trigger_id=body.get("trigger_id"), view=modal)
            elif view.get("type") == "modal":
                client.views_update(view_id=view.get("id"), view=modal)
            else:
                client.views_open(trigger_id=body.get("trigger_id"), view=modal)
        except BadValue:  # a value we never drew: nothing to open
            user = body.get("user")
            log.warning("share_to: unreadable button value from %s", user.get("id") if isinstance(user, dict) else None)
        except Exception as exc:  # noqa: BLE001 — an expired trigger: nothing else to answer through
            failed("opening the share modal", exc)

    return share_to


def selected_target(view: dict[str, Any]) -> str:
    """The conversation picked in the share modal ("" when none)."""
    return _picked(view, SHARE_TARGET_BLOCK, SHARE_TARGET_ACTION, "selected_conversation")


def selected_person(view: dict[str, Any]) -> str:
    """The person picked in the share modal ("" when none)."""
    return _picked(view, SHARE_PERSON_BLOCK, SHARE_PERSON_ACTION, "selected_user")


def _picked(view: dict[str, Any], block: str, action: str, key: str) -> str:
    try:
        value = view["state"]["values"][block][action][key]
    except (KeyError, TypeError):
        return ""
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Sent:
    """One target of a share modal done: the line to show, and whether it was done now."""

    line: str
    now: bool


class NotShared(Exception):
    """A target of the share modal could not be reached; the sentence for its input."""


def make_share_submit_listener(service: "Service", slots: FairSlots):
    """The share modal's *Share*: the ack turns the modal into "Sharing…" (or puts an
    error on the input when the form cannot be read or names no one); posting the
    card to the conversation and/or the person picked is a job, which then shows
    "Shared in #x ✓" / "Sent to @y ✓", or what went wrong, with ``views.update``.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def share_submitted(
        ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        target, person = selected_target(view), selected_person(view)
        try:
            pid = paper_id(json_object(view.get("private_metadata") or "{}") or {})
        except BadValue:
            ack(response_action="errors", errors={SHARE_TARGET_BLOCK: "Sorry, I couldn't read this form."})
            return
        if not target and not person:
            ack(
                response_action="errors",
                errors={SHARE_TARGET_BLOCK: "Pick where to share it: a conversation or a person."},
            )
            return
        depth = view_depth(view)
        ack(response_action="update", view=valid_view(shared_modal(SHARING, depth)))
        later(context, lambda: post_share(body, view, client, pid, (target, person), depth))

    def post_share(
        body: dict[str, Any], view: dict[str, Any], client: WebClient, pid: str, picked: tuple[str, str], depth: int
    ) -> None:
        share = _Share(service, slots, client, body, view, pid)
        lines = []
        for who, send in zip(picked, (share.into, share.to)):
            if not who:
                continue
            try:
                lines.append(send(who).line)
            except NotShared as exc:
                lines.append(str(exc))
            except Exception:  # noqa: BLE001 — the user still gets an answer, in the modal
                log.exception("share to %s failed", who)
                lines.append(SORRY)
        said = "\n".join(lines)
        try:
            view_or_plain(client.views_update, valid_view(shared_modal(said, depth)), said, view_id=view.get("id"))
        except Exception as exc:  # noqa: BLE001 — e.g. the user closed the modal meanwhile
            failed(f"views.update of the share modal {view.get('id')}", exc)

    return share_submitted


class _Share:
    """One submission of the share modal: the card, once per target.

    Args:
        service: ``share``, ``sharing``.
        slots: held while the service renders the card.
        client: Web API client (bot token).
        body: the ``view_submission`` payload (``user``, ``team``, ``response_urls``).
        view: its view (``id``, ``root_view_id``).
        pid: the paper to share.
    """

    def __init__(
        self,
        service: "Service",
        slots: FairSlots,
        client: WebClient,
        body: dict[str, Any],
        view: dict[str, Any],
        pid: str,
    ) -> None:
        self.service, self.slots, self.client, self.body, self.pid = service, slots, client, body, pid
        self.user = (body.get("user") or {}).get("id") or ""
        self.team = (body.get("team") or {}).get("id") or ""
        self.modal = view.get("root_view_id") or view.get("id") or ""

    def into(self, target: str) -> Sent:
        """Post the card into the conversation ``target``, once.

        Raises:
            NotShared: it cannot be reached (never "invite me" for a DM).
        """

        def send() -> None:
            try:
                ts = post_card(self.client, target, *self._cards(target), response_url=self._response_url(target))
            except Unreachable:
                raise NotShared(self._unreachable(target)) from None
            self._signal(target, ts)

        return self._once(target, f"Already shared in <#{target}>", f"Shared in <#{target}> ✓", send)

    def to(self, person: str) -> Sent:
        """Send the card to ``person`` in the bot's own DM with them (``conversations.open``), once.

        Raises:
            NotShared: Slack will not open that DM (a bot, a deactivated user …).
        """

        def send() -> None:
            card, _ = self._cards(person)
            try:
                dm = self.client.conversations_open(users=person)["channel"]["id"]
                ts = SlackPoster(self.client).post(dm, card)
            except SlackApiError as exc:
                code = exc.response.get("error") if exc.response is not None else None
                log.info("conversations.open with %s failed: %s", person, code)
                if code == "cannot_dm_bot":
                    raise NotShared("I can't send papers to a bot: pick a person.") from None
                raise NotShared(f"Slack would not let me message them ({code or 'error'}).") from None
            except PostError as exc:
                raise NotShared(f"Slack would not let me message them ({exc.code}).") from None
            self._signal(dm, ts)

        done = f"Sent to <@{person}> ✓ (in a direct message from paperbot)"
        return self._once(person, f"Already sent to <@{person}>", done, send)

    def _once(self, target: str, already: str, done: str, send: Callable[[], None]) -> Sent:
        """``send()`` unless this modal shared the paper to ``target`` before (a claim,
        released when ``send`` raises)."""
        key = share_key(self.team, target, self.modal, self.pid)
        if not self.service.sharing.claim(key, target)[0]:
            return Sent(already, now=False)
        try:
            send()
        except BaseException:
            self.service.sharing.release(key)
            raise
        return Sent(done, now=True)

    def _signal(self, where: str, ts: str | None) -> None:
        """The share counts for the sharer and, in a channel, for it (``SignalLog.shared``)."""
        signal_quietly(lambda: self.service.signal_log.shared(Context(self.team, where, self.user), self.pid, ts))

    def _unreachable(self, target: str) -> str:
        """What to say on the input when ``target`` cannot be reached."""
        if target.startswith("D"):
            return NO_WAY_INTO_DM
        name = channel_name(self.client, target)
        if name is None:  # private, or a group DM: neither can be read by a bot outside it
            return (
                "I can't post in that conversation. If it is a private channel, invite @paperbot "
                "there first (/invite @paperbot); to reach a person, pick them under “Or send to a person”."
            )
        return f"Invite @paperbot to {name} first, then share again."

    def _cards(self, where: str) -> tuple[Message, Message]:
        """The rendered card, naming the sharer, and its version without a thread (``post_card``).

        Raises:
            NotShared: the paper left the index.
        """
        with self.slots(self.user):
            reply = self.service.share(
                self.pid, Context(self.team, where, self.user), sharer=sharer_name(self.client, self.user)
            )
            card = render(reply)
        if not isinstance(reply, ShareReply):
            raise NotShared("That paper has left the index.")
        return card, share_message(reply, threaded=False)

    def _response_url(self, target: str) -> str | None:
        """The submission's ``response_url`` for ``target`` [response-url-enabled], or None."""
        return next(
            (
                r.get("response_url")
                for r in self.body.get("response_urls") or []
                if r.get("channel_id") == target and r.get("response_url")
            ),
            None,
        )


def channel_name(client: WebClient, channel: str) -> str | None:
    """``#name`` from ``conversations.info`` (scopes ``channels:read`` / ``groups:read``),
    or None when the bot cannot read it (a private channel or group DM it is not in).
    Plain text: a view's error cannot render ``<#C…>``.

    Args:
        client: Bolt's ``WebClient``.
        channel: the conversation id.
    """
    try:
        name = (client.conversations_info(channel=channel).get("channel") or {}).get("name")
    except Exception as exc:  # noqa: BLE001 — a private channel the bot is not in: not found
        log.info("conversations.info for %s failed (%s)", channel, exc)
        return None
    return f"#{name}" if isinstance(name, str) and name else None


def _plain(text: str) -> Message:
    return Message(text=text)
