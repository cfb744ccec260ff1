"""The shape checks of a signed request before Bolt sees it: a body Slack could
never send is answered 400 with one line (``bot.slack.transport.http_server``), not a 500 and
a traceback from deep inside Bolt or a listener. Socket Mode envelopes get the
same checks (``event_problem``, ``interaction_problem``; ``bot.slack.transport.socket_mode``).
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
    is a JSON object whose ``actions`` (``block_actions``) is a non-empty list
    of objects, each with its ``action_id``, and whose ``user``/``team``/``channel``/``container``/``view``
    are objects when present (docs.slack.dev/reference/interaction-payloads/
    block_actions-payload); every interaction names its ``user`` (``WITH_USER``)
    and a view submission or close its ``view`` (``WITH_VIEW``) with its ``type``
    and ``callback_id`` (Bolt reads both unguarded). Other form
    bodies (commands) are left to Bolt.

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
    return event_problem(body)


def event_problem(body: dict) -> str | None:
    """Why an Events API body (a JSON object) cannot be one Slack sends, or None."""
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
#: Interaction payloads, each of which Slack sends with the ``user`` who acted
#: (docs.slack.dev/reference/interaction-payloads: block_actions, view
#: submissions and closes, shortcuts, message shortcuts, block suggestions).
WITH_USER = ("block_actions", "view_submission", "view_closed", "shortcut", "message_action", "block_suggestion")
#: Interaction payloads that always carry the ``view`` they came from.
WITH_VIEW = ("view_submission", "view_closed")


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
    return interaction_problem(payload)


def interaction_problem(payload: object) -> str | None:
    """Why an interaction payload cannot be one Slack sends (``malformed``'s rules), or None."""
    if not isinstance(payload, dict):
        return "its payload is not a JSON object"
    for name in PAYLOAD_OBJECTS:
        if payload.get(name) is not None and not isinstance(payload[name], dict):
            return f"its payload.{name} is not an object"
    actions = payload.get("actions")
    if actions is not None and not (isinstance(actions, list) and all(isinstance(a, dict) for a in actions)):
        return "its payload.actions is not a list of objects"
    kind = payload.get("type")
    if kind in WITH_USER and not isinstance((payload.get("user") or {}).get("id"), str):
        return f"a {kind} payload without a user"
    view = payload.get("view")
    if kind in WITH_VIEW and not isinstance(view, dict):
        return f"a {kind} payload without a view"
    if kind in WITH_VIEW and not all(isinstance(view.get(k), str) for k in ("type", "callback_id")):
        return f"a {kind} payload whose view has no type or callback_id"
    if kind == "block_actions" and not actions:
        return "a block_actions payload without actions"
    if any(not isinstance(a.get("action_id"), str) for a in actions or []):
        return "an action without an action_id"
    return None
