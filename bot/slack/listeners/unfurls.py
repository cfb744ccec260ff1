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

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.render.unfurl import unfurl, unfurl_text
from bot.service.paper_links import PaperLinks
from bot.slack.delivery.fallback import refusal

if TYPE_CHECKING:
    from bot.service.service import Service

log = logging.getLogger(__name__)

#: Cards per message, our own cap (Slack documents no per-message limit we
#: could find, docs/slack-rules.md [unfurl]); further links are left alone.
UNFURLS_MAX = 5
COMPOSER = "composer"


def register(app: App, service: "Service") -> None:
    """Register the ``link_shared`` listener (papers are looked up in ``service.index``,
    whose link table is read at the first event).

    Args:
        app: the Bolt ``App``.
        service: the ``Service`` (its ``index`` finds the papers).
    """
    made: list[PaperLinks] = []

    def link_shared(event: dict[str, Any], client: WebClient) -> None:
        if not made:
            made.append(PaperLinks(service.index))
        answer(event, made[0], client)

    app.event("link_shared")(link_shared)


def cards(event: dict[str, Any], links: PaperLinks) -> dict[str, tuple[dict, dict]]:
    """URL → (card, plain card) for each known paper link of the event, in order,
    at most ``UNFURLS_MAX``; unknown links are left out.

    Args:
        event: the ``link_shared`` event.
        links: the paper lookup by link.
    """
    out: dict[str, tuple[dict, dict]] = {}
    for link in event.get("links") or []:
        url = link.get("url") if isinstance(link, dict) else None
        if not isinstance(url, str) or url in out:
            continue
        paper = links.find(url)
        if paper is not None:
            out[url] = (unfurl(paper), unfurl_text(paper))
        if len(out) == UNFURLS_MAX:
            break
    return out


def target(event: dict[str, Any]) -> dict[str, str] | None:
    """``chat.unfurl``'s target arguments for the event, or None when it has none."""
    if event.get("source") == COMPOSER or event.get("channel") == "COMPOSER":
        unfurl_id = event.get("unfurl_id")
        return {"unfurl_id": unfurl_id, "source": COMPOSER} if unfurl_id else None
    if event.get("channel") and event.get("message_ts"):
        return {"channel": event["channel"], "ts": event["message_ts"]}
    return None


def answer(event: dict[str, Any], links: PaperLinks, client: WebClient) -> bool:
    """Unfurl the event's known paper links; True when ``chat.unfurl`` accepted.

    Never raises (a listener must not): failures are logged.

    Args:
        event: the ``link_shared`` event.
        links: the paper lookup by link.
        client: Bolt's ``WebClient``.
    """
    try:
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
    except Exception:  # noqa: BLE001 — events are auto-acked; log and move on
        log.exception("unfurling %d link(s) failed", len(event.get("links") or []))
        return False
