"""What one digest post holds: the papers a subscription posts on a date,
rendered (``bot.render.render_post``: one paper, or ``N papers``) under a title that
says what the post is (``bot.daily.schedule_words.post_title``: "Paper of the week · …").
Rules: docs/interfaces.md "Paper of the day".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date
from typing import Callable

from bot.core.models import Paper, Subscription
from bot.core.ports import Message
from bot.daily.schedule_words import post_title
from bot.render import render_learned
from bot.service.recommendations import Recommendations
from bot.service.subscriptions import learned_for
from bot.service.topics import Topics

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DigestPost:
    """A subscription's post on one date, or why there is none.

    Attributes:
        message: the rendered post (its ``thread`` holds the abstract); None
            when there is nothing to post.
        paper_id: the first paper's id, recorded with the delivery ("" without
            a message).
        topic_matches_nothing: without a message: True when the subscription's
            topic matches no paper now — not a failure (``/paper status`` says
            so); False when it is one (logged: empty index, papers gone).
    """

    message: Message | None = None
    paper_id: str = ""
    topic_matches_nothing: bool = False

    @property
    def failed(self) -> bool:
        """True when there is no message and that is a failure to count."""
        return self.message is None and not self.topic_matches_nothing


#: ``(papers, day, title) -> Message``: draws a post (default ``bot.render.render_post``).
Render = Callable[[list[Paper], date, str], Message]


def post_for(
    topics: Topics, index, render: Render, sub: Subscription, day: date, learned: Recommendations | None = None
) -> DigestPost:
    """The post of ``sub`` on ``day``; a ``for me`` / ``for this channel`` subscription's
    is ``learned_post_for`` when ``learned`` is given (else the rotation's, logged).

    Args:
        topics: the day's paper ids of a subscription, persisted once.
        index: ``get(id) -> Paper | None``.
        render: ``(papers, day, title) -> Message`` (``Render``).
        sub: the subscription.
        day: its local date.
        learned: the service's picks (``Service.recommendations``), or None.

    Returns:
        DigestPost: with a message; or without one, ``failed`` when nothing
        can be posted (logged: empty index, papers gone) and
        ``topic_matches_nothing`` when the topic matches no paper now.
    """
    if sub.recommend and learned is not None:
        return learned_post_for(learned, sub, day)
    if sub.recommend:
        log.warning("digest %s %s: no recommender here; posting the rotation", sub.channel_id, day)
    ids = topics.paper_ids(sub, day)
    if not ids and sub.topic:
        log.debug("digest %s %s: topic %r matches no paper", sub.channel_id, day, sub.topic)
        return DigestPost(topic_matches_nothing=True)
    if not ids:
        log.error("digest %s %s: the index is empty; nothing posted", sub.channel_id, day)
        return DigestPost()
    papers = [p for p in (index.get(i) for i in ids) if p is not None]
    if not papers:
        log.error("digest %s %s: papers %s of that date are not in the index", sub.channel_id, day, ",".join(ids))
        return DigestPost()
    message = render(papers, day, post_title(sub.days, len(papers), day, sub.topic))
    return DigestPost(message=message, paper_id=papers[0].id)


def learned_post_for(learned: Recommendations, sub: Subscription, day: date) -> DigestPost:
    """The post of a ``for me`` / ``for this channel`` subscription: its best unseen picks
    with why, else the rotation's paper with a note said once (``Recommendations.post``).

    Args:
        learned: the service's picks.
        sub: the subscription (``recommend`` on).
        day: its local date.
    """
    post = learned.post(sub, day)
    if not post.picks:
        log.warning("digest %s %s: nothing new to post", sub.channel_id, day)
        return DigestPost(topic_matches_nothing=bool(sub.topic))
    picked = learned_for(sub) if any(r.how == "pick" for r in post.picks) else None
    title = post_title(sub.days, len(post.picks), day, sub.topic, picked=picked)
    message = render_learned(list(post.picks), day, title, post.note, personal=sub.personal)
    return DigestPost(message=message, paper_id=post.picks[0].paper.id)
