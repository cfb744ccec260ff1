"""Which papers a subscription posts on a date: the shared paper of the day, or
the channel's own rotation over its topic's match set (docs/interfaces.md
"Paper of the day").

* No topic and one paper: the paper of the day every channel shares
  (``Store.paper_for_date`` over ``bot.daily.rotation.pick``), as before.
* A topic, or ``N papers``: the channel's own rotation over the papers that
  match the topic (``index.match_all``; the whole corpus without a topic).
  Every matching paper comes once before any repeats: the store keeps which
  ids each pass ("cycle") has picked; a pick takes the not-yet-picked ids of
  the current pass, ordered by SHA-256 of (team, channel, id), at position
  ``date ordinal mod count`` — deterministic per channel and local date. The
  pick is persisted the first time (``Store.picks_for_date``), so the digest,
  ``/paper today`` and every process agree.
* A rebuild changes the match set: ids picked in the current pass stay
  picked (new papers come before repeats), ids no longer in the index are
  never chosen, and a date already picked keeps its pick — unless every
  paper of it left the index before anything was claimed for that date; then
  it is picked again.

Service layer: no Slack, SQL or Whoosh types here.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import date

from bot.core.index_port import ServiceIndex
from bot.core.models import QueryError, Subscription
from bot.core.store_port import DailyPicks
from bot.daily import rotation

log = logging.getLogger(__name__)


def channel_order(team: str, channel: str, ids) -> list[str]:
    """``ids`` in the channel's own stable order: SHA-256 of "team:channel:id", then id.

    Args:
        team: Slack team id.
        channel: Slack channel id (a user id for a personal feed).
        ids: paper ids (duplicates are dropped).
    """
    salt = f"paperbot-topic-v1:{team}:{channel}:".encode("utf-8")
    return sorted(set(ids), key=lambda i: (hashlib.sha256(salt + i.encode("utf-8")).digest(), i))


def choose(
    team: str, channel: str, day: date, candidates: list[str], cycle: int, seen: set, count: int
) -> list[tuple[str, int]]:
    """Pick up to ``count`` distinct ids for ``day``: unseen ones of the current cycle first.

    Args:
        team, channel: whose rotation (the order depends on them).
        day: the local date (its ordinal picks the position).
        candidates: the ids that may be posted now (the topic's match set).
        cycle, seen: the latest cycle number and the ids already picked in it.
        count: papers wanted (1..5).

    Returns:
        ``[(paper id, cycle it belongs to)]``; fewer than ``count`` only when
        there are fewer candidates; ``[]`` when there are none.
    """
    ordered = channel_order(team, channel, candidates)
    picked: list[tuple[str, int]] = []
    seen = set(seen) & set(ordered)
    while len(picked) < min(count, len(ordered)):
        taken = {p for p, _ in picked}
        unseen = [i for i in ordered if i not in seen and i not in taken]
        if not unseen:
            cycle, seen = cycle + 1, set()
            continue
        pid = unseen[day.toordinal() % len(unseen)]
        picked.append((pid, cycle))
        seen.add(pid)
    return picked


class Topics:
    """Match sets and picks for subscriptions.

    Args:
        index: ``ids()``, ``get(id)`` and ``match_all(topic) -> list[id]``.
        store: the store's daily picks (``bot.core.store_port.DailyPicks``).
    """

    def __init__(self, index: ServiceIndex, store: DailyPicks) -> None:
        self.index, self.store = index, store

    def matches(self, topic: str | None) -> list[str]:
        """Ids matching ``topic`` now (every id when there is no topic).

        Raises:
            QueryError: the topic cannot run.
        """
        if not topic:
            return list(self.index.ids())
        return list(self.index.match_all(topic))

    def match_count(self, topic: str | None) -> int | None:
        """How many papers match ``topic`` now; None when it cannot run."""
        try:
            return len(self.matches(topic))
        except QueryError:
            return None

    def paper_ids(self, sub: Subscription, day: date) -> list[str]:
        """The ids ``sub`` posts on ``day`` (persisted the first time); ``[]``
        when its topic matches nothing (or cannot run) or the index is empty.

        Args:
            sub: the subscription (topic, papers per post, channel).
            day: its local date.
        """
        if not sub.topic and sub.papers <= 1:
            ids = self.index.ids()
            if not ids:
                return []
            return [self.store.paper_for_date(day, lambda d: rotation.pick(d, ids))]
        have = self.store.channel_picks(sub.team_id, sub.channel_id, day, sub.topic)
        if (
            have
            and all(self.index.get(pid) is None for pid in have)
            and self.store.get_delivery(sub.team_id, sub.channel_id, day) is None
        ):
            # a rebuild removed every paper of a pick not yet posted: pick again
            self.store.drop_channel_picks(sub.team_id, sub.channel_id, day, sub.topic)
            have = []
        if have:
            return have
        try:
            candidates = self.matches(sub.topic)
        except QueryError as exc:
            log.warning("topic %r of %s cannot run: %s", sub.topic, sub.channel_id, exc.message)
            return []
        count = max(1, min(5, sub.papers))
        return self.store.picks_for_date(
            sub.team_id,
            sub.channel_id,
            day,
            sub.topic,
            lambda cycle, seen: choose(sub.team_id, sub.channel_id, day, candidates, cycle, seen, count),
        )

    def papers(self, sub: Subscription, day: date) -> list:
        """The ``Paper`` objects of ``paper_ids`` that are still in the index.

        Args:
            sub: the subscription.
            day: its local date.
        """
        out = []
        for pid in self.paper_ids(sub, day):
            paper = self.index.get(pid)
            if paper is not None:
                out.append(paper)
        return out
