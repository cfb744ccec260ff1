"""Settings: one immutable object built from a mapping of environment variables.

Only the CLI (``bot.cli.main``) reads ``os.environ`` and passes it in; everything
else, ``bot.slack.app`` included, receives a ``Settings`` (a structure test
holds this; docs/architecture.md "Layers"). Variable names and defaults are the
contract in docs/interfaces.md "Environment variables".
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

SLACK_DEFAULT_API_URL = "https://slack.com/api/"

#: Slack variables each command needs in single-workspace mode (docs/interfaces.md "Environment variables").
REQUIRED_BY_COMMAND: dict[str, tuple[str, ...]] = {
    "serve": ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"),
    "socket": ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"),
    "clock": ("SLACK_BOT_TOKEN",),
    "digest": ("SLACK_BOT_TOKEN",),
}
#: ... and as a distributed app (README "Distributed app (many workspaces)"): the
#: app's credentials instead of a token, and the key the stored tokens are encrypted with.
REQUIRED_DISTRIBUTED: dict[str, tuple[str, ...]] = {
    "serve": ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET", "PAPERBOT_TOKEN_KEY"),
    "clock": ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "PAPERBOT_TOKEN_KEY"),
    "digest": ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "PAPERBOT_TOKEN_KEY"),
}
#: Why ``paperbot socket`` refuses the distributed mode (README "Distributed app (many workspaces)").
SOCKET_DISTRIBUTED = (
    "Socket Mode serves one workspace (SLACK_BOT_TOKEN + SLACK_APP_TOKEN); a distributed app runs "
    "paperbot serve, because Slack sends each install's OAuth redirect over HTTP and the Slack "
    "Marketplace does not accept Socket Mode apps"
)
#: Both modes configured at once: refused, because Bolt reads SLACK_CLIENT_ID/SECRET by itself.
BOTH_MODES = (
    "set either SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID + SLACK_CLIENT_SECRET (a distributed app), not both"
)


#: Every variable ``from_env`` reads, in the order the start-up line shows them.
VARIABLES = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_API_URL",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "SLACK_REDIRECT_URI",
    "PAPERBOT_TOKEN_KEY",
    "DATABASE_URL",
    "PAPERBOT_INDEX_DIR",
    "PAPERBOT_SEEDS",
    "PAPERBOT_DEFAULT_TIME",
    "PAPERBOT_DEFAULT_TZ",
    "PORT",
)
#: Shown only as "set" or "unset", never their value.
SECRETS = frozenset(
    {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_CLIENT_SECRET", "PAPERBOT_TOKEN_KEY"}
)
#: Where a value came from, as ``describe`` names it.
SOURCES = ("environment", ".env", "default")


class MissingSettings(Exception):
    """Required variables are missing or empty. ``names`` lists them in order."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(", ".join(names))
        self.names = names


class ModeRefused(Exception):
    """The command cannot run in the configured mode (``BOTH_MODES``,
    ``SOCKET_DISTRIBUTED``); ``str(e)`` is one line for the operator."""


@dataclass(frozen=True)
class Settings:
    """Runtime configuration (secrets included — never log this object whole).

    Attributes:
        bot_token, signing_secret, app_token: Slack secrets, "" when unset.
        api_url: Web API base URL, always ending in "/".
        client_id, client_secret: the app's OAuth credentials (Basic Information →
            App Credentials), set only for a distributed app ("" otherwise).
        redirect_uri: the OAuth redirect URL sent to Slack, or "" to let Slack use
            the first of the app's ``oauth_config.redirect_urls``.
        token_key: the Fernet key (or comma-separated keys, newest first) the
            installations' tokens are encrypted with (``PAPERBOT_TOKEN_KEY``).
        database_url: SQLAlchemy URL; ``postgres://`` normalised to ``postgresql://``.
        index_dir: the index container directory (absolute).
        seeds_dir: the seed directory (absolute).
        default_time: "HH:MM" for ``/paper subscribe`` without a time.
        default_tz: IANA zone used when the user's zone is unknown.
        port: HTTP port for ``serve`` (``PORT``, default 3000).
        dyno: the platform's process name (``DYNO``, e.g. "web.1") when running
            on Heroku or a look-alike, else "" (README "Heroku-style platforms").
    """

    bot_token: str = ""
    signing_secret: str = ""
    app_token: str = ""
    api_url: str = SLACK_DEFAULT_API_URL
    client_id: str = ""
    client_secret: str = ""
    redirect_uri: str = ""
    token_key: str = ""
    database_url: str = "sqlite:///paperbot.db"
    index_dir: Path = Path("index")
    seeds_dir: Path = Path("seeds")
    default_time: str = "09:00"
    default_tz: str = "UTC"
    port: int = 3000
    dyno: str = ""
    #: variable name -> "environment" / ".env" / "default" (set by the CLI; ``describe``)
    sources: dict = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:  # never print secrets
        return (
            f"Settings(api_url={self.api_url!r}, database_url=<hidden>, "
            f"index_dir={str(self.index_dir)!r}, seeds_dir={str(self.seeds_dir)!r})"
        )

    @property
    def distributed(self) -> bool:
        """True for a distributed app: an OAuth credential is set and no bot token
        (README "Distributed app (many workspaces)"); False for one workspace."""
        return bool(self.client_id or self.client_secret) and not self.bot_token

    def require(self, command: str) -> None:
        """Check that ``command`` can run as configured.

        Args:
            command: "serve", "socket", "clock" or "digest".

        Raises:
            ModeRefused: both modes are configured, or ``socket`` as a distributed app.
            MissingSettings: naming each empty variable ``command`` needs in this mode.
        """
        if self.bot_token and (self.client_id or self.client_secret):
            raise ModeRefused(BOTH_MODES)
        if self.distributed and command == "socket":
            raise ModeRefused(SOCKET_DISTRIBUTED)
        values = {
            "SLACK_BOT_TOKEN": self.bot_token,
            "SLACK_SIGNING_SECRET": self.signing_secret,
            "SLACK_APP_TOKEN": self.app_token,
            "SLACK_CLIENT_ID": self.client_id,
            "SLACK_CLIENT_SECRET": self.client_secret,
            "PAPERBOT_TOKEN_KEY": self.token_key,
        }
        table = REQUIRED_DISTRIBUTED if self.distributed else REQUIRED_BY_COMMAND
        missing = [n for n in table.get(command, ()) if not values[n]]
        if missing:
            raise MissingSettings(missing)


def _path(value: str, cwd: Path) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (cwd / p)


def normalise_database_url(url: str) -> str:
    """Map Heroku-style ``postgres://`` to SQLAlchemy's ``postgresql+psycopg://``.

    A ``sqlite:///relative.db`` stays relative to the working directory.
    """
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def from_env(env: Mapping[str, str], cwd: Path | None = None) -> Settings:
    """Build ``Settings`` from environment-like ``env``; empty values count as unset.

    Relative paths resolve against ``cwd`` (default: the working directory).

    Args:
        env: variable name → value (``os.environ`` and ``.env``, read by the CLI).
        cwd: the directory relative paths are resolved against (None: the process's).

    Raises:
        ValueError: ``PORT`` is not an integer, ``PAPERBOT_DEFAULT_TIME`` is
            not HH:MM, ``PAPERBOT_DEFAULT_TZ`` is not an IANA zone, or
            ``PAPERBOT_INDEX_DIR`` is a file (the message names the variable).
    """
    cwd = cwd or Path(os.getcwd())

    def get(name: str, default: str = "") -> str:
        value = (env.get(name) or "").strip()
        return value or default

    api_url = get("SLACK_API_URL", SLACK_DEFAULT_API_URL)
    if not api_url.endswith("/"):
        api_url += "/"
    port_text = get("PORT", "3000")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"PORT must be a number, got {port_text!r}") from None
    default_time = get("PAPERBOT_DEFAULT_TIME", "09:00")
    m = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", default_time)
    if not m:
        raise ValueError(f"PAPERBOT_DEFAULT_TIME must be a 24-hour HH:MM time such as 09:00, got {default_time!r}")
    default_time = f"{int(m.group(1)):02d}:{m.group(2)}"
    default_tz = get("PAPERBOT_DEFAULT_TZ", "UTC")
    try:
        from zoneinfo import ZoneInfo

        ZoneInfo(default_tz)
    except (ValueError, LookupError, OSError):  # ZoneInfoNotFoundError is a KeyError
        raise ValueError(
            f"PAPERBOT_DEFAULT_TZ must be an IANA time zone such as Europe/Berlin, got {default_tz!r}"
        ) from None
    index_dir = _path(get("PAPERBOT_INDEX_DIR", "index"), cwd)
    if index_dir.exists() and not index_dir.is_dir():
        raise ValueError(
            f"PAPERBOT_INDEX_DIR must be a directory (created when missing), got the file {str(index_dir)!r}"
        )
    return Settings(
        bot_token=get("SLACK_BOT_TOKEN"),
        signing_secret=get("SLACK_SIGNING_SECRET"),
        app_token=get("SLACK_APP_TOKEN"),
        api_url=api_url,
        client_id=get("SLACK_CLIENT_ID"),
        client_secret=get("SLACK_CLIENT_SECRET"),
        redirect_uri=get("SLACK_REDIRECT_URI"),
        token_key=get("PAPERBOT_TOKEN_KEY"),
        database_url=normalise_database_url(get("DATABASE_URL", "sqlite:///paperbot.db")),
        index_dir=index_dir,
        seeds_dir=_path(get("PAPERBOT_SEEDS", "seeds"), cwd),
        default_time=default_time,
        default_tz=default_tz,
        port=port,
        dyno=get("DYNO"),
    )


def _shown_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (``scheme://user:***@host/db``)."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def describe(settings: Settings, sources: Mapping[str, str]) -> str:
    """One start-up line naming each setting's value and where it came from.

    Args:
        settings: what ``from_env`` built.
        sources: variable name → "environment", ".env" or "default" (names
            missing count as "default").

    Returns:
        str: ``"settings: SLACK_BOT_TOKEN=set (environment), …, PORT=3000
        (default)"`` — secrets as "set"/"unset" only, a password in
        ``DATABASE_URL`` as ``***`` (docs/interfaces.md "Environment variables").
    """
    values = {
        "SLACK_BOT_TOKEN": settings.bot_token,
        "SLACK_SIGNING_SECRET": settings.signing_secret,
        "SLACK_APP_TOKEN": settings.app_token,
        "SLACK_API_URL": settings.api_url,
        "SLACK_CLIENT_ID": settings.client_id,
        "SLACK_CLIENT_SECRET": settings.client_secret,
        "SLACK_REDIRECT_URI": settings.redirect_uri,
        "PAPERBOT_TOKEN_KEY": settings.token_key,
        "DATABASE_URL": _shown_url(settings.database_url),
        "PAPERBOT_INDEX_DIR": str(settings.index_dir),
        "PAPERBOT_SEEDS": str(settings.seeds_dir),
        "PAPERBOT_DEFAULT_TIME": settings.default_time,
        "PAPERBOT_DEFAULT_TZ": settings.default_tz,
        "PORT": str(settings.port),
    }
    parts = []
    for name in VARIABLES:
        shown = ("set" if values[name] else "unset") if name in SECRETS else (values[name] or "unset")
        parts.append(f"{name}={shown} ({sources.get(name, 'default')})")
    return "settings: " + ", ".join(parts)
