"""Which installation answers for a workspace (table ``installation_teams``), and
the way to a distributed app's installations and OAuth states.

The digest posts for a team; a workspace's own install names it, but an
Enterprise Grid org-wide install names only the organisation, so each workspace
it answers for is noted from its first authorized request (README "Distributed
app (many workspaces)"). Part of ``bot.store.Store``; the methods use ``self._engine``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa

from bot.daily.post_times import utc_now
from bot.store.db import transaction
from bot.store.schema import installation_teams as teams_t

if TYPE_CHECKING:
    from bot.store.installations import SealedInstallationStore, SingleUseStateStore
    from bot.store.token_cipher import TokenCipher


class InstallationTeams:
    """Which installation answers for a workspace; mixed into ``bot.store.Store`` (needs ``_engine``)."""

    _engine: sa.Engine

    def installations(self, client_id: str, cipher: "TokenCipher") -> "SealedInstallationStore":
        """The app's installations in this database, secrets sealed with ``cipher``.

        Args:
            client_id: the app's client id.
            cipher: from ``PAPERBOT_TOKEN_KEY``.
        """
        from bot.store.installations import SealedInstallationStore  # only a distributed app pays its import

        return SealedInstallationStore(self._engine, client_id, cipher)

    def oauth_states(self, expiration_seconds: int) -> "SingleUseStateStore":
        """The OAuth states of installs under way, shared by every web process.

        Args:
            expiration_seconds: how long a state stays usable.
        """
        from bot.store.installations import SingleUseStateStore

        return SingleUseStateStore(self._engine, expiration_seconds)

    def note_team(
        self, team: str, enterprise_id: str | None, is_enterprise_install: bool, now: datetime | None = None
    ) -> None:
        """Record that ``team`` is answered by the installation of (``enterprise_id``,
        ``is_enterprise_install``): an org-wide one, or the workspace's own.

        Args:
            team: the workspace id ("T…").
            enterprise_id: its Grid organisation ("E…"), or None.
            is_enterprise_install: the organisation's org-wide install answers for it.
            now: aware UTC time (default: the real clock).
        """
        row = {"enterprise_id": enterprise_id, "is_enterprise_install": bool(is_enterprise_install)}
        at = utc_now() if now is None else now
        try:
            with transaction(self._engine, write=True) as conn:
                changed = conn.execute(teams_t.update().where(teams_t.c.team == team).values(**row, seen_at=at))
                if changed.rowcount == 0:
                    conn.execute(teams_t.insert().values(team=team, seen_at=at, **row))
        except sa.exc.IntegrityError:
            pass  # another process inserted the same team at the same moment: its row says the same

    def team_installation(self, team: str) -> tuple[str | None, bool]:
        """``(enterprise_id, is_enterprise_install)`` noted for ``team``; ``(None, False)``
        when none was (a workspace outside any Grid organisation)."""
        with transaction(self._engine) as conn:
            row = conn.execute(
                sa.select(teams_t.c.enterprise_id, teams_t.c.is_enterprise_install).where(teams_t.c.team == team)
            ).first()
        return (row.enterprise_id, bool(row.is_enterprise_install)) if row is not None else (None, False)

    def org_teams(self, enterprise_id: str) -> list[str]:
        """The workspaces an org-wide install of ``enterprise_id`` answered for, sorted."""
        with transaction(self._engine) as conn:
            rows = conn.execute(
                sa.select(teams_t.c.team).where(
                    teams_t.c.enterprise_id == enterprise_id, teams_t.c.is_enterprise_install == sa.true()
                )
            )
            return sorted(r.team for r in rows)
