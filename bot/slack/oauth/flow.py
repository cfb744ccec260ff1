"""The "Add to Slack" install and the per-request token: Bolt's own OAuth support, set up for paperbot.

What Bolt does (slack_bolt/oauth/oauth_flow.py, slack_bolt/authorization/authorize.py;
https://docs.slack.dev/tools/bolt-python/concepts/authenticating-oauth):

- ``GET /slack/install`` — an "Add to Slack" page whose link carries a new
  ``state`` (kept in the SQL store, ``Store.oauth_states``: shared by every web
  process, expiring after ``STATE_SECONDS``) and sets it as a cookie;
- ``GET /slack/oauth_redirect`` — checks that the ``state`` is the browser's
  cookie and consumes it (once), exchanges the ``code`` with ``oauth.v2.access``,
  saves the ``Installation`` (``Store.installations``, tokens sealed) and shows
  a short success page; a forged, replayed or expired state is refused (400/401)
  and nothing is stored;
- each request from Slack: ``authorize`` finds the installation of its
  workspace (or of its Enterprise Grid organisation, for an org-wide install),
  rotates the token when it expires within ``ROTATION_MINUTES`` (apps with
  ``token_rotation_enabled``), and hands the listeners a client with that token.
  Its ``auth.test`` of the token runs once per token and process (Bolt's
  ``cache_enabled``): the installation is still looked up on every request, so a
  removed one or a renewed token is seen at once, but the ack no longer waits for
  a Web API call each time (benchmarks/results/oauth_bench.txt).

paperbot adds: the scopes from ``bot.slack.scopes``, Slack's authorize page next
to ``SLACK_API_URL`` (so the fake Slack of the tests and the README serves it),
rotations serialised between processes (``bot.slack.oauth.rotation``), and a note
of which installation answered each workspace (``Store.note_team``), read by the
digest's posters.
"""

from __future__ import annotations

import logging
from typing import Any, Callable
from urllib.parse import urljoin

from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.callback_options import CallbackOptions, FailureArgs, SuccessArgs
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_bolt.response import BoltResponse
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import InstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.core.config import Settings
from bot.slack.oauth.rotation import SerialRotator
from bot.slack.scopes import needed_scopes

log = logging.getLogger(__name__)

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
#: How long an install's ``state`` stays usable: slack_sdk's default
#: (``OAuthStateUtils.default_expiration_seconds``), ten minutes to click "Allow".
STATE_SECONDS = 600
#: What a person sees when their workspace has no installation (Bolt's words otherwise apologise
#: "for some unknown reason"): removed, revoked, or never installed.
NOT_INSTALLED = "paperbot is not installed in this workspace (any more). Ask an admin to add it again."
#: Rotate a token this long before it expires: Bolt's default
#: (``OAuthSettings.token_rotation_expiration_minutes``); Slack's tokens live 12 hours
#: (https://docs.slack.dev/authentication/using-token-rotation).
ROTATION_MINUTES = 120


class _NoCodes(logging.Filter):
    """Bolt logs a refused ``oauth.v2.access`` with the install's one-time ``code``
    ("… result with code: 123.456.abc - error: …"); the code is a credential while
    it lives, so it is cut from the line (README: secrets never in logs)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "with code: " in message:
            head, _, rest = message.partition("with code: ")
            tail = rest[rest.find(" - ") :] if " - " in rest else ""
            record.msg, record.args = head + "with code: <hidden>" + tail, None
        return True


logging.getLogger("slack_bolt.App").addFilter(_NoCodes())


def authorize_url(api_url: str) -> str:
    """Slack's authorize page beside the Web API: ``https://slack.com/api/`` →
    ``https://slack.com/oauth/v2/authorize`` (https://docs.slack.dev/authentication/installing-with-oauth).

    Args:
        api_url: the Web API base URL, ending in "/" (``Settings.api_url``).
    """
    return urljoin(api_url, "../oauth/v2/authorize")


class NotingAuthorize(InstallationStoreAuthorize):
    """Bolt's ``InstallationStoreAuthorize``, noting which installation answered
    each workspace (once per process and workspace) for the digest's posters.

    Args:
        note_team: ``(team, enterprise_id, is_enterprise_install)`` → None (``Store.note_team``).
        **kwargs: ``InstallationStoreAuthorize``'s.
    """

    def __init__(self, *, note_team: Callable[[str, str | None, bool], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._note_team = note_team
        self._noted: set[tuple[str, str | None, bool]] = set()

    def __call__(self, *, context, enterprise_id, team_id, user_id, **kwargs: Any) -> AuthorizeResult | None:
        """Bolt's authorize, then the note (arguments as Bolt passes them).

        Args:
            context: the request's ``BoltContext``.
            enterprise_id: the Grid organisation of the request, or None.
            team_id: the workspace of the request (None for some org-level events).
            user_id: who acted, or None.
            **kwargs: the ``actor_*`` ids Bolt may pass.
        """
        result = super().__call__(
            context=context, enterprise_id=enterprise_id, team_id=team_id, user_id=user_id, **kwargs
        )
        if result is not None and team_id:
            noted = (team_id, enterprise_id, bool(context.is_enterprise_install))
            if noted not in self._noted:
                self._note_team(*noted)
                self._noted.add(noted)
        return result


def _succeeded(args: SuccessArgs) -> BoltResponse:
    """Log the install (ids only), then Bolt's success page."""
    done = args.installation
    where = f"organisation {done.enterprise_id}" if done.is_enterprise_install else f"workspace {done.team_id}"
    log.warning("paperbot was installed in %s (by %s)", where, done.user_id)
    return args.default.success(args)


def _failed(args: FailureArgs) -> BoltResponse:
    """Log why an install was refused (Bolt's reason: invalid_state, invalid_browser,
    invalid_code, access_denied …), then Bolt's failure page; nothing was stored."""
    log.warning("an install was refused (%s); nothing was stored", args.reason)
    return args.default.failure(args)


def app_options(
    settings: Settings,
    *,
    client: WebClient,
    installations: InstallationStore,
    states: OAuthStateStore,
    note_team: Callable[[str, str | None, bool], None],
    rotator: SerialRotator,
) -> dict[str, Any]:
    """The ``slack_bolt.App`` keyword arguments of a distributed app.

    Args:
        settings: ``client_id``, ``client_secret``, ``redirect_uri``, ``api_url``.
        client: the Web API client without a token (``bot.slack.app.make_client``):
            ``oauth.v2.access`` and ``auth.test`` go to ``settings.api_url``.
        installations: ``Store.installations`` (tokens sealed).
        states: ``Store.oauth_states(STATE_SECONDS)``.
        note_team: ``Store.note_team``.
        rotator: rotates expiring tokens, one process at a time.

    Returns:
        dict: ``oauth_settings`` (the install pages, the state store, the scopes
        of ``bot.slack.scopes``), ``authorize`` (a ``NotingAuthorize``) and
        ``user_facing_authorize_error_message`` (``NOT_INSTALLED``).
    """
    options = OAuthSettings(
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        scopes=sorted(needed_scopes()),
        user_scopes=[],  # paperbot acts as its bot only
        redirect_uri=settings.redirect_uri or None,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        authorization_url=authorize_url(settings.api_url),
        callback_options=CallbackOptions(success=_succeeded, failure=_failed),
        installation_store=installations,
        token_rotation_expiration_minutes=ROTATION_MINUTES,
        state_store=states,
        state_expiration_seconds=STATE_SECONDS,
        logger=log,
    )
    authorize = NotingAuthorize(
        note_team=note_team,
        logger=log,
        installation_store=installations,
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        token_rotation_expiration_minutes=ROTATION_MINUTES,
        client=client,
        cache_enabled=True,
    )
    authorize.token_rotator = rotator  # Bolt's own makes a client for https://slack.com/api/
    return {"oauth_settings": options, "authorize": authorize, "user_facing_authorize_error_message": NOT_INSTALLED}
