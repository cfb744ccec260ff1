"""One workspace (``SLACK_BOT_TOKEN``) listens for the app leaving too: ``app_uninstalled``
turns the workspace's subscriptions off (its token lives in the environment: nothing
to delete), so the digest stops posting into a workspace that removed the app."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.slack.app import build_app, make_client
from bot.slack.delivery.poster import SlackPoster
from bot.slack.oauth.uninstalls import Uninstalls
from bot.slack.transport.http_server import make_server
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.slack.slackkit import SlackHarness, make_settings, wait_until


def test_app_uninstalled_turns_the_workspaces_subscriptions_off(fake_slack, seed_index, tmp_path):
    settings = make_settings(fake_slack, tmp_path)
    store = Store(settings.database_url)
    client = make_client(settings)
    service = Service(seed_index, store, settings, announcer=PostingAnnouncer(SlackPoster(client)))
    app = build_app(settings, service, client=client, uninstalls=Uninstalls(store, None))
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        at = datetime(2026, 12, 1, tzinfo=timezone.utc)
        for channel in ("C0GENERAL", "C0OTHER"):
            store.upsert_subscription(TEAM_ID, channel, "09:00", "UTC", "U0ALICE", at)
        store.upsert_subscription("T0ELSE", "C0ELSE", "09:00", "UTC", "U0BOB", at)
        slack = SlackHarness(server.url, fake_slack, seed_index, store, service, app)
        assert (
            slack.event({"type": "app_uninstalled", "event_ts": "1765000000.000100"}, event_id="Ev0GONE").status == 200
        )
        wait_until(lambda: not store.get_subscription(TEAM_ID, "C0OTHER").active, what="subscriptions off")
        assert {(s.channel_id, s.active, s.inactive_reason) for s in store.subscriptions()} == {
            ("C0GENERAL", False, "app_uninstalled"),
            ("C0OTHER", False, "app_uninstalled"),
            ("C0ELSE", True, None),
        }
    finally:
        server.close()
        store.close()
