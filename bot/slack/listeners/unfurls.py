"""Link unfurls: a paper link posted (or being typed) gets a compact card.

``link_shared`` (scope ``links:read``; the domains are the manifests'
``unfurl_domains``, ``bot.service.paper_links.UNFURL_DOMAINS``) → ``bot.service.paper_links.PaperLinks``
finds the corpus paper of each link → one ``chat.unfurl`` (scope
``links:write``) with ``bot.render.unfurl`` cards for the known ones; a
message with no known link gets no call. Both sources of the event are
answered (https://docs.slack.dev/reference/events/link_shared):

- a posted message (``source: conversations_history``): ``channel`` + ``ts``;
- the composer's preview (``source: composer``, ``channel: COMPOSER``):
  ``unfurl_id`` + ``source`` — Slack then sends the posted message's event too.

Events are acked by Bolt before the listener runs. A retried event unfurls
again, which Slack applies to the same attachments rather than adding more
(chat.unfurl's page), so no idempotency key is needed. A card Slack refuses
is logged once (``bot.slack.delivery.fallback``) and sent again as plain text.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.render.unfurl import unfurl, unfurl_text
from bot.service.paper_links import PaperLinks
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.fallback import failed, refusal
from bot.slack.delivery.intake import later

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Links of one event looked at, so also cards per message: the first 5 of
#: its ``links``, known or not; further links are left alone. Our own cap:
#: Slack documents no limit on links per message or per ``link_shared`` event
#: (docs/slack-rules.md [unfurl]), and an event listing thousands of links
#: must cost what one listing five costs.
UNFURLS_MAX = 5
#: A longer URL is not looked at (paper and code links are far shorter), so
#: reading one link costs at most this many characters.
URL_MAX = 2000
COMPOSER = "composer"


def register(app: App, service: "Service", *, slots: FairSlots) -> None:
    """Register the ``link_shared`` listener (papers are looked up in ``service.index``,
    whose link table is read at the first event, while holding a work slot: it is
    index work, like a search — ``bot.slack.app.WORK_SLOTS``).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` (its ``index`` finds the papers).
        slots: the fair work slots held while the index is read (never during an ack or a Slack call).
    """
    made: list[PaperLinks] = []

    def link_shared(event: dict[str, Any], client: WebClient, context: dict[str, Any] | None = None) -> None:
        if not made:
            made.append(PaperLinks(service.index))
        later(context, lambda: answer(event, made[0], client, slots))

    app.event("link_shared")(link_shared)


def cards(event: dict[str, Any], links: PaperLinks) -> dict[str, tuple[dict, dict]]:
    """URL → (card, plain card) for each known paper link among the first
    ``UNFURLS_MAX`` links of the event, in order; unknown links, and URLs over
    ``URL_MAX`` characters, are left out.

    Args:
        event: the ``link_shared`` event.
        links: the paper lookup by link.
    """
    out: dict[str, tuple[dict, dict]] = {}
    listed = event.get("links")
    for link in listed[:UNFURLS_MAX] if isinstance(listed, list) else []:
        url = link.get("url") if isinstance(link, dict) else None
        if not isinstance(url, str) or len(url) > URL_MAX or url in out:
            continue
        paper = links.find(url)
        if paper is not None:
            out[url] = (unfurl(paper), unfurl_text(paper))
    return out


def target(event: dict[str, Any]) -> dict[str, str] | None:
    """``chat.unfurl``'s target arguments for the event, or None when it has none."""
    if event.get("source") == COMPOSER or event.get("channel") == "COMPOSER":
        unfurl_id = event.get("unfurl_id")
        return {"unfurl_id": unfurl_id, "source": COMPOSER} if unfurl_id else None
    if event.get("channel") and event.get("message_ts"):
        return {"channel": event["channel"], "ts": event["message_ts"]}
    return None


def answer(event: dict[str, Any], links: PaperLinks, client: WebClient, slots: FairSlots | None = None) -> bool:
    """Unfurl the event's known paper links; True when ``chat.unfurl`` accepted.

    Args:
        event: the ``link_shared`` event.
        links: finds the paper of a link.
        client: the Web API client (``chat.unfurl``).
        slots: held while the links are looked up (None: not bounded).

    Never raises (a listener must not): failures are logged.

    Args:
        event: the ``link_shared`` event.
        links: the paper lookup by link.
        client: Bolt's ``WebClient``.
    """
    try:
        user = event.get("user") if isinstance(event.get("user"), str) else ""
        with slots(user) if slots is not None else contextlib.nullcontext():
            found = cards(event, links)
        where = target(event)
        if not found or where is None:
            return False
        try:
            client.chat_unfurl(unfurls={u: c for u, (c, _) in found.items()}, **where)
        except Exception as exc:  # noqa: BLE001 — refused cards get a plain retry below
            if not refusal(exc, f"chat.unfurl of {len(found)} link(s)"):
                raise
            client.chat_unfurl(unfurls={u: p for u, (_, p) in found.items()}, **where)
        return True
    except Exception as exc:  # noqa: BLE001 — events are auto-acked; log and move on
        failed("chat.unfurl", exc)
        return False
