"""Reading a JSON object from a value Slack hands back: a button's ``value``, a
view's ``private_metadata``. Both are strings we wrote, but a signed request can
carry anything — ``"[" * 1000`` made ``json.loads`` raise ``RecursionError`` past
every ``except ValueError`` (issue 20's outside run: a traceback per click, a 500
on a share modal's submission). So every such value is read here, once: longer
than Slack allows or nested deeper than we ever write is refused before
``json.loads`` runs.
"""

from __future__ import annotations

import json
from typing import Any

#: Characters a value may have: ``private_metadata`` ≤ 3,000, a button ``value`` ≤ 2,000
#: (docs/slack-rules.md, the view and button rows).
CHARS_MAX = 3_000
#: Nesting our own values never exceed (``{"q": …, "o": …}``, ``{"depth": 2}``: depth 1).
DEPTH_MAX = 8


def nesting(raw: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``raw``, brackets inside JSON
    strings not counted (``'{"a": [1]}'`` → 2, ``'"' + "[" * 20 + '"'`` → 0); for
    a value with at most ``DEPTH_MAX`` brackets in all, their count (an upper bound)."""
    if raw.count("[") + raw.count("{") <= DEPTH_MAX:
        return raw.count("[") + raw.count("{")  # an upper bound, and small: no need to scan
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            escaped, in_string = (not escaped and ch == "\\"), in_string and (escaped or ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def json_object(raw: object) -> dict[str, Any] | None:
    """The JSON object in ``raw``, or None: not a string, longer than ``CHARS_MAX``,
    nested deeper than ``DEPTH_MAX``, not JSON, or JSON but not an object."""
    if not isinstance(raw, str) or len(raw) > CHARS_MAX or nesting(raw) > DEPTH_MAX:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
