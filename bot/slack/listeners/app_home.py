"""The App Home tab and the search modal.

- ``app_home_opened`` (tab "home") → ``service.home(ctx, is_member)`` →
  ``bot.render.home.home_view`` → one ``views.publish``, on every open. Membership comes from one paginated
  ``users.conversations`` for the viewer, asked only when the team has a
  subscription (``Membership``).
- ``view_submission`` of the search modal (``SEARCH_MODAL_ID``): an empty
  query → ``response_action: errors`` on the input; otherwise ack with
  ``response_action: update`` (the modal says "Searching…"), run the search,
  then ``views.update`` the same view with the results or the explanation.
- ``app_home_opened`` (tab "messages") → the first hello, once per user
  (``bot.slack.listeners.welcome``).
- Views sent to Slack pass ``bot.slack.delivery.modals.valid_view``; answers to
  clicks inside a view are shown by ``bot.slack.delivery.modals.show_in_view``.

Nothing here raises out of a listener: failures are logged and, where the
user is waiting, shown as a short polite sentence.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App
from slack_sdk import WebClient

from bot.core.models import Context
from bot.core.parsing import user_text
from bot.core.replies import ErrorReply, ResultsReply
from bot.render.home import (
    MODAL_INPUT_MAX,
    MODAL_RESULTS,
    SEARCH_INPUT_ACTION,
    SEARCH_INPUT_BLOCK,
    SEARCH_MODAL_ID,
    home_view,
    search_modal,
)
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import view_or_plain
from bot.slack.delivery.modals import valid_view
from bot.slack.listeners.slash_command import SORRY
from bot.slack.listeners.welcome import welcome_user

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

SEARCHING = "Searching…"
EMPTY_QUERY = "Type a few words to search for, e.g. sparse attention."
#: The modal's input allows 3,000 characters (``MODAL_INPUT_MAX``, Slack's limit); a
#: longer (tampered) value is cut to this for ``initial_value`` only — the search
#: itself cuts at 4,000 with a note (docs/interfaces.md "Rules every reply obeys").
QUERY_SHOWN_MAX = MODAL_INPUT_MAX
#: ``users.conversations``: Slack recommends ``limit`` ≤ 200; 20 pages cover
#: a viewer in 4,000 channels, beyond which the Home tab lists fewer.
MEMBER_PAGE_SIZE = 200
MEMBER_PAGES = 20
#: Conversation types a subscription can live in. Scopes: ``channels:read``
#: (public) and ``groups:read`` (private channels the bot is in).
MEMBER_TYPES = "public_channel,private_channel"
#: The Home tab when Slack refuses the real one (``bot.slack.delivery.fallback``).
HOME_PLAIN = "*paperbot* searches this workspace's conference papers. Type `/paper help` in any channel to start."


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the ``app_home_opened`` and search-modal submission listeners.

    Args:
        app: the Bolt app.
        service: answers ``home(ctx, is_member)`` and ``search(q, …)``.
        slots: bounds concurrent searches (``bot.slack.app.WORK_SLOTS``).
    """
    app.event("app_home_opened")(make_home_listener(service))
    app.view(SEARCH_MODAL_ID)(make_search_listener(service, slots))


# ---------------------------------------------------------------- App Home
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


def make_home_listener(service: "Service"):
    """The ``app_home_opened`` listener (Bolt arguments ``body, event, client``). Service and
    rendering are light here (no search), so no work slot is held, nor during Slack calls."""

    def app_home_opened(body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab") == "messages":
            welcome_user(service, client, body, event)  # once per user (issue 12 point 5)
            return
        user = event.get("user") or ""
        team = body.get("team_id") or ""
        if not user:
            return
        try:
            publish_home(service, client, team, user)
        except Exception:  # noqa: BLE001 — events are auto-acked; log and move on
            log.exception("App Home for %s (team %s) not published", user, team)

    return app_home_opened


def publish_home(service: "Service", client: WebClient, team: str, user: str, saved_offset: int = 0) -> None:
    """``views.publish`` the Home tab of ``user``: today's paper, their channels and
    feed, a page of their saved papers (from ``saved_offset``).

    Raises: slack_sdk.errors.SlackApiError / SlackClientError (Slack refused it)."""
    ctx = Context(team, "", user)
    today, day, channels = service.home(ctx, Membership(client, user))
    saved = service.reading.page(ctx, saved_offset)
    view_or_plain(client.views_publish, valid_view(home_view(today, day, channels, saved)), HOME_PLAIN, user_id=user)


# ---------------------------------------------------------------- search modal
def submitted_query(view: dict[str, Any]) -> str:
    """The text typed in the modal's input, stripped, controls and bidi overrides
    removed (``bot.core.parsing.user_text``; "" when missing or not text)."""
    try:
        value = view["state"]["values"][SEARCH_INPUT_BLOCK][SEARCH_INPUT_ACTION]["value"]
    except (KeyError, TypeError):
        return ""
    return user_text(value).strip() if isinstance(value, str) else ""


def modal_results(service: "Service", query: str, offset: int = 0, exact: bool = False) -> dict:
    """The modal showing ``MODAL_RESULTS`` results for ``query`` from ``offset``, or why not."""
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
    """The search modal's ``view_submission`` listener (``ack, view, client``)."""

    def search_submitted(ack: Ack, view: dict[str, Any], client: WebClient, body: dict[str, Any]) -> None:
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
