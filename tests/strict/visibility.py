"""Who sees what Slack accepted (docs/slack-rules.md [ephemeral-thread],
[replace-original]): Slack answers ``ok: true`` to both calls below, and still
no one, or everyone, sees the result.

- ``thread_is_active``: an ephemeral message with a ``thread_ts`` is shown only
  when that thread already has a reply.
- ``ClickOrigin`` / ``replaces_for_everyone``: a ``response_url`` remembers the
  message that was clicked; ``replace_original`` on a public message that is not
  the clicker's changes it for everyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


def thread_is_active(messages: Iterable[dict[str, Any]], thread_ts: str) -> bool:
    """True when a message of ``messages`` (one conversation) replies in the
    thread ``thread_ts`` — a message with that ``thread_ts`` and another ``ts``.

    Source: D/methods/chat.postEphemeral (``thread_ts``): "Ephemeral messages in
    threads are only shown if there is already an active thread."
    """
    return any(m.get("thread_ts") == thread_ts and m.get("ts") != thread_ts for m in messages)


@dataclass(frozen=True)
class ClickOrigin:
    """The message a ``response_url`` came from.

    Attributes:
        clicker: who clicked (a user id), or None when unknown (a slash command).
        public: the message is seen by everyone in the conversation (not ephemeral).
        owner: whose it is: the user a public answer was for, or None (a digest,
            a share card: nobody's alone).
    """

    clicker: str | None = None
    public: bool = False
    owner: str | None = None


def replaces_for_everyone(origin: ClickOrigin | None, body: dict[str, Any]) -> bool:
    """True when ``body`` (posted to the ``response_url`` of ``origin``) replaces a
    public message that is not the clicker's [replace-original].

    Source: https://docs.slack.dev/interactivity/handling-user-interaction
    (``replace_original`` replaces the message the interaction came from, for
    everyone who sees it).
    """
    if origin is None or not origin.public or body.get("replace_original") not in (True, "true"):
        return False
    return origin.owner is None or origin.owner != origin.clicker
