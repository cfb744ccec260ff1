"""Interactivity payloads as Slack sends them [shortcut] (docs/slack-rules.md): the
tests check every shortcut payload they post against these shapes, so a test
never feeds the bot something Slack would not send."""

from __future__ import annotations

from typing import Any


def shortcut_problems(payload: dict[str, Any]) -> list[str]:
    """What is wrong with a ``message_action`` / ``shortcut`` payload ([] when none)."""
    out: list[str] = []
    kind = payload.get("type")
    for key in ("callback_id", "trigger_id", "team", "user"):
        if not payload.get(key):
            out.append(f"{kind}: missing {key}")
    if kind == "message_action":
        if not isinstance(payload.get("message"), dict) or not payload["message"].get("ts"):
            out.append("message_action: missing message.ts")
        if not (payload.get("channel") or {}).get("id"):
            out.append("message_action: missing channel.id")
        if "response_url" not in payload:
            out.append("message_action: missing response_url")
    elif kind == "shortcut":
        if "channel" in payload or "response_url" in payload:
            out.append("shortcut: a global shortcut has no channel and no response_url")
    else:
        out.append(f"not a shortcut payload: type {kind!r}")
    return out
