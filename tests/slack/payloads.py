"""Shortcut payloads as Slack sends them (docs/slack-rules.md [shortcut]), and the
view helpers the modal tests share."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.fakeslack import TEAM_ID
from tests.strict.payloads import shortcut_problems


def message_action(
    text: str | None,
    *,
    callback_id: str = "find_related_papers",
    user: str = "U0ALICE",
    channel: str = "C0GENERAL",
    response_url: str = "",
    files: bool = False,
) -> dict[str, Any]:
    """A message shortcut payload (``type: "message_action"``) on a message with
    ``text`` (None: a message without text, e.g. only a file) — the shape of
    docs/slack-rules.md [shortcut]."""
    message: dict[str, Any] = {"type": "message", "user": "U0BOB", "ts": "1765000900.000100"}
    if text is not None:
        message["text"] = text
    if files:
        message["files"] = [{"id": "F0IMAGE", "name": "figure.png", "mimetype": "image/png"}]
    payload = {
        "type": "message_action",
        "token": "deprecated",
        "action_ts": f"{time.time():.6f}",
        "callback_id": callback_id,
        "trigger_id": "1337.44.abcdef",
        "team": {"id": TEAM_ID, "domain": "paperbot-test"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "channel": {"id": channel, "name": "general"},
        "message": message,
        "message_ts": message["ts"],
        "response_url": response_url,
        "is_enterprise_install": False,
    }
    assert not shortcut_problems(payload), shortcut_problems(payload)
    return payload


def global_shortcut(callback_id: str = "search_papers", user: str = "U0ALICE") -> dict[str, Any]:
    """A global shortcut payload (``type: "shortcut"``): no channel, no ``response_url``."""
    payload = {
        "type": "shortcut",
        "token": "deprecated",
        "action_ts": f"{time.time():.6f}",
        "callback_id": callback_id,
        "trigger_id": "1337.45.abcdef",
        "team": {"id": TEAM_ID, "domain": "paperbot-test"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "is_enterprise_install": False,
    }
    assert not shortcut_problems(payload), shortcut_problems(payload)
    return payload


def view_of(call) -> dict:
    """The ``view`` argument of a recorded ``views.*`` call (JSON body or form field)."""
    view = call.body["view"]
    return json.loads(view) if isinstance(view, str) else view


def values(view: dict, action_id: str) -> list[dict]:
    """The parsed values of every ``action_id`` button in a view's (or message's) actions blocks."""
    return [
        json.loads(e["value"])
        for b in view["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") == action_id
    ]
