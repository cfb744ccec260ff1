"""Ports: the rendered ``Message``, the ``Poster`` interface the digest posts
through, and the ``ChannelAnnouncer`` the service notifies a channel through.

The Slack adapter (``bot.slack.delivery.poster``) implements ``Poster`` over
``slack_sdk.WebClient``; the console implements it by printing. The service
never renders or posts: it hands a reply to a ``ChannelAnnouncer``, which the
layers above it implement by rendering and posting
(``bot.render.announce.PostingAnnouncer``; docs/architecture.md "Layers").

Leaf module: no third-party imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from bot.core.replies import Reply

#: Per-channel errors that deactivate a subscription (docs/interfaces.md "Paper of the day").
CHANNEL_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})
#: Workspace-wide errors: stop every send with that token (the run, or one team's
#: sends for a distributed app), deactivate nothing. ``token_expired``: a rotating
#: token that was not renewed (docs.slack.dev/authentication/using-token-rotation).
WORKSPACE_ERRORS = frozenset(
    {"invalid_auth", "token_revoked", "token_expired", "account_inactive", "not_authed", "team_access_not_granted"}
)


@dataclass(frozen=True)
class Message:
    """A rendered message: Block Kit blocks plus the plain ``text`` fallback.

    Attributes:
        text: notification fallback (mrkdwn, already escaped), ≤ 4,000 chars.
        blocks: Block Kit blocks as dicts (built with ``slack_sdk.models.blocks``).
        visibility: "ephemeral" or "in_channel".
        thread: messages to post as replies in this message's thread after it.
        metadata: Slack message metadata ``{"event_type": str, "event_payload":
            dict}`` for machine-readable markers, or None. Never shown to people;
            posting it needs no extra scope (docs/slack-rules.md [metadata]).
    """

    text: str
    blocks: tuple[dict, ...] = ()
    visibility: str = "ephemeral"
    thread: tuple["Message", ...] = field(default_factory=tuple)
    metadata: dict | None = None

    def payload(self) -> dict:
        """The JSON body for ``chat.postMessage`` / ``respond`` (no channel)."""
        body = {"text": self.text, "blocks": list(self.blocks), "unfurl_links": False, "unfurl_media": False}
        if self.metadata:
            body["metadata"] = self.metadata
        return body


class PostError(Exception):
    """Posting failed: Slack refused the post, or the request did not get through.

    Args:
        code: Slack's error string ("is_archived", "ratelimited", …).
        detail: more about it, for logs (may be empty).
    """

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}{': ' + detail if detail else ''}")
        self.code = code

    @property
    def channel_level(self) -> bool:
        """True for errors that should deactivate the channel's subscription."""
        return self.code in CHANNEL_ERRORS

    @property
    def workspace_level(self) -> bool:
        """True for errors that should stop the whole run."""
        return self.code in WORKSPACE_ERRORS


class HistoryUnavailable(Exception):
    """A channel's history could not be read completely (missing scope, the bot
    cannot join, a network error, more messages than one look reads): whether a
    post is there cannot be known. ``str(e)`` is a short reason."""


class Poster(Protocol):
    """Posts messages to channels. Implementations raise ``PostError``."""

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        """Post ``message`` (and then its ``thread`` replies); return the parent ``ts``.

        Args:
            channel_id: the channel (a user id: the app's DM with that user).
            message: the rendered message.
            thread_ts: the parent's ``ts`` to reply in its thread, or None.
        """
        ...

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        """Return the ``ts`` of the bot's own post containing ``marker`` since
        ``oldest_ts`` (Unix seconds), or None when the whole history since then
        was read and holds no such post. Used to reconcile a claim left by a crash.

        Args:
            channel_id: the channel to look in.
            marker: a string only that post carries (``bot.render.digest_marker``).
            oldest_ts: how far back to look (Unix seconds).

        Raises:
            HistoryUnavailable: the history could not be read completely.
        """
        ...


@runtime_checkable
class TeamPosters(Protocol):
    """A distributed app's posters: one per team, each with its installation's token
    (``bot.slack.oauth.tokens.TeamPosters``). One workspace has a single ``Poster``."""

    def for_team(self, team_id: str) -> Poster:
        """The poster for ``team_id``; one refusing with ``PostError("not_authed")``
        when no installation answers for that team.

        Args:
            team_id: the Slack team ("T…").
        """
        ...


def poster_for(poster: "Poster | TeamPosters", team_id: str) -> Poster:
    """The ``Poster`` that posts in ``team_id``: ``poster.for_team(team_id)`` for
    ``TeamPosters``, else ``poster`` itself (one token for every team).

    Args:
        poster: a ``Poster`` or ``TeamPosters``.
        team_id: the Slack team ("T…").
    """
    return poster.for_team(team_id) if isinstance(poster, TeamPosters) else poster


class ChannelAnnouncer(Protocol):
    """Tells a whole channel something on the service's behalf (e.g. "subscribed
    this channel to a paper of the day at 09:30", naming who did it).

    The service calls it; the Slack layer and the console implement it by
    rendering ``reply`` and posting it as a channel-visible message.
    """

    def announce(self, channel_id: str, reply: "Reply", *, team_id: str) -> None:
        """Make ``reply`` visible to everyone in ``channel_id``.

        Args:
            channel_id: the channel to tell.
            reply: what to tell it (rendered by the implementation).
            team_id: the channel's team (a distributed app posts with its token).

        Raises:
            PostError: the post was refused (``not_in_channel``,
                ``channel_not_found`` when the bot is not in a private
                channel, …) — the caller undoes what it announced.
        """
        ...
