"""The shape checks of a signed request before Bolt sees it: a body Slack could
never send is answered 400 with one line (``bot.slack.transport.http_server``), not a 500 and
a traceback from deep inside Bolt or a listener.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

#: Event fields that are strings (or absent / null) in every event Slack sends
#: (docs.slack.dev/reference/events/app_mention, .../message).
STRING_FIELDS = (
    "type",
    "subtype",
    "text",
    "user",
    "channel",
    "channel_type",
    "ts",
    "thread_ts",
    "event_ts",
    "bot_id",
    "team",
)


def malformed(raw: bytes, content_type: str) -> str | None:
    """Why a signed JSON body cannot be a Slack request, or None.

    Slack's Events API bodies are JSON objects; a ``url_verification`` carries
    a string ``challenge`` (docs.slack.dev/reference/events/url_verification)
    and an ``event_callback`` an ``event`` object whose fields in
    ``STRING_FIELDS`` are strings. An interactivity form body's ``payload``
    is a JSON object whose ``actions`` (``block_actions``) is a list of
    objects and whose ``user``/``team``/``channel``/``container``/``view``
    are objects when present (docs.slack.dev/reference/interaction-payloads/
    block_actions-payload); other form bodies (commands) are left to Bolt.

    Args:
        raw: the body (already checked to be UTF-8).
        content_type: the request's ``Content-Type``.
    """
    if "json" not in content_type.lower():
        return _payload_problem(raw)
    try:
        body = json.loads(raw)
    except ValueError:
        return "its body is not JSON"
    except RecursionError:
        return "its body is JSON nested too deeply"
    if not isinstance(body, dict):
        return "its body is not a JSON object"
    if body.get("type") == "url_verification":
        challenge = body.get("challenge")
        return None if isinstance(challenge, str) and challenge else "a url_verification without a challenge"
    if body.get("type") == "event_callback":
        event = body.get("event")
        if not isinstance(event, dict):
            return "an event_callback whose event is not an object"
        for name in STRING_FIELDS:
            if event.get(name) is not None and not isinstance(event[name], str):
                return f"its event.{name} is not a string"
    return None


#: Parts of an interaction payload that are objects whenever they are present.
PAYLOAD_OBJECTS = ("user", "team", "channel", "container", "view", "message")


def _payload_problem(raw: bytes) -> str | None:
    """Why a form body's ``payload`` cannot be an interaction payload, or None
    (no ``payload``: a slash command, left to Bolt)."""
    try:
        values = parse_qs(raw.decode("utf-8"), keep_blank_values=True).get("payload")
    except ValueError:
        return None
    if not values:
        return None
    try:
        payload = json.loads(values[0])
    except ValueError:
        return "its payload is not JSON"
    except RecursionError:
        return "its payload is JSON nested too deeply"
    if not isinstance(payload, dict):
        return "its payload is not a JSON object"
    for name in PAYLOAD_OBJECTS:
        if payload.get(name) is not None and not isinstance(payload[name], dict):
            return f"its payload.{name} is not an object"
    actions = payload.get("actions")
    if actions is not None and not (isinstance(actions, list) and all(isinstance(a, dict) for a in actions)):
        return "its payload.actions is not a list of objects"
    return None
