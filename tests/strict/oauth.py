"""The strict fake Slack as a distributed app's Slack: installs, tokens per workspace,
rotation, uninstalls (docs/slack-rules.md "OAuth").

A mixin for ``tests.fakeslack.FakeSlack``. What it does, as Slack does
(https://docs.slack.dev/authentication/installing-with-oauth,
https://docs.slack.dev/reference/methods/oauth.v2.access,
https://docs.slack.dev/authentication/using-token-rotation):

- ``GET /oauth/v2/authorize?client_id&scope&state[&redirect_uri][&team]`` — the
  user clicks "Allow" at once: a 302 to the redirect URL (the one given, else
  the app's ``redirect_url``) with a one-time ``code`` (10 minutes) and the
  ``state``. ``team=T…`` installs into that workspace (its Grid organisation
  from ``grid``); ``team=E…`` is an organisation's org-wide install. A wrong
  client id or a scope the manifest does not list is refused (400, no code).
- ``oauth.v2.access`` — the app's client id and secret (HTTP Basic, as slack_sdk
  sends them) and the ``code`` (once; ``redirect_uri`` equal to the one
  authorized) answer that installation's bot token; with ``rotation`` on, an
  expiring ``xoxe.xoxb-`` token, a ``xoxe-`` refresh token and ``expires_in``
  (next of ``lifetimes``). ``grant_type=refresh_token`` renews: a refresh
  token works once (``invalid_refresh_token`` after).
- every other method: once any installation exists, the token must be one the
  fake issued and live — else ``invalid_auth``, ``token_revoked`` or
  ``token_expired``; no token is ``not_authed`` — and a channel that
  ``own_channel`` gave to one workspace is ``channel_not_found`` for another's
  token. ``auth.test`` answers the token's own workspace. Each call's token is
  on its ``Call`` (``Call.token``).
- ``uninstall(team)`` revokes that installation's tokens and returns the
  ``app_uninstalled`` envelope Slack would send; ``revoke_bot`` likewise for
  ``tokens_revoked``.
"""

from __future__ import annotations

import base64
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from bot.slack.scopes import CLIENT_METHODS
from tests.strict.methods import BOT_ID, BOT_USER_ID
from tests.strict.records import Call

APP_ID = "A0PAPERBOT"
CLIENT_ID = "1111.2222"
CLIENT_SECRET = "fake-client-secret-0123456789"
#: Slack's lifetime of a rotating token, seconds (12 hours).
TOKEN_SECONDS = 43_200
CODE_SECONDS = 600


@dataclass
class Install:
    """One installation the fake made: a workspace's, or an organisation's org-wide one.

    Attributes:
        team_id: the workspace (None for an org-wide install).
        enterprise_id: the Grid organisation, or None.
        installer: who clicked "Allow".
        tokens: every access token issued to it, oldest first.
        refresh: the refresh token that works now (rotation), or None.
        expires: access token → Unix time it expires (rotation).
        revoked: the app was uninstalled or its bot token revoked.
    """

    team_id: str | None
    enterprise_id: str | None
    installer: str
    tokens: list[str] = field(default_factory=list)
    refresh: str | None = None
    expires: dict[str, float] = field(default_factory=dict)
    revoked: bool = False

    @property
    def org(self) -> bool:
        return self.team_id is None

    @property
    def token(self) -> str:
        """The newest access token."""
        return self.tokens[-1]

    def serves(self, team_id: str | None, grid: dict[str, str]) -> bool:
        """True when this installation answers for ``team_id`` (``grid``: workspace → organisation)."""
        return team_id == self.team_id or (self.org and grid.get(team_id or "") == self.enterprise_id)


class OAuthMethods:
    """Install, token and uninstall answers; needs ``granted``, ``_reject`` and
    ``_cond`` from the class it is mixed into (``_oauth_init`` in its ``__init__``)."""

    def _oauth_init(self) -> None:
        self.client_id, self.client_secret = CLIENT_ID, CLIENT_SECRET
        self.redirect_url: str | None = None
        self.rotation = False
        self.lifetimes: list[int] = []
        self.renew_delay = 0.0  # seconds a renewal takes (two processes renewing then overlap)
        self.grid: dict[str, str] = {}  # workspace → its Grid organisation
        self.installs: list[Install] = []
        self.channel_teams: dict[str, str] = {}
        self._codes: dict[str, tuple[Install, str | None, float]] = {}
        self._numbers = itertools.count(1)
        self._oauth_lock = threading.Lock()

    # ------------------------------------------------------------ set-up
    def own_channel(self, channel_id: str, team_id: str) -> None:
        """``channel_id`` belongs to ``team_id``: another workspace's token cannot post there."""
        self.channel_teams[channel_id] = team_id

    def install_of(self, team_id: str) -> Install:
        """The newest live installation answering for ``team_id`` (a workspace or an organisation)."""
        for install in reversed(self.installs):
            if not install.revoked and (install.serves(team_id, self.grid) or install.enterprise_id == team_id):
                return install
        raise LookupError(f"no live installation for {team_id}")

    # ------------------------------------------------------------ the browser side
    def authorize(self, query: dict[str, Any]) -> tuple[int, dict[str, str], str]:
        """``GET /oauth/v2/authorize``: the user allows at once (see the module docstring). [oauth-authorize]"""
        if query.get("client_id") != self.client_id:
            return 400, {}, "invalid_client_id"
        asked = {s for s in str(query.get("scope") or "").split(",") if s}
        if not asked or asked - self.granted or query.get("user_scope"):
            return 400, {}, "invalid_scope"
        redirect = query.get("redirect_uri") or self.redirect_url
        if not redirect:
            return 400, {}, "bad_redirect_uri"
        where = str(query.get("team") or "T0TEST")
        if where.startswith("E"):
            install = Install(None, where, str(query.get("user") or "U0ALICE"))
        else:
            install = Install(where, self.grid.get(where), str(query.get("user") or "U0ALICE"))
        code = f"code-{next(self._numbers)}"
        with self._oauth_lock:
            self._codes[code] = (install, query.get("redirect_uri"), time.time() + CODE_SECONDS)
        return 302, {"Location": f"{redirect}?{urlencode({'code': code, 'state': query.get('state', '')})}"}, ""

    # ------------------------------------------------------------ oauth.v2.access
    def _api_oauth_v2_access(self, body: dict, headers: dict[str, str]) -> dict:  # [oauth-access]
        client = _basic(headers.get("authorization", "")) or (body.get("client_id"), body.get("client_secret"))
        if client[0] != self.client_id:
            return {"ok": False, "error": "invalid_client_id"}
        if client[1] != self.client_secret:
            return {"ok": False, "error": "bad_client_secret"}
        if body.get("grant_type") == "refresh_token":
            return self._renew(str(body.get("refresh_token") or ""))
        with self._oauth_lock:
            install, redirect, until = self._codes.pop(str(body.get("code") or ""), (None, None, 0.0))
        if install is None or until < time.time():
            return {"ok": False, "error": "invalid_code"}
        if redirect is not None and body.get("redirect_uri") != redirect:
            return {"ok": False, "error": "bad_redirect_uri"}
        with self._oauth_lock:
            for old in self.installs:  # a re-install replaces the workspace's tokens
                if (old.team_id, old.enterprise_id) == (install.team_id, install.enterprise_id):
                    old.revoked = True
            self.installs.append(install)
        answer = self._issue(install)
        answer["authed_user"] = {"id": install.installer}
        return answer

    def _issue(self, install: Install) -> dict:
        """A new access token (and refresh token with rotation) for ``install``: Slack's answer."""
        n = next(self._numbers)
        name = install.team_id or install.enterprise_id
        answer: dict[str, Any] = {
            "ok": True,
            "app_id": APP_ID,
            "scope": ",".join(sorted(self.granted)),
            "token_type": "bot",
            "bot_user_id": BOT_USER_ID,
            "team": None if install.org else {"id": install.team_id, "name": f"Team {install.team_id}"},
            "enterprise": {"id": install.enterprise_id, "name": f"Org {install.enterprise_id}"}
            if install.enterprise_id
            else None,
            "is_enterprise_install": install.org,
        }
        if self.rotation:
            token, install.refresh = f"xoxe.xoxb-1-{name}-{n}", f"xoxe-1-{name}-{n}"
            lifetime = self.lifetimes.pop(0) if self.lifetimes else TOKEN_SECONDS
            install.expires[token] = time.time() + lifetime
            answer.update(refresh_token=install.refresh, expires_in=lifetime)
        else:
            token = f"xoxb-{name}-{n}-fake"
        install.tokens.append(token)
        answer["access_token"] = token
        return answer

    def _renew(self, refresh: str) -> dict:  # [oauth-refresh]
        with self._oauth_lock:
            install = next((i for i in self.installs if i.refresh == refresh and refresh), None)
            if install is None or install.revoked:
                return {"ok": False, "error": "invalid_refresh_token"}
            install.refresh = None  # spent
        time.sleep(self.renew_delay)
        with self._oauth_lock:
            return self._issue(install)

    # ------------------------------------------------------------ every method
    def oauth_answer(self, method: str, body: dict, headers: dict[str, str]) -> tuple[int, dict, dict] | None:
        """The answer to a Web API call that the installations decide, or None to answer
        as one workspace's Slack: a client-credentials method, a token refused, or
        ``auth.test`` for an installed token."""
        if method in CLIENT_METHODS:  # the app's client id and secret, no token, no scope
            return 200, {}, getattr(self, "_api_" + method.replace(".", "_"))(body, headers)
        token = Call(method, "", body, headers).token
        refusal = self.token_refusal(token, str(body.get("channel", "")))
        if refusal:
            return 200, {}, {"ok": False, "error": refusal}
        if method == "auth.test" and self.owner_of(token):
            return 200, {}, self.identity(token)
        return None

    def owner_of(self, token: str | None) -> Install | None:
        """The installation that was issued ``token``, or None."""
        return next((i for i in self.installs if token in i.tokens), None)

    def token_refusal(self, token: str | None, channel: str) -> str | None:  # [token-owner]
        """Slack's error for a call with ``token`` (into ``channel``), or None when it may go on."""
        if not self.installs:
            return None  # a one-workspace fake: any token is the test workspace's
        if not token:
            return "not_authed"
        install = self.owner_of(token)
        if install is None:
            return "invalid_auth"
        if install.revoked:
            return "token_revoked"
        if token in install.expires and install.expires[token] < time.time():
            return "token_expired"
        owner = self.channel_teams.get(channel)
        if owner is not None and not install.serves(owner, self.grid):
            return "channel_not_found"
        return None

    def identity(self, token: str | None) -> dict[str, Any] | None:
        """``auth.test``'s answer for an installed token, or None for the test workspace's."""
        install = self.owner_of(token)
        if install is None:
            return None
        name = install.team_id or install.enterprise_id
        return {
            "ok": True,
            "url": f"https://{name.lower()}.slack.com/",
            "team": f"Team {name}",
            "user": "paperbot",
            "team_id": install.team_id or install.enterprise_id,
            "enterprise_id": install.enterprise_id,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": install.org,
        }

    # ------------------------------------------------------------ driven over HTTP
    def admin(self, path: str, query: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """``/fake/…`` for ``tests.fakeslack_cli``: ``response_url`` (a new one and a
        trigger id), ``channel?id&team`` (the team's channel, the bot in it),
        ``replies?path`` (what was posted to a response URL), ``uninstall?team``
        (the envelope to send the app)."""
        if path == "/fake/response_url":
            return 200, {"response_url": self.new_response_url(), "trigger_id": self.new_trigger_id()}
        if path == "/fake/channel":
            self.own_channel(str(query["id"]), str(query["team"]))
            self.add_channel(str(query["id"]), bot_member=True)
            return 200, {"ok": True}
        if path == "/fake/replies":
            return 200, {"replies": [c.body for c in self.calls("response_url") if c.path == query.get("path")]}
        if path == "/fake/uninstall":
            try:
                return 200, self.uninstall(str(query.get("team")))
            except LookupError as e:
                return 404, {"error": str(e)}
        return 404, {"error": "unknown"}

    # ------------------------------------------------------------ leaving
    def uninstall(self, team_id: str) -> dict[str, Any]:  # [app-uninstalled]
        """Remove the app from ``team_id`` (``E…``: the organisation's org-wide install):
        its tokens stop working. Returns the ``app_uninstalled`` envelope Slack sends."""
        return self._leave(team_id, {"type": "app_uninstalled", "event_ts": f"{time.time():.6f}"})

    def revoke_bot(self, team_id: str) -> dict[str, Any]:
        """Revoke the bot token of ``team_id``: the ``tokens_revoked`` envelope Slack sends."""
        event = {
            "type": "tokens_revoked",
            "tokens": {"oauth": [], "bot": [BOT_USER_ID]},
            "event_ts": f"{time.time():.6f}",
        }
        return self._leave(team_id, event)

    def _leave(self, team_id: str, event: dict[str, Any]) -> dict[str, Any]:
        install = self.install_of(team_id)
        install.revoked = True
        envelope: dict[str, Any] = {
            "token": "deprecated",
            "team_id": install.team_id or install.enterprise_id,
            "api_app_id": APP_ID,
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev0LEAVE{next(self._numbers)}",
            "event_time": int(time.time()),
        }
        if install.enterprise_id:
            envelope.update(enterprise_id=install.enterprise_id, is_enterprise_install=install.org)
        return envelope


def _basic(header: str) -> tuple[str, str] | None:
    """``(client_id, client_secret)`` of an HTTP Basic ``Authorization`` header, or None."""
    if not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[len("Basic ") :]).decode("utf-8").partition(":")
    return user, password
