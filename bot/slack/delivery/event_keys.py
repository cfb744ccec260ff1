"""Which Slack events are work to answer once (a mention, a DM), and the keys that name each.

Slack retries an event it thinks was not received (``X-Slack-Retry-Num``, same
``event_id``) and an edited message keeps its ``ts``, so an answered event has
two keys, claimed together — ``event:<event_id>`` and
``msg:<team>:<channel>:<ts>`` — and neither a retry nor an edit ever gets a
second reply (docs/interfaces.md "Mentions and direct messages";
docs/architecture.md "Idempotency and the journal"). The journal
(``bot.slack.delivery.journal``) claims them before the ack; without a journal
the listener asks a ``seen(*keys)`` check: ``SeenKeys`` in memory, or the
store's (``bot.runtime.processes.store_seen``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

#: Subtypes answered; everything else (``message_changed`` edits,
#: ``bot_message``, ``message_deleted``, canvas ``document_mention`` …) is
#: ignored. Source: docs.slack.dev/reference/events/app_mention and the
#: ``message`` subtypes list.
ANSWERED_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})


def should_answer(event: dict[str, Any]) -> bool:
    """False for bots (ours included), edits, deletions and other subtypes."""
    if event.get("bot_id") or event.get("subtype") not in ANSWERED_SUBTYPES:
        return False
    return bool(event.get("channel") and event.get("ts"))


def idempotency_keys(body: dict[str, Any], event: dict[str, Any]) -> list[str]:
    """The keys under which this event counts as handled.

    Args:
        body: the Events API envelope (``event_id``, ``team_id``).
        event: ``body["event"]`` (``team``, ``channel``, ``ts``).

    Returns:
        list[str]: ``["event:Ev123", "msg:T1:C1:1712345678.000100"]`` (either
        is left out when its parts are missing).
    """
    keys = []
    if body.get("event_id"):
        keys.append(f"event:{body['event_id']}")
    team = body.get("team_id") or event.get("team") or ""
    if event.get("channel") and event.get("ts"):
        keys.append(f"msg:{team}:{event['channel']}:{event['ts']}")
    return keys


class SeenKeys:
    """A bounded, thread-safe, in-memory set of handled idempotency keys.

    Stands in for the store's claim of event keys (``Store.claim_keys``,
    which also survives restarts and is shared between processes). Oldest
    keys are forgotten first.

    Args:
        max_keys: keys kept. Slack retries an event within about 6 minutes
            (immediately, ~1 min, ~5 min; docs/platform-facts.md), so 10,000
            covers far more than the events of that window.
    """

    def __init__(self, max_keys: int = 10_000) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._max = max_keys
        self._lock = threading.Lock()

    def seen(self, *keys: str) -> bool:
        """True when any of ``keys`` had been recorded before (then nothing is
        recorded); otherwise record them all and return False — one atomic step."""
        with self._lock:
            if any(key in self._keys for key in keys):
                return True
            for key in keys:
                self._keys[key] = None
            while len(self._keys) > self._max:
                self._keys.popitem(last=False)
            return False
