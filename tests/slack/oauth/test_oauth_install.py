"""A distributed app's install through the real HTTP server and the strict fake
Slack (issue 21 points 1–3): "Add to Slack" for two workspaces, each answered
with its own token; a replayed, forged or expired state refused with nothing stored."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from tests.slack.oauth.oauthkit import Browser, command, event, install, mention

T1, C1 = "T0ONE", "C0ONEGEN"
T2, C2 = "T0TWO", "C0TWOGEN"


def _rows(store, table: str, team: str | None = None) -> int:
    where = f" WHERE team_id = '{team}'" if team else ""
    with store._engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT count(*) FROM {table}{where}")).scalar()


@pytest.fixture
def two(fake, servers):
    """Two workspaces installed through one server; each owns one channel."""
    (served,) = servers()
    for team, channel in ((T1, C1), (T2, C2)):
        install(fake, served.url, team, channel)
    return served


def test_each_install_is_stored_with_its_own_token(fake, two):
    assert len(fake.calls("oauth.v2.access")) == 2
    installations = two.distributed.installations
    for team in (T1, T2):
        found = installations.find_installation(enterprise_id=None, team_id=team)
        assert found is not None and found.bot_token == fake.install_of(team).token
        assert found.bot_user_id and found.app_id
    assert fake.install_of(T1).token != fake.install_of(T2).token


def test_commands_and_mentions_of_each_team_use_that_teams_token(fake, two):
    for n, (team, channel) in enumerate(((T1, C1), (T2, C2))):
        token = fake.install_of(team).token
        answer, url = command(two.url, fake, "search image steganography", team=team, channel=channel)
        assert answer.status == 200
        (reply,) = [c.body for c in fake.wait_for("response_url", where=lambda c, u=url: u.endswith(c.path))]
        assert "KIStego" in json.dumps(reply)
        assert (
            event(
                two.url, mention(team, channel, "KIStego", f"176500{n}000.000100"), team=team, event_id=f"Ev{n}"
            ).status
            == 200
        )
        (post,) = fake.wait_for("chat.postMessage", where=lambda c, ch=channel: c.body.get("channel") == ch)
        assert post.token == token
        assert token in {c.token for c in fake.calls("auth.test")}  # Bolt's authorize checked this team's token


def test_subscribe_confirmations_and_digests_post_with_each_teams_token(fake, two):
    from datetime import datetime, timezone

    from bot.digest import send

    for team, channel in ((T1, C1), (T2, C2)):
        answer, _ = command(two.url, fake, "subscribe 09:00 UTC", team=team, channel=channel)
        assert answer.status == 200
        fake.wait_for("chat.postMessage", where=lambda c, ch=channel: c.body.get("channel") == ch)
    two.drain()
    assert {(s.team_id, s.channel_id) for s in two.store.subscriptions(active_only=True)} == {(T1, C1), (T2, C2)}
    summary = send(two.store, two.service.index, two.distributed.posters, datetime.now(timezone.utc))
    assert (summary.posted, summary.failed, summary.stopped) == (2, 0, None)
    for team, channel in ((T1, C1), (T2, C2)):
        posts = [c for c in fake.calls("chat.postMessage") if c.body.get("channel") == channel]
        assert len(posts) >= 3  # the confirmation, the digest and its thread
        assert {c.token for c in posts} == {fake.install_of(team).token}


def test_a_replayed_state_is_refused_and_nothing_more_is_stored(fake, servers):
    (served,) = servers()
    browser = Browser()
    back = browser.start(served.url, T1)
    cookies = dict(browser.cookies)
    assert browser.get(back).status == 200
    browser.cookies = cookies  # the success page deleted the cookie; a replay brings it back
    again = browser.get(back)  # the same code, state and cookie once more
    assert again.status == 401 and "invalid_state" in again.text
    assert len(fake.calls("oauth.v2.access")) == 1
    assert _rows(served.store, "slack_installations") == 1 and _rows(served.store, "slack_bots") == 1


@pytest.mark.parametrize("how", ["state never issued", "no state cookie", "another browser's cookie", "expired"])
def test_a_forged_or_expired_state_is_refused_and_nothing_is_stored(fake, servers, how):
    (served,) = servers()
    browser = Browser()
    back = browser.start(served.url, T1)
    state = browser.cookies["slack-app-oauth-state"]
    if how == "state never issued":
        back = back.replace(state, "forged-state")
        browser.cookies["slack-app-oauth-state"] = "forged-state"
    elif how == "no state cookie":
        browser.cookies.clear()
    elif how == "another browser's cookie":
        other = Browser()
        other.start(served.url, T2)
        browser.cookies = dict(other.cookies)
    else:
        with served.store._engine.begin() as conn:
            conn.execute(sa.text("UPDATE slack_oauth_states SET expire_at = '2000-01-01 00:00:00'"))
    answer = browser.get(back)
    assert answer.status in (400, 401) and "Something Went Wrong" in answer.text
    assert fake.calls("oauth.v2.access") == []  # the code was never exchanged
    assert _rows(served.store, "slack_installations") == 0 and _rows(served.store, "slack_bots") == 0


def test_a_state_is_consumed_once_among_processes(fake, servers):
    first, second = servers(2)
    states = [s.store.oauth_states(600) for s in (first, second)]
    issued = states[0].issue()
    assert [states[1].consume(issued), states[0].consume(issued)] == [True, False]


def test_the_distributed_manifest_sends_installs_to_the_redirect_path():
    """manifest.oauth.yml: the redirect URL paperbot serves, the events of leaving, HTTP only
    (its scopes, events and commands are checked with the other manifests: tests/test_scopes.py)."""
    import yaml

    from bot.slack.oauth.flow import REDIRECT_PATH
    from tests.slack.oauth.oauthkit import MANIFEST

    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    (redirect,) = data["oauth_config"]["redirect_urls"]
    assert redirect == "https://YOUR-HOST" + REDIRECT_PATH
    settings = data["settings"]
    assert {"app_uninstalled", "tokens_revoked"} <= set(settings["event_subscriptions"]["bot_events"])
    assert settings["socket_mode_enabled"] is False and settings["org_deploy_enabled"] is True
    assert settings["token_rotation_enabled"] in (True, False)
