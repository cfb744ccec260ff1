"""What paperbot does when a workspace removes it (``app_uninstalled``) or revokes its
bot token (``tokens_revoked``): forget the tokens, turn the subscriptions off.

Slack sends ``app_uninstalled`` when the app is removed from a workspace (or an
organisation, for an org-wide install) and ``tokens_revoked`` when tokens are
revoked (https://docs.slack.dev/reference/events/app_uninstalled,
https://docs.slack.dev/reference/events/tokens_revoked). Either way the bot token
is dead, so:

- a distributed app deletes that installation's rows — tokens included — from
  the store (``InstallationStore.delete_all``, as Bolt's own
  ``TokenRevocationListeners`` do). paperbot asks for no user scopes and holds no
  user token, so user tokens listed in ``tokens_revoked`` change nothing
  (Bolt's would delete the installer's installation row);
- every active subscription of the workspace (of each workspace an org-wide
  install answered for) is turned off with the reason, kept and shown as off by
  ``/paper status``: nothing is posted for it again. A re-install turns nothing
  back on by itself; each channel runs ``/paper subscribe`` again.

One-workspace mode does the second part only: its token lives in the environment.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from slack_sdk.oauth.installation_store import InstallationStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Departure:
    """What left: a workspace's or an organisation's installation, and why.

    Attributes:
        enterprise_id: the Grid organisation, or None.
        team_id: the workspace, or None (an org-level event).
        is_enterprise_install: the organisation's org-wide install left.
        reason: "app_uninstalled" or "tokens_revoked" (shown by ``/paper status``).
    """

    enterprise_id: str | None
    team_id: str | None
    is_enterprise_install: bool
    reason: str


class Uninstalls:
    """Forgets a departed installation and turns its subscriptions off.

    Args:
        store: ``org_teams(enterprise_id)`` and ``deactivate_teams(teams, reason)`` (the ``Store``).
        installations: a distributed app's ``Store.installations``; None in one-workspace mode.
    """

    def __init__(self, store: Any, installations: InstallationStore | None) -> None:
        self._store = store
        self._installations = installations

    def departed(self, gone: Departure) -> list[tuple[str, str]]:
        """Delete the installation's tokens, turn its subscriptions off, log one line.

        Args:
            gone: what the event says left.

        Returns:
            list[tuple[str, str]]: ``(team, channel)`` of each subscription turned off.
        """
        team = None if gone.is_enterprise_install else gone.team_id
        if self._installations is not None:
            self._installations.delete_all(enterprise_id=gone.enterprise_id, team_id=team)
        teams = (
            set(self._store.org_teams(gone.enterprise_id))
            if gone.is_enterprise_install and gone.enterprise_id
            else set()
        )
        if gone.team_id:
            teams.add(gone.team_id)
        off = self._store.deactivate_teams(sorted(teams), gone.reason)
        where = f"organisation {gone.enterprise_id}" if gone.is_enterprise_install else f"workspace {gone.team_id}"
        log.warning(
            "%s for %s: %s, %d subscription(s) turned off",
            gone.reason,
            where,
            "its tokens deleted"
            if self._installations is not None
            else "nothing to delete (token from the environment)",
            len(off),
        )
        return off
