"""What one digest post holds: the papers a subscription posts on a date,
rendered (one paper: ``render_digest``; ``N papers``: ``render_digest_many``).
Rules: docs/interfaces.md "Paper of the day".
"""

from __future__ import annotations

import logging
from datetime import date

from bot.core.models import Subscription
from bot.core.ports import Message
from bot.render import render_digest_many

log = logging.getLogger(__name__)


def post_for(topics, index, render, sub: Subscription, day: date) -> tuple[str, Message] | tuple | None:
    """The post of ``sub`` on ``day``.

    Args:
        topics: ``bot.service.topics.Topics`` (the day's paper ids, persisted once).
        index: ``get(id) -> Paper | None``.
        render: ``(paper, day) -> Message`` for a single paper.
        sub, day: the subscription and its local date.

    Returns:
        ``(first paper id, message)``; ``None`` when it cannot post (logged:
        empty index, papers gone); ``()`` when its topic matches nothing now
        (not a failure: ``/paper status`` says so).
    """
    ids = topics.paper_ids(sub, day)
    if not ids and sub.topic:
        log.debug("digest %s %s: topic %r matches no paper", sub.channel_id, day, sub.topic)
        return ()
    if not ids:
        log.error("digest %s %s: the index is empty; nothing posted", sub.channel_id, day)
        return None
    papers = [p for p in (index.get(i) for i in ids) if p is not None]
    if not papers:
        log.error("digest %s %s: papers %s of that date are not in the index", sub.channel_id, day, ",".join(ids))
        return None
    if len(papers) == 1:
        return papers[0].id, render(papers[0], day)
    return papers[0].id, render_digest_many(papers, day)
