"""A distributed app's installations and OAuth states, in the store's database.

The well-kept library does the work: slack_sdk's SQLAlchemy stores
(``slack_sdk.oauth.installation_store.sqlalchemy``, ``…state_store.sqlalchemy``),
on the tables of ``bot.store.schema`` (created by the store's migrations, not by
slack_sdk's ``create_tables``), wrapped for two things they do not do:

- ``SealedInstallationStore`` — tokens encrypted at rest. Every secret of an
  ``Installation`` / ``Bot`` (``SEALED``: bot and user tokens, refresh tokens,
  the incoming-webhook URL) is sealed with ``bot.store.token_cipher`` before
  slack_sdk writes it and opened after it reads it; a row no key opens counts as
  no installation (one ERROR line), never as plaintext.
- ``SingleUseStateStore`` — a state is consumed by one conditional DELETE, so of
  two callbacks racing with one state (two web processes) exactly one wins;
  slack_sdk's select-then-delete lets both through.

Imported only by a distributed app's processes (``bot.store.installation_teams``
opens these stores): slack_sdk's SQLAlchemy module imports SQLAlchemy's asyncio
extension, about a third of a second that one-workspace commands never pay.
"""

from __future__ import annotations

import copy
import logging
from datetime import datetime, timezone
from typing import Callable, Optional

import sqlalchemy as sa
from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.store.db import transaction, writer
from bot.store.schema import slack_bots, slack_installations, slack_oauth_states
from bot.store.token_cipher import TokenCipher, TokenKeyError

log = logging.getLogger(__name__)

#: The attributes of an ``Installation`` (and, where it has them, a ``Bot``) that are sealed.
SEALED = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token", "incoming_webhook_url")


def _ours(table: sa.Table):
    """A slack_sdk ``build_*_table`` hook answering ``table`` of ``bot.store.schema``,
    copied into slack_sdk's own ``MetaData`` under the name it asks for: the store's
    migrations made the table; slack_sdk only reads and writes it."""

    def build(cls, metadata: sa.MetaData, table_name: str) -> sa.Table:
        return table.to_metadata(metadata, name=table_name)

    return classmethod(build)


class _OnOurTables(SQLAlchemyInstallationStore):
    """slack_sdk's store, reading and writing the tables the migrations made."""

    build_installations_table = _ours(slack_installations)
    build_bots_table = _ours(slack_bots)


class SealedInstallationStore(InstallationStore):
    """slack_sdk's ``InstallationStore`` over the store's database, secrets sealed.

    Bolt's OAuth flow saves through it, Bolt's ``authorize`` and the digest's
    posters find through it, the uninstall listener deletes through it.

    Args:
        engine: the store's engine (``Store.installations``).
        client_id: the app's client id (rows are per app, as slack_sdk keeps them).
        cipher: seals and opens the secrets.
    """

    def __init__(self, engine: sa.Engine, client_id: str, cipher: TokenCipher) -> None:
        self._rows = _OnOurTables(client_id=client_id, engine=engine, logger=log)  # finds
        self._writes = _OnOurTables(client_id=client_id, engine=writer(engine), logger=log)  # saves, deletes
        self._cipher = cipher
        self.client_id = client_id

    @property
    def logger(self) -> logging.Logger:
        """The module's logger (slack_sdk's interface asks for one)."""
        return log

    def _convert(self, item, how: Callable[[Optional[str]], Optional[str]]):
        """A copy of ``item`` with each of its ``SEALED`` attributes passed through ``how``."""
        item = copy.copy(item)
        for name in SEALED:
            if hasattr(item, name):
                setattr(item, name, how(getattr(item, name)))
        return item

    def _opened(self, item):
        """``item`` with its secrets opened; None (one ERROR line) when no key opens them."""
        if item is None:
            return None
        try:
            return self._convert(item, self._cipher.open)
        except TokenKeyError as e:
            log.error("installation of team %s / enterprise %s unusable: %s", item.team_id, item.enterprise_id, e)
            return None

    def save(self, installation: Installation) -> None:
        """Store ``installation`` (and its bot), secrets sealed.

        Args:
            installation: what Bolt's OAuth flow or a token rotation built.
        """
        self._writes.save(self._convert(installation, self._cipher.seal))

    def save_bot(self, bot: Bot) -> None:
        """Store ``bot``, its token and refresh token sealed (Bolt's ``find_bot`` rotation).

        Args:
            bot: what a bot-token rotation built.
        """
        self._writes.save_bot(self._convert(bot, self._cipher.seal))

    def find_bot(
        self, *, enterprise_id: Optional[str], team_id: Optional[str], is_enterprise_install: Optional[bool] = False
    ) -> Optional[Bot]:
        """The newest bot with a token for the workspace or organisation, opened; None when none.

        Args:
            enterprise_id: the Grid organisation, or None.
            team_id: the workspace (ignored for an org-wide install).
            is_enterprise_install: an org-wide install.
        """
        found = self._rows.find_bot(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install
        )
        return self._opened(found)

    def find_installation(
        self,
        *,
        enterprise_id: Optional[str],
        team_id: Optional[str],
        user_id: Optional[str] = None,
        is_enterprise_install: Optional[bool] = False,
    ) -> Optional[Installation]:
        """The newest installation for the workspace or organisation (and user), opened; None when none.

        Args:
            enterprise_id: the Grid organisation, or None.
            team_id: the workspace (ignored for an org-wide install).
            user_id: the installing user's, or None for the newest of any user.
            is_enterprise_install: an org-wide install.
        """
        found = self._rows.find_installation(
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=is_enterprise_install,
        )
        return self._opened(found)

    def delete_bot(self, *, enterprise_id: Optional[str], team_id: Optional[str]) -> None:
        """Delete every bot row of the workspace or organisation (``team_id`` None: the org's own).

        Args:
            enterprise_id: the Grid organisation, or None.
            team_id: the workspace, or None for an org-wide install.
        """
        self._writes.delete_bot(enterprise_id=enterprise_id, team_id=team_id)

    def delete_installation(
        self, *, enterprise_id: Optional[str], team_id: Optional[str], user_id: Optional[str] = None
    ) -> None:
        """Delete the installation rows of the workspace or organisation (of one user when given).

        Args:
            enterprise_id: the Grid organisation, or None.
            team_id: the workspace, or None for an org-wide install.
            user_id: only this installer's rows, or None for all.
        """
        self._writes.delete_installation(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id)

    def check_key(self) -> None:
        """Open the newest stored bot token, if any, to fail at start-up on a wrong key.

        Raises:
            TokenKeyError: ``PAPERBOT_TOKEN_KEY`` does not open it.
        """
        table = self._rows.bots
        query = sa.select(table.c.bot_token).where(table.c.bot_token.is_not(None)).order_by(table.c.id.desc())
        with self._rows.engine.connect() as conn:
            sealed = conn.execute(query.limit(1)).scalar()
        self._cipher.open(sealed)


class SingleUseStateStore(SQLAlchemyOAuthStateStore):
    """slack_sdk's SQL state store on ``slack_oauth_states``, each state usable once.

    Args:
        engine: the store's engine.
        expiration_seconds: how long a state handed out by ``issue`` stays usable.
    """

    build_oauth_states_table = _ours(slack_oauth_states)

    def __init__(self, engine: sa.Engine, expiration_seconds: int) -> None:
        super().__init__(expiration_seconds=expiration_seconds, engine=engine, logger=log)

    def consume(self, state: str) -> bool:
        """True for exactly one caller with an issued, unexpired ``state`` (it is
        deleted then); False for any other — replayed, forged, expired.

        Args:
            state: the ``state`` query parameter of the OAuth redirect.
        """
        now = datetime.now(timezone.utc).replace(tzinfo=None)  # slack_sdk's naive UTC
        c = self.oauth_states.c
        try:
            with transaction(self.engine, write=True) as conn:
                gone = conn.execute(self.oauth_states.delete().where(c.state == str(state), c.expire_at > now))
                conn.execute(self.oauth_states.delete().where(c.expire_at <= now))  # expired ones: no use left
                return gone.rowcount == 1
        except sa.exc.SQLAlchemyError as e:
            log.warning("cannot check an OAuth state (%s); refusing it", type(e).__name__)
            return False
