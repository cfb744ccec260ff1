"""The paper-of-the-day rotation: a pure, deterministic function of the date.

docs/interfaces.md "Paper of the day": the pick for a date is a deterministic function of the date
over the whole corpus, every paper once before any repeats. ``pick`` orders
the ids by a stable hash (SHA-256, not Python's per-process ``hash()``) and
walks that order one paper per day: date ordinal ``k`` gets position
``k mod n``. Any ``n`` consecutive dates therefore get ``n`` different
papers — a window that straddles the end of one pass and the start of the
next included, which a fresh shuffle per pass could not promise.

The order is independent of the input order and depends on each id alone, so
adding papers inserts them into the order without reshuffling the rest. A
change of ``n`` does shift future positions; dates already picked are
unaffected because ``Store.paper_for_date`` persists each pick the first time.
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Iterable

#: Salt of the order hash; changing it reshuffles every future date.
SALT = b"paperbot-rotation-v1:"


def order(ids: Iterable[str]) -> list[str]:
    """The rotation order of ``ids``: unique ids sorted by SHA-256(SALT + id), then id.

    Args:
        ids: paper ids, any order, duplicates ignored.

    Returns:
        list[str]: every distinct id once.
    """
    return sorted(set(ids), key=lambda i: (hashlib.sha256(SALT + i.encode("utf-8")).digest(), i))


def pick(day: date, ids: Iterable[str]) -> str:
    """The paper id of ``day``: ``order(ids)[day.toordinal() % n]``.

    Args:
        day: a calendar date (the channel's local date).
        ids: all paper ids of the corpus (e.g. ``SearchIndex.ids()``).

    Returns:
        str: one of ``ids``; the same for the same (day, set of ids) in every
        process, and different for any ``n`` consecutive days.

    Raises:
        ValueError: ``ids`` is empty.
    """
    ordered = order(ids)
    if not ordered:
        raise ValueError("cannot pick a paper of the day from an empty corpus")
    return ordered[day.toordinal() % len(ordered)]
