"""A distributed app's parts, put together from ``Settings`` and the store (README
"Distributed app (many workspaces)"): the installations with their tokens
sealed by ``PAPERBOT_TOKEN_KEY``, the token renewals, a poster per team for the
digest and the subscribe confirmation, and — for ``paperbot serve`` — Bolt's
OAuth set-up. One-workspace mode builds none of this.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bot.core.config import Settings
from bot.slack.app import make_client
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.oauth.flow import STATE_SECONDS, app_options
from bot.slack.oauth.rotation import SerialRotator
from bot.slack.oauth.tokens import InstalledTokens, TeamPosters
from bot.store import Store, TokenCipher


@dataclass(frozen=True)
class Distributed:
    """What a distributed app's processes share.

    Attributes:
        installations: the app's ``SealedInstallationStore``.
        rotator: renews expiring tokens, one process at a time.
        posters: a ``SlackPoster`` per team (``bot.core.ports.TeamPosters``).
    """

    installations: Any
    rotator: SerialRotator
    posters: TeamPosters

    def app_options(self, settings: Settings, store: Store, client: Any) -> dict[str, Any]:
        """The ``slack_bolt.App`` options of ``paperbot serve`` (``bot.slack.oauth.flow.app_options``).

        Args:
            settings: the process's settings.
            store: the SQL store (OAuth states, the team notes).
            client: the Web API client without a token.
        """
        return app_options(
            settings,
            client=client,
            installations=self.installations,
            states=store.oauth_states(STATE_SECONDS),
            note_team=store.note_team,
            rotator=self.rotator,
        )


def open_distributed(settings: Settings, store: Store, client: Any, slots: FairSlots | None = None) -> Distributed:
    """Open the installations and check ``PAPERBOT_TOKEN_KEY`` against what is stored.

    Args:
        settings: ``client_id``, ``client_secret``, ``token_key``, ``api_url``.
        store: the SQL store.
        client: the Web API client without a token (renewals go through it).
        slots: the listeners' ``FairSlots`` for the posters, or None.

    Raises:
        bot.store.TokenKeyError: the key is not a Fernet key, or does not open the stored tokens.
    """
    installations = store.installations(settings.client_id, TokenCipher(settings.token_key))
    installations.check_key()
    rotator = SerialRotator(
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        client=client,
        claims=store,
        installations=installations,
    )
    tokens = InstalledTokens(installations, store.team_installation, rotator)
    posters = TeamPosters(tokens, lambda token: make_client(replace(settings, bot_token=token)), slots=slots)
    return Distributed(installations=installations, rotator=rotator, posters=posters)
