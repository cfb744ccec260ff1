"""What the strict fake records: each request it received and each call it refused
(re-exported by ``tests.fakeslack``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    """One request the fake received.

    Attributes:
        method: Web API method ("chat.postMessage") or "response_url".
        path: the request path ("/api/chat.postMessage", "/response/3").
        body: parsed body: JSON object, or form / query fields (one value each).
        headers: request headers, names lower-cased.
        status: the HTTP status the fake answered (0: connection dropped).
        answer: what the fake answered (JSON dict, or the text body).
    """

    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int = 200
    answer: Any = None

    @property
    def token(self) -> str | None:
        """The token the call carried: ``Authorization: Bearer …`` (slack_sdk) or a
        ``token`` field; None without one (a ``response_url`` carries none)."""
        auth = self.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            return auth[len("Bearer ") :]
        token = self.body.get("token")
        return token if isinstance(token, str) and token else None


@dataclass
class Rejection:
    """A call Slack would have refused: ``error`` and ``response_metadata.messages``."""

    method: str
    error: str
    messages: list[str] = field(default_factory=list)
    body: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Defect:
    """A call Slack accepts (``ok: true``) whose result no user would get as meant
    (docs/slack-rules.md [ephemeral-thread], [replace-original]).

    Attributes:
        method: "chat.postEphemeral" or "response_url".
        kind: "not_shown" (an ephemeral message in a thread with no replies) or
            "replaced_for_everyone" (a click replaced a public message for
            everyone, though it was not the clicker's).
        detail: one line on what and where.
    """

    method: str
    kind: str
    detail: str
    body: dict[str, Any] = field(default_factory=dict, repr=False)
