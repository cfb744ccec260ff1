"""The reading-list buttons (issue 13 point 5): *Save* on paper cards,
*Remove* / paging / *Export BibTeX* in ``/paper saved`` and the App Home.

====================  ==============  ===========================================
action id             value           answer
====================  ==============  ===========================================
``paper_save``        ``{"id"}``      ``reading_list.save`` → ephemeral note (Home: republished)
``saved_remove``      ``{"id"}``      ``reading_list.remove`` → the list again, replacing it
``saved_page``        ``{"o"}``       ``reading_list.page`` → that page, replacing the list
``saved_export``      any             Markdown list + BibTeX file in the user's DM
====================  ==============  ===========================================

Export (docs/slack-rules.md [dm-by-user-id]): ``chat.postMessage`` with the
user's id as ``channel`` posts the Markdown list to the app's DM and answers
with the DM's ``D…`` id; ``files_upload_v2`` (``files.getUploadURLExternal``,
the upload, ``files.completeUploadExternal``, scope ``files:write``) then
shares the ``.bib`` file there — ``completeUploadExternal`` needs a
conversation id, not a user id. No ``conversations.open`` (``im:write``) needed.
Clicks inside the Home tab republish it instead of answering in a modal.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.replies import ErrorReply, NoticeReply, Reply
from bot.render import (
    ACTION_READING_LIST_EXPORT,
    ACTION_READING_LIST_PAGE,
    ACTION_READING_LIST_REMOVE,
    ACTION_SAVE,
    render,
)
from bot.render.reading_list import export_message
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY
from bot.slack.listeners.common import EXAMPLE, BadValue, Click, answer, paper_id, publish_home, read_value

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

OFFSET_MAX = 1000


def _offset(value: dict[str, Any]) -> int:
    o = value.get("o", 0)
    if isinstance(o, bool) or not isinstance(o, int) or not 0 <= o <= OFFSET_MAX:
        raise BadValue()
    return o


def _save(service: "Service", value: dict[str, Any], click: Click) -> tuple[Reply, int, bool]:
    return service.reading_list.save(paper_id(value), click.context), 0, False


def _remove(service: "Service", value: dict[str, Any], click: Click) -> tuple[Reply, int, bool]:
    note = service.reading_list.remove(paper_id(value), click.context)
    page = service.reading_list.page(click.context, _offset(value))
    return replace(page, note=note.text), page.offset, True


def _page(service: "Service", value: dict[str, Any], click: Click) -> tuple[Reply, int, bool]:
    page = service.reading_list.page(click.context, _offset(value))
    return page, page.offset, True


BUTTONS: dict[str, Callable[..., tuple[Reply, int, bool]]] = {
    ACTION_SAVE: _save,
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
    app.action(ACTION_READING_LIST_EXPORT)(make_export_listener(service, slots))


def _in_home(body: dict[str, Any]) -> bool:
    return (body.get("view") or {}).get("type") == "home"


def make_listener(service: "Service", action_id: str, kind, slots: FairSlots):
    """The listener of one reading-list button (Bolt arguments ``ack, body, action, respond, client``).

    Args:
        service: the ``Service`` that answers.
        action_id: the button's ``action_id``, for the log.
        kind: what the button does (a function of ``BUTTONS``).
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def on_click(ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, client: WebClient) -> None:
        ack()
        click = Click.of(body)
        try:
            value = read_value(action)
            with slots(click.user_id or ""):
                reply, offset, swap = kind(service, value, click)
            if _in_home(body):
                publish_home(service, client, click.team_id, click.user_id, offset)
                return
            message = render(reply)
        except BadValue as bad:
            swap, message = False, render(ErrorReply(message=bad.message, example=EXAMPLE))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("%s failed (team %s, user %s)", action_id, click.team_id, click.user_id)
            swap, message = False, render(NoticeReply(text=SORRY))
        answer(body, respond, client, message, replace_original=swap)

    return on_click


def make_export_listener(service: "Service", slots: FairSlots):
    """*Export BibTeX*: the list to the clicker's DM (Markdown message + ``.bib`` file).

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def on_export(ack: Ack, body: dict[str, Any], respond: Respond, client: WebClient) -> None:
        ack()
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

    return on_export


def send_export(client: WebClient, user_id: str, export) -> str:
    """Post the Markdown list to ``user_id``'s DM, then upload the ``.bib`` there.

    Args:
        client: Bolt's ``WebClient``.
        user_id: the Slack user id (their DM).
        export: the reading list's export (``markdown``, ``bibtex``, ``filename``, ``count``).

    Returns:
        str: the DM's conversation id (``D…``) that ``chat.postMessage`` answered.

    Raises:
        slack_sdk.errors.SlackApiError: Slack refused a step.
    """
    message = export_message(export.markdown, export.count)
    posted = client.chat_postMessage(channel=user_id, text=message.text, unfurl_links=False, unfurl_media=False)
    dm = posted["channel"]
    client.files_upload_v2(
        channel=dm,
        content=export.bibtex,
        filename=export.filename,
        title="paperbot reading list (BibTeX)",
        thread_ts=posted.get("ts"),
    )
    return dm
