"""A workspace leaves (issue 21 point 4) and one workspace's failure stays its own
(point 3): ``app_uninstalled`` / ``tokens_revoked`` through the real HTTP server
delete that installation's tokens and turn its subscriptions off, the other
workspace untouched; a re-install turns nothing back on by itself."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from bot.digest import send
from tests.slack.oauth.oauthkit import Browser, command, envelope_post, install
from tests.slack.slackkit import wait_until

T1, C1 = "T0ONE", "C0ONEGEN"
T2, C2 = "T0TWO", "C0TWOGEN"
NOW = datetime.now(timezone.utc)


def _token_rows(store, team: str) -> int:
    with store._engine.connect() as conn:
        return sum(
            conn.execute(sa.text(f"SELECT count(*) FROM {table} WHERE team_id = :t"), {"t": team}).scalar()
            for table in ("slack_installations", "slack_bots")
        )


def _posts_in(fake, channel: str) -> list:
    return [c for c in fake.calls("chat.postMessage") if c.body.get("channel") == channel]


@pytest.fixture
def subscribed(fake, servers):
    """T1 and T2 installed, each with a subscribed channel."""
    (served,) = servers()
    for team, channel in ((T1, C1), (T2, C2)):
        install(fake, served.url, team, channel)
        assert command(served.url, fake, "subscribe 09:00 UTC", team=team, channel=channel)[0].status == 200
        fake.wait_for("chat.postMessage", where=lambda c, ch=channel: c.body.get("channel") == ch)
    return served


@pytest.mark.parametrize("leave", ["uninstall", "revoke_bot"])
def test_leaving_deletes_the_tokens_and_turns_off_only_that_teams_subscriptions(fake, subscribed, leave):
    store = subscribed.store
    envelope = getattr(fake, leave)(T1)
    assert envelope_post(subscribed.url, envelope).status == 200
    reason = envelope["event"]["type"]
    wait_until(lambda: not store.get_subscription(T1, C1).active, what="T1's subscription off")
    off = store.get_subscription(T1, C1)
    assert (off.active, off.inactive_reason) == (False, reason)
    assert _token_rows(store, T1) == 0
    assert subscribed.distributed.installations.find_installation(enterprise_id=None, team_id=T1) is None
    assert store.get_subscription(T2, C2).active and _token_rows(store, T2) == 2

    before = len(_posts_in(fake, C1))
    summary = send(store, subscribed.service.index, subscribed.distributed.posters, NOW)
    assert (summary.posted, summary.stopped) == (1, None)  # T2's only; T1's is off, nothing is tried
    assert len(_posts_in(fake, C1)) == before and _posts_in(fake, C2)[-1].token == fake.install_of(T2).token


def test_a_reinstall_turns_nothing_on_until_the_channel_subscribes_again(fake, subscribed):
    assert envelope_post(subscribed.url, fake.uninstall(T1)).status == 200
    wait_until(lambda: not subscribed.store.get_subscription(T1, C1).active, what="T1's subscription off")
    assert Browser().install(subscribed.url, T1).status == 200
    assert not subscribed.store.get_subscription(T1, C1).active

    _, url = command(subscribed.url, fake, "status", team=T1, channel=C1)
    (status,) = [c.body for c in fake.wait_for("response_url", where=lambda c: url.endswith(c.path))]
    assert "paperbot was removed from this workspace" in json.dumps(status)

    assert command(subscribed.url, fake, "subscribe 09:00 UTC", team=T1, channel=C1)[0].status == 200
    wait_until(lambda: subscribed.store.get_subscription(T1, C1).active, what="T1 subscribed again")
    summary = send(subscribed.store, subscribed.service.index, subscribed.distributed.posters, NOW)
    assert summary.posted == 2
    assert _posts_in(fake, C1)[-1].token == fake.install_of(T1).token  # the new installation's token


@pytest.mark.parametrize("code", ["token_revoked", "account_inactive"])
def test_one_workspaces_failure_stops_only_its_own_sends(fake, subscribed, code):
    if code == "token_revoked":
        fake.install_of(T1).revoked = True  # revoked with no event (yet)
    else:
        fake.fail_channel(C1, code, methods=("chat.postMessage",))
    summary = send(subscribed.store, subscribed.service.index, subscribed.distributed.posters, NOW)
    assert (summary.posted, summary.stopped, summary.stopped_teams) == (1, code, [T1])
    assert str(summary).endswith(f"; stopped: {code} for {T1}")
    assert all(s.active for s in subscribed.store.subscriptions())  # nothing deactivated
    assert subscribed.store.get_delivery(T1, C1, NOW.date()) is None  # its claim released: tried again later
    assert _posts_in(fake, C2)[-1].token == fake.install_of(T2).token


def test_a_team_that_never_installed_is_refused_without_a_call(fake, subscribed):
    subscribed.store.upsert_subscription("T0NEVER", "C0NEVER", "09:00", "UTC", "U1", NOW - timedelta(days=1))
    calls = len(fake.calls())
    summary = send(subscribed.store, subscribed.service.index, subscribed.distributed.posters, NOW)
    assert (summary.posted, summary.stopped, summary.stopped_teams) == (2, "not_authed", ["T0NEVER"])
    assert not [c for c in fake.calls()[calls:] if c.body.get("channel") == "C0NEVER"]
