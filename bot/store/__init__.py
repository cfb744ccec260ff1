"""The SQL store: subscriptions, delivery claims, the paper of the day,
claims of work done once and the journal of acknowledged work, over SQLAlchemy 2 (the only package that imports it).

``Store(database_url)`` opens SQLite (default ``sqlite:///paperbot.db``) or
PostgreSQL (``postgresql+psycopg://…``; ``postgres://`` accepted) and creates
or migrates the schema at start (``bot.store.schema``). Only plain strings,
dates and times are stored — never a client object, nor a token unencrypted
(``bot.store.token_cipher``).

Create a ``Store`` in the process that uses it (after any ``fork``); one
``Store`` is safe to share between threads.
"""

from __future__ import annotations

import sqlalchemy as sa

from bot.core.models import DeliveryState
from bot.store.claims import ClaimStore
from bot.store.db import make_engine, transaction
from bot.store.deliveries import STATES, DeliveryStore
from bot.store.installation_teams import InstallationTeams
from bot.store.journal import Entry, EntryState, JournalStore
from bot.store.queries import QueryStore
from bot.store.reading_list import ReadingListStore
from bot.store.recommended import RecommendedStore
from bot.store.schema import SCHEMA_VERSION, StoreError, migrate
from bot.store.schema import schema_version as _version_t
from bot.store.signals import SignalStore
from bot.store.subscriptions import KEEP, SubscriptionStore
from bot.store.token_cipher import TokenCipher, TokenKeyError
from bot.store.topics import TopicPickStore

__all__ = [
    "Store",
    "StoreError",
    "SCHEMA_VERSION",
    "STATES",
    "DeliveryState",
    "Entry",
    "EntryState",
    "KEEP",
    "TokenCipher",
    "TokenKeyError",
]


class Store(
    SubscriptionStore,
    ClaimStore,
    DeliveryStore,
    JournalStore,
    TopicPickStore,
    ReadingListStore,
    QueryStore,
    InstallationTeams,
    RecommendedStore,
    SignalStore,
):
    """Subscriptions, claims of work done once (``bot.store.claims``: Slack event
    keys, onboarding and shares, the journal, deliveries), delivery outcomes,
    daily picks, the journal's leases, channel rotations, reading lists, the
    long queries of page buttons, signals (``bot.store.signals``) and a distributed app's installations
    (``bot.store.installations``, tokens sealed) in one database.

    Args:
        database_url: SQLAlchemy URL, e.g. ``sqlite:///paperbot.db`` or
            ``postgresql+psycopg://user@host:5432/db``.

    Raises:
        StoreError: the database was written by a newer schema version.
        sqlalchemy.exc.OperationalError: the database cannot be reached or
            the SQLite file cannot be created.

    Attributes:
        migrated_from: the schema version found at start (None: new database).
    """

    def __init__(self, database_url: str) -> None:
        try:
            self._engine = make_engine(database_url)
            with transaction(self._engine, write=True) as conn:
                self.migrated_from = migrate(conn)
        except StoreError:
            raise
        except ModuleNotFoundError as e:  # e.g. psycopg without the [postgres] extra
            raise StoreError(
                f"DATABASE_URL needs the Python module {e.name!r}; for PostgreSQL "
                "install paperbot with: pip install '.[postgres]'"
            ) from None
        except sa.exc.ArgumentError as e:
            raise StoreError(f"DATABASE_URL is not a database URL SQLAlchemy understands ({e})") from None
        except sa.exc.SQLAlchemyError as e:
            reason = str(getattr(e, "orig", None) or e).strip().splitlines()[0][:200]
            raise StoreError(f"cannot open the database at DATABASE_URL: {reason}") from None

    @property
    def dialect(self) -> str:
        """The database kind: "sqlite" or "postgresql"."""
        return self._engine.dialect.name

    def schema_version(self) -> int:
        """The schema version recorded in the database."""
        with transaction(self._engine) as conn:
            return int(conn.execute(sa.select(sa.func.max(_version_t.c.version))).scalar() or 0)

    def close(self) -> None:
        """Close pooled connections (the store can still be used: it reconnects)."""
        self._engine.dispose()

    def __repr__(self) -> str:  # the URL may hold a password: never print it
        return f"Store(dialect={self.dialect!r})"
