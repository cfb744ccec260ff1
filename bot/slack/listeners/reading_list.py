"""The reading-list buttons (issue 13 point 5): *Save* on paper cards,
*Remove* / paging / *Export BibTeX* in ``/paper saved`` and the App Home.

====================  ==============  ===========================================
action id             value           answer
====================  ==============  ===========================================
``paper_save``        ``{"id"[,…]}``  ``reading_list.save`` → the message clicked, marked "Saved ✓"
``saved_remove``      ``{"id"}``      ``reading_list.remove`` → the list again, replacing it
``saved_page``        ``{"o"}``       ``reading_list.page`` → that page, replacing the list
``saved_export``      any             the list (mrkdwn) + BibTeX file in the user's DM
====================  ==============  ===========================================

*Save* and *Remove* update the message clicked (issue 19 point 7): the Home tab
is published again; a modal is updated with the paper marked "Saved ✓"
(``views.update``, its blocks as Slack sent them back); the clicker's own
results or card are drawn again marked (``clicks.redraw``, from the ``origin``
the button carries). A message others see is never replaced: the clicker
alone gets a short note (``clicks.answer``). *Remove* asks first, naming the
paper (its ``confirm`` dialog, drawn by ``bot.render.reading_list``).

Export (docs/slack-rules.md [dm-by-user-id], [files-upload], [chat-delete]):
``chat.postMessage`` with the user's id as ``channel`` posts the list (mrkdwn
links) to the app's DM and answers with the DM's ``D…`` id; ``files_upload_v2``
(``files.getUploadURLExternal``, the upload, ``files.completeUploadExternal``,
scope ``files:write``) then shares the ``.bib`` file in its thread —
``completeUploadExternal`` needs a conversation id, not a user id. When the
upload fails the list message is deleted (``chat.delete``): one message per
export, never one without its file.
Clicks inside the Home tab republish it instead of answering in a modal.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import App, Respond
from slack_sdk import WebClient

from bot.core.replies import ErrorReply, NoticeReply, Reply
from bot.render import (
    ACTION_READING_LIST_EXPORT,
    ACTION_READING_LIST_PAGE,
    ACTION_READING_LIST_REMOVE,
    ACTION_SAVE,
    render,
)
from bot.render.blocks import SAVED, mark_done
from bot.render.reading_list import export_message
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY
from bot.slack.delivery.modals import valid_view
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
from bot.slack.listeners.common import publish_home

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

OFFSET_MAX = 1000


def _offset(value: dict[str, Any]) -> int:
    o = value.get("o", 0)
    if isinstance(o, bool) or not isinstance(o, int) or not 0 <= o <= OFFSET_MAX:
        raise BadValue()
    return o


def _remove(service: "Service", value: dict[str, Any], click: Click) -> tuple[Reply, int, bool]:
    note = service.reading_list.remove(paper_id(value), click.context)
    page = service.reading_list.page(click.context, _offset(value))
    return replace(page, note=note.text), page.offset, True


def _page(service: "Service", value: dict[str, Any], click: Click) -> tuple[Reply, int, bool]:
    page = service.reading_list.page(click.context, _offset(value))
    return page, page.offset, True


BUTTONS: dict[str, Callable[..., tuple[Reply, int, bool]]] = {
    ACTION_READING_LIST_REMOVE: _remove,
    ACTION_READING_LIST_PAGE: _page,
}


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the reading-list buttons (see the module table).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """
    for action_id, kind in BUTTONS.items():
        app.action(action_id)(make_listener(service, action_id, kind, slots))
    app.action(ACTION_SAVE)(make_save_listener(service, slots))
    app.action(ACTION_READING_LIST_EXPORT)(make_export_listener(service, slots))


def _in_home(body: dict[str, Any]) -> bool:
    return (body.get("view") or {}).get("type") == "home"


def make_listener(service: "Service", action_id: str, kind, slots: FairSlots):
    """The listener of one reading-list button (Bolt arguments ``ack, body, action, respond,
    client, context``): ``ack()``, then the answer as a job (``bot.slack.listeners.clicks.click_listener``).

    Args:
        service: the ``Service`` that answers.
        action_id: the button's ``action_id``, for the log.
        kind: what the button does (a function of ``BUTTONS``).
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def answer_click(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        try:
            value = read_value(action)
            with slots(click.user_id or ""):
                reply, offset, swap = kind(service, value, click)
            if _in_home(body):
                publish_home(service, client, click.team_id, click.user_id, offset, slots=slots)
                return
            message = render(reply)
        except BadValue as bad:
            swap, message = False, render(ErrorReply(message=bad.message, example=EXAMPLE))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("%s failed (team %s, user %s)", action_id, click.team_id, click.user_id)
            swap, message = False, render(NoticeReply(text=SORRY))
        answer(body, respond, client, message, replace_original=swap)

    return click_listener(answer_click)


def make_save_listener(service: "Service", slots: FairSlots):
    """*Save* (Bolt arguments ``ack, body, action, respond, client, context``; the work
    after ``ack()`` is a job, ``bot.slack.listeners.clicks.click_listener``): save, then
    update the message clicked in place (see the module doc).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def save(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        swap = False
        try:
            value = read_value(action)
            pid = paper_id(value)
            with slots(click.user_id or ""):
                note = render(service.reading_list.save(pid, click.context))
                saved = pid in service.reading_list.saved_among(click.context, [pid])
            if _in_home(body):
                publish_home(service, client, click.team_id, click.user_id, slots=slots)
                return
            if saved and _marked_in_modal(client, body, pid):
                return
            redrawn = None
            if saved and body.get("response_url") and not on_public_message(body):
                redrawn = redraw(service, slots, value, click, (body.get("container") or {}).get("message_ts") or "")
            message, swap = (redrawn, True) if redrawn is not None else (note, False)
        except BadValue as bad:
            message = render(ErrorReply(message=bad.message, example=EXAMPLE))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("%s failed (team %s, user %s)", ACTION_SAVE, click.team_id, click.user_id)
            message = render(NoticeReply(text=SORRY))
        answer(body, respond, client, message, replace_original=swap)

    return click_listener(save)


def _marked_in_modal(client: WebClient, body: dict[str, Any], pid: str) -> bool:
    """In a modal: ``views.update`` it with ``pid``'s *Save* marked "Saved ✓"; True when done."""
    view = body.get("view") or {}
    if view.get("type") != "modal" or not view.get("id"):
        return False
    kept = {k: view[k] for k in ("type", "title", "close", "submit", "private_metadata", "callback_id") if k in view}
    kept["blocks"] = mark_done(view.get("blocks") or [], ACTION_SAVE, frozenset({pid}), SAVED)
    try:
        client.views_update(view_id=view["id"], view=valid_view(kept))
    except Exception as exc:  # noqa: BLE001 — the modal was closed meanwhile …: answer in a new one
        log.info("views.update after Save failed (%s)", exc)
        return False
    return True


def make_export_listener(service: "Service", slots: FairSlots):
    """*Export BibTeX*: the list to the clicker's DM (mrkdwn message + ``.bib`` file), a job
    after the ack (``bot.slack.listeners.clicks.click_listener``).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def export_list(body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        click = Click.of(body)
        try:
            with slots(click.user_id or ""):
                export = service.reading_list.export(click.context)
            if export is None:
                note = "Your reading list is empty: nothing to export."
            else:
                send_export(client, click.user_id, export)
                note = (
                    f"Sent your reading list ({export.count} paper"
                    f"{'s' if export.count != 1 else ''}) to our DM as a BibTeX file."
                )
        except Exception as exc:  # noqa: BLE001 — tell the user, log the cause
            log.exception("export for %s (team %s) failed", click.user_id, click.team_id)
            code = getattr(getattr(exc, "response", None), "get", lambda *_: None)("error")
            note = f"Slack refused the export ({code}); please try again." if code else SORRY
        if _in_home(body) and not body.get("response_url"):
            return  # the DM itself is the answer; nothing to replace in the Home tab
        answer(body, respond, client, render(NoticeReply(text=note)))

    return click_listener(export_list)


def send_export(client: WebClient, user_id: str, export) -> str:
    """Post the list (``export_message``) to ``user_id``'s DM, then upload the ``.bib`` in its thread;
    when the upload fails, delete the list message again (``chat.delete``).

    Args:
        client: Web API client (bot token: ``chat:write``, ``files:write``).
        user_id: whose DM ("U0123").
        export: the service's export (``entries``, ``gone``, ``bibtex``, ``filename``).

    Args:
        client: Bolt's ``WebClient``.
        user_id: the Slack user id (their DM).
        export: the reading list's export (``markdown``, ``bibtex``, ``filename``, ``count``).

    Returns:
        str: the DM's conversation id (``D…``) that ``chat.postMessage`` answered.

    Raises:
        slack_sdk.errors.SlackApiError: Slack refused a step (the upload's refusal
            after the message was deleted).
    """
    message = export_message(export.entries, export.gone)
    posted = client.chat_postMessage(channel=user_id, text=message.text, unfurl_links=False, unfurl_media=False)
    dm = posted["channel"]
    try:
        client.files_upload_v2(
            channel=dm,
            content=export.bibtex,
            filename=export.filename,
            title="paperbot reading list (BibTeX)",
            thread_ts=posted.get("ts"),
        )
    except Exception:
        try:  # the list without its file would stay, and each retry would add one
            client.chat_delete(channel=dm, ts=posted["ts"])
        except Exception as exc:  # noqa: BLE001 — the upload's error is the one to tell
            log.warning("could not delete the export message in %s (%s)", dm, exc)
        raise
    return dm
