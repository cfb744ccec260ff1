"""The token of each workspace outside a Slack request: the digest and the subscribe confirmation.

A request from Slack gets its workspace's token from Bolt's ``authorize``
(``bot.slack.oauth.flow``). The digest clock and ``digest send`` post for a
subscription's team with no request around, so ``TeamPosters.for_team`` finds
that team's installation (its own, or its Grid organisation's org-wide one,
``Store.team_installation``), renews the token when it expires soon
(``bot.slack.oauth.rotation``) and posts with a ``SlackPoster`` holding it. A
team without an installation (uninstalled, revoked) gets a poster that refuses
with ``not_authed`` — Slack's own answer to a call without a token — which stops
that team's sends only (``bot.core.ports.WORKSPACE_ERRORS``).
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackTokenRotationError
from slack_sdk.oauth.installation_store import InstallationStore

from bot.core.ports import HistoryUnavailable, Message, PostError
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.poster import SlackPoster
from bot.slack.oauth.flow import ROTATION_MINUTES
from bot.slack.oauth.rotation import SerialRotator

log = logging.getLogger(__name__)


class InstalledTokens:
    """The bot token of a workspace's installation, renewed when it expires soon.

    Args:
        installations: ``Store.installations`` (tokens sealed at rest).
        team_installation: ``team -> (enterprise_id, is_enterprise_install)`` (``Store.team_installation``).
        rotator: renews expiring tokens, one process at a time.
    """

    def __init__(
        self,
        installations: InstallationStore,
        team_installation: Callable[[str], tuple[str | None, bool]],
        rotator: SerialRotator,
    ) -> None:
        self._installations = installations
        self._team_installation = team_installation
        self._rotator = rotator

    def bot_token(self, team_id: str) -> str | None:
        """The bot token that posts in ``team_id``; None when no installation answers for it.

        Args:
            team_id: the workspace ("T…").
        """
        enterprise_id, org = self._team_installation(team_id)
        found = self._installations.find_installation(
            enterprise_id=enterprise_id, team_id=None if org else team_id, is_enterprise_install=org
        )
        if found is None or not found.bot_token:
            return None
        try:
            renewed = self._rotator.perform_token_rotation(
                installation=found, minutes_before_expiration=ROTATION_MINUTES
            )
        except SlackTokenRotationError as e:
            # the token may still be valid; if not, the post fails (token_expired) and stops only this team
            log.error("cannot renew the token of %s (%s)", team_id, (e.api_error.response or {}).get("error"))
            return found.bot_token
        if renewed is None:
            return found.bot_token
        self._installations.save(renewed)
        return renewed.bot_token


class _NotInstalled:
    """The poster of a team no installation answers for: every post is refused."""

    def __init__(self, team_id: str) -> None:
        self._team_id = team_id

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        """Refuse like Slack refuses a call without a token.

        Raises:
            PostError: always ``not_authed``.
        """
        raise PostError("not_authed", f"paperbot is not installed in {self._team_id}")

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        """Cannot look without a token.

        Raises:
            HistoryUnavailable: always.
        """
        raise HistoryUnavailable(f"paperbot is not installed in {self._team_id}")


class TeamPosters:
    """A ``bot.core.ports.Poster`` per team (``bot.core.ports.TeamPosters``), each with its installation's token.

    Args:
        tokens: finds (and renews) each team's bot token.
        client_for: a Web API client for a token (``bot.slack.app.make_client``'s retries).
        slots: the listeners' ``FairSlots`` (see ``SlackPoster``), or None.
    """

    def __init__(
        self, tokens: InstalledTokens, client_for: Callable[[str], WebClient], slots: FairSlots | None = None
    ) -> None:
        self._tokens = tokens
        self._client_for = client_for
        self._slots = slots
        self._posters: dict[str, tuple[str, SlackPoster]] = {}
        self._lock = threading.Lock()

    def for_team(self, team_id: str) -> SlackPoster | _NotInstalled:
        """The poster for ``team_id``: a ``SlackPoster`` with its token (kept while the
        token stays the same), or one that refuses when paperbot is not installed there.

        Args:
            team_id: the workspace ("T…").
        """
        token = self._tokens.bot_token(team_id)
        if token is None:
            return _NotInstalled(team_id)
        with self._lock:
            held = self._posters.get(team_id)
            if held is None or held[0] != token:
                held = (token, SlackPoster(self._client_for(token), slots=self._slots))
                self._posters[team_id] = held
            return held[1]
