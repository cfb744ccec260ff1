"""A manifest's grants, and the scope Slack wants for one Web API call.

``Manifest.load(path)`` reads what an app created from that manifest is
granted: bot scopes, bot events, slash commands, interactivity.
``missing_scope(method, body, granted, channel)`` is what Slack answers
when a method is called without its scope [missing-scope]: the ``needed``
scope, or None when the call is allowed. The requirements come from
``bot.slack.scopes`` (one row per method, each citing Slack's method page).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.slack.scopes import METHODS
from tests.kit import ROOT

MANIFESTS = (ROOT / "manifest.yml", ROOT / "manifest.http.yml", ROOT / "manifest.oauth.yml")


@dataclass(frozen=True)
class Manifest:
    """What one app manifest asks for.

    Attributes:
        path: the manifest file.
        scopes: ``oauth_config.scopes.bot``.
        events: ``settings.event_subscriptions.bot_events``.
        commands: ``features.slash_commands[].command``.
        interactive: ``settings.interactivity.is_enabled``.
        shortcuts: ``features.shortcuts[]`` as ``(callback_id, type)`` pairs [shortcut].
        socket_mode: ``settings.socket_mode_enabled``.
        unfurl_domains: ``features.unfurl_domains``, in order.
    """

    path: Path
    scopes: frozenset[str]
    events: frozenset[str]
    commands: frozenset[str]
    interactive: bool
    socket_mode: bool
    shortcuts: frozenset[tuple[str, str]] = frozenset()
    unfurl_domains: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        """Parse ``path`` (YAML). Raises OSError / yaml.YAMLError on a bad file."""
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        settings = data.get("settings") or {}
        features = data.get("features") or {}
        return cls(
            path=Path(path),
            scopes=frozenset(((data.get("oauth_config") or {}).get("scopes") or {}).get("bot") or ()),
            events=frozenset((settings.get("event_subscriptions") or {}).get("bot_events") or ()),
            commands=frozenset(c["command"] for c in features.get("slash_commands") or ()),
            interactive=bool((settings.get("interactivity") or {}).get("is_enabled")),
            socket_mode=bool(settings.get("socket_mode_enabled")),
            unfurl_domains=tuple(features.get("unfurl_domains") or ()),
            shortcuts=frozenset((s["callback_id"], s["type"]) for s in features.get("shortcuts") or ()),
        )


def missing_scope(method: str, body: dict[str, Any], granted: frozenset[str], channel: Any = None) -> str | None:
    """The scope Slack would name in ``needed`` for this call, or None.

    Args:
        method: "chat.postMessage".
        body: the call's arguments.
        granted: the token's scopes.
        channel: the target channel's state in the fake (``private``,
            ``bot_member``), for the methods whose scope depends on it.

    Raises:
        KeyError: ``method`` has no row in ``bot.slack.scopes`` (the table
            must name every method the code calls).
    """
    row = METHODS[method]
    if method == "conversations.history":
        # [history] channels:history for public channels, groups:history for private ones
        needed = ("groups:history",) if channel is not None and channel.private else ("channels:history",)
    elif method == "chat.postMessage":
        # [chat-write-public] without it a public channel the bot is not in answers
        # not_in_channel (the fake's _post checks that), not missing_scope
        needed = ("chat:write",)
    elif method == "users.conversations":
        types = str(body.get("types") or "public_channel").split(",")
        needed = tuple(
            s for t, s in (("public_channel", "channels:read"), ("private_channel", "groups:read")) if t in types
        )
    else:
        needed = row.scopes
    for scope in needed:
        if scope not in granted:
            return scope
    return None
