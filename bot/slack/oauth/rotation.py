"""Token rotation, one process at a time: slack_sdk's ``TokenRotator`` behind a claim in the store.

With ``token_rotation_enabled`` an access token lives 12 hours and is renewed
with its refresh token through ``oauth.v2.access`` (``grant_type=refresh_token``),
which answers a new access token *and a new refresh token*
(https://docs.slack.dev/authentication/using-token-rotation). Bolt renews in
``authorize`` and the digest renews before posting, in every process; two
processes renewing with the same refresh token at once would both spend it.
So the one that claims it first (``Store.mark_once("rotation", sha256(refresh
token), …)`` — a hash, never the token) renews and saves; the others wait for
the saved result (up to ``WAIT_S``) or keep the token they have (still valid:
renewal starts ``ROTATION_MINUTES`` before expiry). A claim names a ten-minute
window too, so a process that died while renewing blocks nobody for long.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any, Optional

from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Installation, InstallationStore
from slack_sdk.oauth.token_rotation import TokenRotator

log = logging.getLogger(__name__)

#: The claim kind (``bot.store.claims``; purged after ``KEPT["rotation"]``).
ROTATION = "rotation"
#: Seconds a process waits for another one's renewal to be saved.
WAIT_S = 5.0
#: Seconds between looks while waiting.
POLL_S = 0.1
#: A claim's window, seconds: a renewal that died unsaved is tried again in the next one.
WINDOW_S = 600


def _refresh_token(installation: Installation) -> str | None:
    return installation.bot_refresh_token or installation.user_refresh_token


def _expiring(installation: Installation, minutes: int) -> bool:
    """True when a token of ``installation`` expires within ``minutes``."""
    limit = time.time() + minutes * 60
    return any(
        at is not None and at <= limit for at in (installation.bot_token_expires_at, installation.user_token_expires_at)
    )


class SerialRotator(TokenRotator):
    """slack_sdk's ``TokenRotator``; of the processes renewing one refresh token, one calls Slack.

    Args:
        client_id, client_secret: the app's credentials.
        client: the Web API client (``SLACK_API_URL``) for ``oauth.v2.access``.
        claims: ``mark_once(kind, key, detail) -> bool`` and ``unmark(kind, key)`` (the ``Store``).
        installations: where renewed installations are saved and read back.
    """

    def __init__(
        self, *, client_id: str, client_secret: str, client: WebClient, claims: Any, installations: InstallationStore
    ) -> None:
        super().__init__(client_id=client_id, client_secret=client_secret, client=client)
        self._claims = claims
        self._installations = installations

    def perform_token_rotation(
        self, *, installation: Installation, minutes_before_expiration: int = 120
    ) -> Optional[Installation]:
        """The renewed installation, or None when no token expires within the minutes
        (or another process renews it and its result is not saved yet).

        Args:
            installation: the current installation (tokens opened).
            minutes_before_expiration: renew a token expiring within this many minutes.

        Raises:
            slack_sdk.errors.SlackTokenRotationError: Slack refused the renewal
                (the claim is released: the next caller tries again).
        """
        refresh = _refresh_token(installation)
        if refresh is None or not _expiring(installation, minutes_before_expiration):
            return None
        key = f"{hashlib.sha256(refresh.encode('utf-8')).hexdigest()}:{int(time.time() // WINDOW_S)}"
        if not self._claims.mark_once(ROTATION, key, detail=installation.team_id or installation.enterprise_id):
            return self._renewed_elsewhere(installation, refresh)
        current = self._reread(installation)
        if current is not None and _refresh_token(current) != refresh:
            return current  # renewed by another process in an earlier window
        try:
            renewed = super().perform_token_rotation(
                installation=installation, minutes_before_expiration=minutes_before_expiration
            )
        except Exception:
            self._claims.unmark(ROTATION, key)
            raise
        if renewed is not None:
            log.info("renewed the token of %s", installation.team_id or installation.enterprise_id)
        return renewed

    def _reread(self, installation: Installation) -> Installation | None:
        return self._installations.find_installation(
            enterprise_id=installation.enterprise_id,
            team_id=installation.team_id,
            is_enterprise_install=installation.is_enterprise_install,
        )

    def _renewed_elsewhere(self, installation: Installation, refresh: str) -> Installation | None:
        """Another process renews: its saved result once it is there, else None."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            current = self._reread(installation)
            if current is not None and _refresh_token(current) != refresh:
                return current
            time.sleep(POLL_S)
        return None
