"""Several processes of a distributed app over one PostgreSQL database (issue 21
point 5), as an operator runs them: two real ``paperbot serve`` processes on their
own ports answer any installed workspace and complete an install started on the
other; two real ``paperbot clock`` processes started together post each workspace's
digest once, each with that workspace's token."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from tests.kit import ROOT
from tests.slack.oauth.oauthkit import Browser, command, oauth_env
from tests.slack.slackkit import wait_until

WORKSPACES = (("T0ONE", "C0ONEGEN"), ("T0TWO", "C0TWOGEN"))


def _digests(fake, channel: str) -> list:
    """The digest posts (not their thread replies) the fake took in ``channel``."""
    return [
        c
        for c in fake.calls("chat.postMessage")
        if c.body.get("channel") == channel and "potd-" in json.dumps(c.body) and not c.body.get("thread_ts")
    ]


@pytest.mark.long_wall
def test_two_web_and_two_clock_processes_share_installs_and_post_each_digest_once(
    fake, pg_schema, seed_index_dir, key, processes
):
    url = pg_schema[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
    env.update(oauth_env(fake, url, seed_index_dir, key), PYTHONPATH=str(ROOT))
    web = [processes("serve", "--host", "127.0.0.1", "--port", "0", env=env) for _ in range(2)]
    ports = [wait_until(lambda p=p: p.said(r"serving on http://127\.0\.0\.1:(\d+)"), 120, "serve") for p in web]
    a, b = (f"http://127.0.0.1:{m.group(1)}" for m in ports)
    # the install line follows the "serving on" line; the reader may not have it yet
    assert all(wait_until(lambda p=p: p.said("installs start at"), 30, "install line") for p in web)

    # each install starts on one process and comes back to the other
    for (team, channel), start, finish in zip(WORKSPACES, (a, b), (b, a)):
        fake.own_channel(channel, team)
        fake.add_channel(channel, bot_member=True)
        fake.redirect_url = finish + "/slack/oauth_redirect"
        page = Browser().install(start, team)
        assert page.status == 200 and "Thank you!" in page.text, page.text[-300:]

    # either process answers either workspace, with that workspace's token
    for (team, channel), server in zip(WORKSPACES, (b, a)):
        answer, _ = command(server, fake, "subscribe 09:00 UTC", team=team, channel=channel)
        assert answer.status == 200
        (confirmation,) = fake.wait_for("chat.postMessage", where=lambda c, ch=channel: c.body.get("channel") == ch)
        assert confirmation.token == fake.install_of(team).token

    # due now: subscribed yesterday for 00:00 UTC
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        yesterday = datetime.now(timezone.utc).replace(tzinfo=None) - timedelta(days=1)
        conn.execute(
            sa.text("UPDATE subscriptions SET local_time = '00:00', created_at = :y, updated_at = :y"), {"y": yesterday}
        )
    engine.dispose()

    clocks = [processes("-v", "clock", env=env) for _ in range(2)]  # started together: both race at start-up
    for _, channel in WORKSPACES:
        fake.wait_for(None, where=lambda c, ch=channel: c in _digests(fake, ch), timeout=120)
    wait_until(lambda: all(p.said("executed successfully") for p in clocks), 120, "each clock's first run")
    for p in clocks + web:
        p.stop()
    for team, channel in WORKSPACES:
        (digest,) = _digests(fake, channel)  # once, though two clocks ran
        assert digest.token == fake.install_of(team).token
    with engine.connect() as conn:
        states = conn.execute(sa.text("SELECT team, state FROM deliveries ORDER BY team")).all()
    engine.dispose()
    assert [tuple(r) for r in states] == [("T0ONE", "posted"), ("T0TWO", "posted")]
    secrets = [key, *(t for i in fake.installs for t in i.tokens)]  # the clocks logged at INFO (-v)
    assert not [
        line for p in web + clocks for line in p.lines if "Traceback" in line or any(x in line for x in secrets)
    ]
