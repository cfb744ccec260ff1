"""The search modal (issue 12 point 4): opened from the Home tab, submitted, paged.

- *Search papers* on the Home tab (``ACTION_HOME_SEARCH``): ``views.open`` of
  the search modal with the click's ``trigger_id`` (the global shortcut that
  opens it too is ``bot.slack.listeners.shortcuts``).
- Its ``view_submission`` (``SEARCH_MODAL_ID``): an empty query →
  ``response_action: errors`` on the input; otherwise ack with
  ``response_action: update`` (the modal says "Searching…"), run the search,
  then ``views.update`` the same view with the results or the explanation.
- *‹ Previous* / *Next ›* / *Search "…" instead* (``MODAL_PAGE_ACTIONS``, value
  ``{"q" or "k", "o"[, "exact"]}``, ``bot.slack.listeners.clicks.page_request``):
  ``views.update`` of the same modal with that page.

Its *Share to…* buttons are ``bot.slack.listeners.share``. Views sent to Slack
pass ``bot.slack.delivery.modals.valid_view``. Nothing here raises out of a
listener: failures are logged and, where the user is waiting, shown as a short
polite sentence.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.core.parsing import user_text
from bot.core.ports import Message
from bot.core.replies import ErrorReply, ResultsReply
from bot.render import ACTION_HOME_SEARCH
from bot.render.blocks import MODAL_PAGE_ACTIONS
from bot.render.home import (
    MODAL_INPUT_MAX,
    MODAL_RESULTS,
    SEARCH_INPUT_ACTION,
    SEARCH_INPUT_BLOCK,
    SEARCH_MODAL_ID,
    search_modal,
)
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import SORRY, failed, view_or_plain
from bot.slack.delivery.intake import later
from bot.slack.delivery.modals import message_modal, valid_view, view_depth
from bot.slack.listeners.clicks import BadValue, answer, page_request, read_value
from bot.slack.listeners.common import SEARCHING

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

EMPTY_QUERY = "Type a few words to search for, e.g. sparse attention."

#: The modal's input allows 3,000 characters (``MODAL_INPUT_MAX``, Slack's limit); a
#: longer (tampered) value is cut to this for ``initial_value`` only — the search
#: itself cuts at 4,000 with a note (docs/interfaces.md "Rules every reply obeys").
QUERY_SHOWN_MAX = MODAL_INPUT_MAX


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the Home tab's *Search papers*, the modal's submission and its page buttons.

    Args:
        app: the Bolt app.
        service: answers ``search(q, …)``.
        slots: bounds concurrent searches (``bot.slack.app.WORK_SLOTS``).
    """
    app.action(ACTION_HOME_SEARCH)(open_search)
    app.view(SEARCH_MODAL_ID)(make_search_listener(service, slots))
    for action_id in MODAL_PAGE_ACTIONS:
        app.action(action_id)(make_page_listener(service, slots))


def open_search(
    ack: Ack, body: dict[str, Any], respond: Respond, client: WebClient, context: dict[str, Any] | None = None
) -> None:
    """*Search papers* (App Home): ``ack()``, then (a job) open the search modal with
    the click's ``trigger_id``.

    Args:
        ack: Bolt's ``ack``.
        body: the ``block_actions`` payload (its ``trigger_id``).
        respond: Bolt's ``respond`` (when the click has a ``response_url``).
        client: Bolt's ``WebClient``.
        context: Bolt's request context (the work queue's place for the job).
    """
    ack()
    later(context, lambda: _open_search(body, respond, client))


def _open_search(body: dict[str, Any], respond: Respond, client: WebClient) -> None:
    try:
        view_or_plain(client.views_open, valid_view(search_modal()), SORRY, trigger_id=body.get("trigger_id"))
    except Exception as exc:  # noqa: BLE001 — e.g. an expired trigger_id (3 s)
        failed("views.open of the search modal", exc)
        if body.get("response_url"):
            answer(body, respond, client, Message(text=SORRY))


def submitted_query(view: dict[str, Any]) -> str:
    """The text typed in the modal's input, stripped, controls and bidi overrides
    removed (``bot.core.parsing.user_text``; "" when missing or not text)."""
    try:
        value = view["state"]["values"][SEARCH_INPUT_BLOCK][SEARCH_INPUT_ACTION]["value"]
    except (KeyError, TypeError):
        return ""
    return user_text(value).strip() if isinstance(value, str) else ""


def modal_results(service: "Service", query: str, offset: int = 0, exact: bool = False) -> dict:
    """The modal showing ``MODAL_RESULTS`` results for ``query`` from ``offset``, or why not.

    Args:
        service: the ``Service`` that answers.
        query: the query as typed.
        offset: results to skip (a later page).
        exact: run the query as typed, without spelling correction.
    """
    shown = query[:QUERY_SHOWN_MAX]
    reply = service.search(query, offset=offset, limit=MODAL_RESULTS, exact=exact)
    if isinstance(reply, ResultsReply) and reply.page is not None:
        typed = reply.typed_total is None or reply.typed_total > 0
        return valid_view(search_modal(shown, page=reply.page, typed_finds=typed, keys=reply.query_keys))
    if isinstance(reply, ErrorReply):
        example = f" Example: {reply.example}" if reply.example else ""
        return valid_view(search_modal(shown, error=reply.message + example))
    return valid_view(search_modal(shown, error=SORRY))


def make_search_listener(service: "Service", slots: FairSlots):
    """The search modal's ``view_submission`` listener (``ack, view, client, body, context``):
    the ack says "Searching…"; the search and its ``views.update`` are a job.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def search_submitted(
        ack: Ack, view: dict[str, Any], client: WebClient, body: dict[str, Any], context: dict[str, Any] | None = None
    ) -> None:
        query = submitted_query(view)
        if not query:
            ack(response_action="errors", errors={SEARCH_INPUT_BLOCK: EMPTY_QUERY})
            return
        try:
            searching = valid_view(search_modal(query[:QUERY_SHOWN_MAX], status=SEARCHING))
        except Exception:  # noqa: BLE001 — still answer within 3 s, on the input
            log.exception("search modal status view failed")
            ack(response_action="errors", errors={SEARCH_INPUT_BLOCK: SORRY})
            return
        ack(response_action="update", view=searching)
        later(context, lambda: show_results(query, view, client, body))

    def show_results(query: str, view: dict[str, Any], client: WebClient, body: dict[str, Any]) -> None:
        try:
            with slots((body.get("user") or {}).get("id", "")):
                result = modal_results(service, query)
        except Exception:  # noqa: BLE001 — after the ack nothing may escape
            log.exception("search modal failed for view %s", view.get("id"))
            result = valid_view(search_modal(query[:QUERY_SHOWN_MAX], error=SORRY))
        # No ``hash``: the "update" ack just replaced the view, so the hash
        # in this payload is stale and Slack would answer ``hash_conflict``.
        try:
            view_or_plain(client.views_update, result, SORRY, view_id=view.get("id"))
        except Exception:  # noqa: BLE001 — e.g. the user closed the modal meanwhile
            log.warning("views.update of the search modal %s failed", view.get("id"), exc_info=True)

    return search_submitted


def make_page_listener(service: "Service", slots: FairSlots):
    """A page button in the search modal → ``views.update`` of that modal.

    Args:
        service: the ``Service`` that answers.
        slots: the fair work slots held while the service works (never during an ack or a Slack call).
    """

    def modal_page(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None
    ) -> None:
        ack()
        later(context, lambda: show_page(body, action, client))

    def show_page(body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        view = body.get("view") or {}
        if not isinstance(view, dict) or not isinstance(view.get("id"), str):  # only a modal's buttons page it
            log.warning("%s: a click from no modal (user %s); ignored", action.get("action_id"), _user(body))
            return
        try:
            query, offset, exact = page_request(read_value(action), service.queries.text_of)
            with slots((body.get("user") or {}).get("id") or ""):
                result = modal_results(service, query, offset, exact)
        except BadValue as bad:
            result = message_modal(_plain(bad.message), depth=view_depth(view))
        except Exception:  # noqa: BLE001 — after ack nothing may escape
            log.exception("search modal page failed")
            result = message_modal(_plain(SORRY), depth=view_depth(view))
        try:
            view_or_plain(client.views_update, result, SORRY, view_id=view.get("id"))
        except Exception:  # noqa: BLE001 — e.g. the modal was closed meanwhile
            log.warning("views.update of modal %s failed", view.get("id"), exc_info=True)

    return modal_page


def _plain(text: str) -> Message:
    return Message(text=text)


def _user(body: dict[str, Any]) -> str | None:
    """The clicking user's id, when the payload has one."""
    user = body.get("user")
    return user.get("id") if isinstance(user, dict) else None
