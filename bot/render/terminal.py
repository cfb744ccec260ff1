"""Block Kit → readable terminal text, for ``paperbot console``.

The console shows exactly what Slack would get, so it prints the rendered
``Message`` (not the service reply): headers, sections, context lines, and
buttons as text hints.
"""

from __future__ import annotations

from bot.core.json_values import json_object
from bot.core.ports import Message
from bot.render import mrkdwn as md

_HINTS = {
    "paper_share": "share {id}",
    "paper_details": "/paper show {id}",
    "paper_similar": "/paper similar {id}",
    "paper_another": "/paper random",
    "paper_save": "save {id}",
    "saved_remove": "remove {id}",
    "saved_export": "export",
    "rec_more": "like {id}",
    "rec_not_for_me": "nope {id}",
}


def _button_hint(el: dict) -> str:
    label = el.get("text", {}).get("text", "")
    value = json_object(el.get("value") or "{}") or {}
    hint = _HINTS.get(el.get("action_id", ""), "")
    if str(el.get("action_id", "")).startswith("results_page"):
        hint = "more" if "Next" in label else ("back" if "Previous" in label else f"/paper search {value.get('q', '')}")
    elif hint and isinstance(value, dict):
        hint = hint.format(id=value.get("id", ""))
    return f"[{label}: {hint}]" if hint else f"[{label}]"


def to_text(message: Message) -> str:
    """Render ``message`` as plain text lines (entities decoded, links as ``label (url)``)."""
    if not message.blocks:
        return md.plain(message.text)
    lines: list[str] = []
    for block in message.blocks:
        kind = block.get("type")
        if kind == "header":
            title = block["text"]["text"]
            lines += [title, "=" * min(len(title), 72)]
        elif kind == "section":
            if block.get("text"):
                accessory = block.get("accessory") or {}
                hint = f"  {_button_hint(accessory)}" if accessory.get("type") == "button" else ""
                lines.append(md.plain(block["text"]["text"]) + hint)
        elif kind == "context":  # Slack shows the elements side by side
            parts = [md.plain(e.get("text", "")) for e in block.get("elements", [])]
            if sum(len(p) for p in parts) <= 100:
                lines.append("  " + " · ".join(parts))
            else:
                lines += ["  " + p for p in parts]
        elif kind == "actions":
            hints = [_button_hint(e) for e in block.get("elements", []) if e.get("type") == "button"]
            if hints:
                lines.append("  " + " ".join(hints))
        elif kind == "divider":
            lines.append("-" * 40)
    out = "\n".join(lines)
    for reply in message.thread:
        out += "\n  ↳ (in thread) " + to_text(reply).replace("\n", "\n    ")
    return out
