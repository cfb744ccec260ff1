"""The SQL schema of the store and its additive migrations (SQLAlchemy Core).

Tables (docs/interfaces.md "Paper of the day"):

- ``schema_version(version)`` — one row: the schema this database was last
  migrated to.
- ``subscriptions`` — one row per (team, channel): the daily post time
  (``local_time`` "HH:MM" in IANA zone ``tz``), whether it is ``active`` and
  why not (``inactive_reason``), who subscribed, ``created_at``/``updated_at``,
  the ``topic``, posting ``days`` ("mon,wed,fri"; NULL = every day) and
  ``papers`` per post. A user id as ``channel`` is that user's personal feed.
- ``deliveries`` — one row per (team, channel, local_date): the primary key is
  the UNIQUE claim that makes a post happen at most once. ``state`` is
  a ``bot.core.models.DeliveryState`` value: claimed → posted | failed | unknown, or skipped for a missed day
  that was not back-filled.
- ``daily_picks(local_date PK, paper_id)`` — the persisted paper of the day.
- ``journal`` — one row per acknowledged event or command (``key`` PK): its
  ``state`` (pending → done | expired), the ``owner`` process and its
  ``lease_until``, when it was received, the request ``payload`` (JSON;
  cleared once done or expired) and ``posting_at``, set when its reply
  started going out. See ``bot.store.journal``.
- ``topic_picks(team, channel, local_date, topic, position PK, paper_id,
  cycle)`` — a channel's own rotation (a topic or ``N papers``): the papers of
  each date, and which pass over the topic's matches each belongs to.
- ``saved_papers(team, user_id, paper_id PK, saved_at, title, title_derived,
  authors, venue, year, url)`` — reading lists, with a snapshot per entry
  (``bot.store.reading_list``; the table keeps its first name so existing
  databases open unchanged).
- ``claims(kind, key PK, at, detail)`` — keys claimed once (``bot.store.claims``):
  a Slack event's keys (kind ``event``: ``event:<event_id>``,
  ``msg:<team>:<channel>:<ts>``; kept 7 days), an onboarding note per user /
  channel and a share per message and paper (kinds ``onboard``, ``share``;
  kept for good).
- ``query_keys(key PK, text, used_at)`` — long queries kept for their page
  buttons, which carry the short key instead of the text (``bot.store.queries``;
  purged some days after last use).
- ``slack_installations``, ``slack_bots``, ``slack_oauth_states`` — a distributed app's
  installations and OAuth states in slack_sdk's columns (``bot.store.installations``),
  tokens sealed (``bot.store.token_cipher``; TEXT: a sealed token outgrows VARCHAR(200)).
- ``recommended_posts(team, target, local_date, position PK, paper_id, how, why, at)`` — what a
  subscription in ``for me`` / ``for this channel`` mode posted (or will post) on each local
  date (``bot.store.recommended``); unique per (team, target, paper_id), so no paper goes twice
  to the same person or channel. ``how`` is "pick" (the model's), "fallback" (the rotation's:
  too few positives) or "rotation" (filling a post); ``why`` the pick's explanation (JSON).
- ``installation_teams(team PK, enterprise_id, is_enterprise_install, seen_at)`` — which
  installation answers for a workspace: its own or its Grid organisation's (learned at install
  and from each workspace's first authorized request).
- ``signals(team, subject, actor, paper_id, kind PK, active, at)`` — what a user or a
  channel (``subject``) told paperbot about a paper, and who did it (``actor``):
  ``bot.store.signals``.
- ``bot_posts(team, channel, ts PK, paper_id, at)`` — the bot's posts about one paper
  (a share's card, a mention's answer), so a reaction on one names its paper.

Versions:

- 1 (first release): ``schema_version``; ``subscriptions(team, channel,
  local_time, tz, active, created_at)``; ``deliveries(team, channel,
  local_date, paper_id, message_ts, state)``; ``daily_picks``.
- 2: adds ``subscriptions.inactive_reason / subscribed_by / updated_at``
  (backfilled from ``created_at``), ``deliveries.claimed_at / updated_at /
  attempts``, table ``handled_events`` and the indexes.
- 3: adds table ``journal``.
- 4 (issue 13): adds ``subscriptions.topic / days / papers``, table
  ``topic_picks(team, channel, local_date, topic, position → paper_id,
  cycle)`` — a channel's own rotation, persisted the first time a date is
  needed — and table ``saved_papers`` (a user's reading list, with a
  snapshot of each paper's fields).
- 5: adds table ``marks`` (no data step).
- 6: adds table ``query_keys`` and its index (no data step).
- 7: adds ``journal.posting_at`` (no data step).
- 8 (issue 17): adds table ``claims``; its data step copies the rows of
  ``marks`` (kind, key, at, detail) and ``handled_events`` (as kind ``event``)
  into it, then drops those two tables — the one migration that removes
  anything, so every process of an older paperbot must be stopped before one
  of this version starts (an older one still running would write to them).
- 9 (issue 21): adds tables ``slack_installations``, ``slack_bots``,
  ``slack_oauth_states`` and ``installation_teams`` (no data step).
- 10 (issue 22): adds tables ``signals`` and ``bot_posts`` and the index
  ``ix_deliveries_message``; its data step copies every reading-list entry
  into ``signals`` as its owner's ``saved`` signal.
- 11 (issue 22): adds ``subscriptions.recommend`` (``for me`` / ``for this channel``) and table
  ``recommended_posts`` (no data step).

Migrations are additive: missing tables and indexes are created, missing
columns are added (each is nullable or has a server default), then the data
steps of the versions in between run (version 8's merges two tables into one). A database without ``schema_version``
is treated as version 0. Nothing here ever stores a client, nor a token unencrypted.
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlalchemy as sa
from sqlalchemy.schema import CreateColumn

SCHEMA_VERSION = 11

#: Key of the PostgreSQL advisory lock held while migrating (any 64-bit int).
_PG_MIGRATION_LOCK = 0x70617065_72626F74  # "paperbot"


class StoreError(Exception):
    """The database cannot be used (e.g. it was written by a newer paperbot)."""


class UTCDateTime(sa.types.TypeDecorator):
    """An aware UTC ``datetime`` stored as a naive UTC timestamp.

    Naive UTC works the same on SQLite (text) and PostgreSQL (``timestamp
    without time zone``), whatever the session time zone. Binding a naive
    datetime raises ValueError: every time in the store is aware.
    """

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value, dialect):
        """An aware datetime → naive UTC for the database (SQLAlchemy's ``TypeDecorator`` hook).

        Args:
            value: an aware datetime, or None.
            dialect: the database dialect (unused: the same on SQLite and PostgreSQL).

        Raises:
            ValueError: ``value`` is naive.
        """
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("store times must be timezone-aware (UTC)")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value, dialect):
        """A stored naive UTC time (or ISO text in an old SQLite file) → aware UTC datetime.

        Args:
            value: what the database returned, or None.
            dialect: the database dialect (unused).
        """
        if value is None:
            return None
        if isinstance(value, str):  # hand-written rows in an old SQLite file
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, nullable=False),
)

subscriptions = sa.Table(
    "subscriptions",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("channel", sa.String(32), primary_key=True),
    sa.Column("local_time", sa.String(5), nullable=False),
    sa.Column("tz", sa.String(64), nullable=False),
    sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("inactive_reason", sa.String(200)),
    sa.Column("subscribed_by", sa.String(32)),
    sa.Column("created_at", UTCDateTime),
    sa.Column("updated_at", UTCDateTime),
    sa.Column("topic", sa.String(200)),
    sa.Column("days", sa.String(40)),
    sa.Column("papers", sa.Integer, nullable=False, server_default="1"),
    sa.Column("recommend", sa.Boolean, nullable=False, server_default=sa.false()),
)

deliveries = sa.Table(
    "deliveries",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("channel", sa.String(32), primary_key=True),
    sa.Column("local_date", sa.Date, primary_key=True),
    sa.Column("paper_id", sa.String(200), nullable=False, server_default=""),
    sa.Column("message_ts", sa.String(32)),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("claimed_at", UTCDateTime),
    sa.Column("updated_at", UTCDateTime),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_deliveries_state", "state", "claimed_at"),
    sa.Index("ix_deliveries_local_date", "local_date"),
    sa.Index("ix_deliveries_message", "team", "message_ts"),
)

daily_picks = sa.Table(
    "daily_picks",
    metadata,
    sa.Column("local_date", sa.Date, primary_key=True),
    sa.Column("paper_id", sa.String(200), nullable=False),
)

topic_picks = sa.Table(
    "topic_picks",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("channel", sa.String(32), primary_key=True),
    sa.Column("local_date", sa.Date, primary_key=True),
    sa.Column("topic", sa.String(200), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("paper_id", sa.String(200), nullable=False),
    sa.Column("cycle", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_topic_picks_channel", "team", "channel", "topic", "cycle"),
)

#: The reading lists (``bot.store.reading_list``). Table and column names stay
#: as first released ("saved_…"): renaming them would need a migration for no gain.
saved_papers = sa.Table(
    "saved_papers",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(32), primary_key=True),
    sa.Column("paper_id", sa.String(200), primary_key=True),
    sa.Column("saved_at", UTCDateTime, nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("title_derived", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("authors", sa.Text, nullable=False, server_default=""),
    sa.Column("venue", sa.String(200), nullable=False, server_default=""),
    sa.Column("year", sa.String(8)),
    sa.Column("url", sa.Text),
    sa.Index("ix_saved_papers_user", "team", "user_id", "saved_at"),
)

journal = sa.Table(
    "journal",
    metadata,
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("lease_until", UTCDateTime, nullable=False),
    sa.Column("received_at", UTCDateTime, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="1"),
    sa.Column("payload", sa.Text),
    sa.Column("posting_at", UTCDateTime),
    sa.Index("ix_journal_state", "state", "lease_until"),
)

claims = sa.Table(
    "claims",
    metadata,
    sa.Column("kind", sa.String(32), primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Column("detail", sa.String(200)),
    sa.Index("ix_claims_kind_at", "kind", "at"),
)

recommended_posts = sa.Table(
    "recommended_posts",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("target", sa.String(32), primary_key=True),
    sa.Column("local_date", sa.Date, primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("paper_id", sa.String(200), nullable=False),
    sa.Column("how", sa.String(16), nullable=False),
    sa.Column("why", sa.Text),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ux_recommended_posts_paper", "team", "target", "paper_id", unique=True),
)

query_keys = sa.Table(
    "query_keys",
    metadata,
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("used_at", UTCDateTime, nullable=False),
    sa.Index("ix_query_keys_used_at", "used_at"),
)


def _bot_columns() -> list[sa.Column]:
    """The columns slack_sdk's ``SQLAlchemyInstallationStore`` gives both its tables
    (its naive-UTC ``DateTime``s as it writes them; TEXT where a sealed secret goes)."""
    return [
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("enterprise_id", sa.String(32)),
        sa.Column("enterprise_name", sa.String(200)),
        sa.Column("team_id", sa.String(32)),
        sa.Column("team_name", sa.String(200)),
        sa.Column("bot_token", sa.Text),
        sa.Column("bot_id", sa.String(32)),
        sa.Column("bot_user_id", sa.String(32)),
        sa.Column("bot_scopes", sa.String(1000)),
        sa.Column("bot_refresh_token", sa.Text),
        sa.Column("bot_token_expires_at", sa.DateTime),
        sa.Column("is_enterprise_install", sa.Boolean, nullable=False, default=False),
        sa.Column("installed_at", sa.DateTime, nullable=False, default=sa.func.now()),
    ]


slack_installations = sa.Table(
    "slack_installations",
    metadata,
    *_bot_columns(),
    sa.Column("enterprise_url", sa.String(200)),
    sa.Column("user_id", sa.String(32), nullable=False),
    sa.Column("user_token", sa.Text),
    sa.Column("user_scopes", sa.String(1000)),
    sa.Column("user_refresh_token", sa.Text),
    sa.Column("user_token_expires_at", sa.DateTime),
    sa.Column("incoming_webhook_url", sa.Text),
    sa.Column("incoming_webhook_channel", sa.String(200)),
    sa.Column("incoming_webhook_channel_id", sa.String(200)),
    sa.Column("incoming_webhook_configuration_url", sa.String(200)),
    sa.Column("token_type", sa.String(32)),
    sa.Index("slack_installations_idx", "client_id", "enterprise_id", "team_id", "user_id", "installed_at"),
)

slack_bots = sa.Table(
    "slack_bots",
    metadata,
    *_bot_columns(),
    sa.Index("slack_bots_idx", "client_id", "enterprise_id", "team_id", "installed_at"),
)

#: slack_sdk's ``SQLAlchemyOAuthStateStore`` columns: one row per state handed out.
slack_oauth_states = sa.Table(
    "slack_oauth_states",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("state", sa.String(200), nullable=False),
    sa.Column("expire_at", sa.DateTime, nullable=False),
)

installation_teams = sa.Table(
    "installation_teams",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("enterprise_id", sa.String(32)),
    sa.Column("is_enterprise_install", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("seen_at", UTCDateTime, nullable=False),
    sa.Index("ix_installation_teams_enterprise", "enterprise_id"),
)

#: Signals (issue 22; ``bot.store.signals``): one row per (team, subject, actor,
#: paper, kind). ``subject`` is whom it counts for (a user or a channel), ``actor``
#: the user who did it (``/paper forget`` deletes by actor); ``active`` False is a
#: removed signal kept with its time, so a late "added" older than the removal
#: cannot bring it back (``at``: when it happened, last writer wins).
signals = sa.Table(
    "signals",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("subject", sa.String(32), primary_key=True),
    sa.Column("actor", sa.String(32), primary_key=True),
    sa.Column("paper_id", sa.String(200), primary_key=True),
    sa.Column("kind", sa.String(16), primary_key=True),
    sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ix_signals_subject", "team", "subject", "at"),
    sa.Index("ix_signals_actor", "team", "actor"),
)

#: The bot's own posts about one paper, other than digest posts (which
#: ``deliveries`` records): a share's card, a mention answered with one paper —
#: so a reaction on one names its paper (``bot.store.signals``).
bot_posts = sa.Table(
    "bot_posts",
    metadata,
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("channel", sa.String(32), primary_key=True),
    sa.Column("ts", sa.String(32), primary_key=True),
    sa.Column("paper_id", sa.String(200), nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ix_bot_posts_at", "at"),
)

#: Data steps run once when a database moves past the version (SQL text), each
#: only when the tables it names were there before the migration.
_DATA_STEPS: dict[int, tuple[tuple[frozenset[str], str], ...]] = {
    2: ((frozenset(), "UPDATE subscriptions SET updated_at = created_at WHERE updated_at IS NULL"),),
    8: (
        (frozenset({"marks"}), "INSERT INTO claims (kind, key, at, detail) SELECT kind, key, at, detail FROM marks"),
        (frozenset({"marks"}), "DROP TABLE marks"),
        (
            frozenset({"handled_events"}),
            "INSERT INTO claims (kind, key, at) SELECT 'event', key, at FROM handled_events",
        ),
        (frozenset({"handled_events"}), "DROP TABLE handled_events"),
    ),
    10: (
        (
            frozenset({"saved_papers"}),
            "INSERT INTO signals (team, subject, actor, paper_id, kind, active, at) "
            "SELECT team, user_id, user_id, paper_id, 'saved', TRUE, saved_at FROM saved_papers",
        ),
    ),
}


def migrate(conn: sa.Connection) -> int | None:
    """Create or migrate the schema to ``SCHEMA_VERSION`` inside ``conn``'s transaction.

    The caller holds a write transaction (SQLite ``BEGIN IMMEDIATE``); on
    PostgreSQL an advisory transaction lock serialises concurrent starters,
    so two processes opening a fresh database at once both succeed.

    Args:
        conn: a connection inside a transaction.

    Returns:
        int | None: the version found before migrating (0 for a database
        without ``schema_version`` but with tables), None for an empty one.

    Raises:
        StoreError: the database was written by a newer schema version.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
    existing = set(sa.inspect(conn).get_table_names())
    found = _version_found(conn, existing)
    if found is not None and found > SCHEMA_VERSION:
        raise StoreError(
            f"this database has schema version {found}, newer than this paperbot's ({SCHEMA_VERSION}); upgrade paperbot"
        )
    if found == SCHEMA_VERSION:
        return found
    metadata.create_all(conn)  # missing tables, with their indexes
    _complete_tables(conn, existing)
    for version in range((found or 0) + 1, SCHEMA_VERSION + 1):
        if found is not None:
            for needs, step in _DATA_STEPS.get(version, ()):
                if needs <= existing:
                    conn.execute(sa.text(step))
    conn.execute(schema_version.delete())
    conn.execute(schema_version.insert().values(version=SCHEMA_VERSION))
    return found


def _version_found(conn: sa.Connection, existing: set[str]) -> int | None:
    """The schema version recorded in the database; 0 when it has tables but no
    ``schema_version``; None when it is empty."""
    if "schema_version" in existing:
        return conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0
    if existing & {t.name for t in metadata.sorted_tables}:
        return 0
    return None


def _complete_tables(conn: sa.Connection, existing: set[str]) -> None:
    """Add the columns and indexes that the tables in ``existing`` lack."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        if table.name not in existing:
            continue
        have = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                ddl = CreateColumn(column).compile(dialect=conn.dialect)
                conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {ddl}"))
        for index in table.indexes:
            index.create(conn, checkfirst=True)
