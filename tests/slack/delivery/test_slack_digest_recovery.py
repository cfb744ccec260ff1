"""The digest's crash recovery against the strict fake (issue 9 point 3).

The post is ambiguous: Slack takes in ``chat.postMessage`` but the
connection drops before the answer, so the run cannot know. The next run
must find that post — in a public channel the bot never joined (it posted
with ``chat:write.public``, where history answers ``not_in_channel``) and in
a private one it was invited to — with only what the manifests ask for, and
never post a second parent.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from bot.core.config import Settings
from bot.digest import run_due, send
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from bot.store import Store
from tests.fakeslack import TEAM_ID, FakeSlack
from tests.slack.slackkit import BOT_TOKEN


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'digest.db'}")
    yield s
    s.close()


def parents(fake: FakeSlack, channel: str) -> list[dict]:
    return [m for m in fake.history.get(channel, []) if not m.get("thread_ts")]


@pytest.mark.parametrize("channel,private", [("C0PUBLIC", False), ("C0PRIVATE", True)])
def test_an_ambiguous_post_is_found_by_the_next_run_and_never_repeated(
    fake_slack: FakeSlack, seed_index, store, channel: str, private: bool
) -> None:
    if private:  # private channels: the bot was invited, or it could not post
        fake_slack.add_channel(channel, private=True, bot_member=True)
    now = datetime.now(timezone.utc)
    store.upsert_subscription(TEAM_ID, channel, "09:00", "UTC", "U0ALICE", now - timedelta(days=1))
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=fake_slack.api_url)))
    fake_slack.drop_connection("chat.postMessage")  # taken in, then the line goes dead

    first = send(store, seed_index, poster, now)
    assert first.posted == 0 and first.failed == 1  # the run cannot know
    assert len(parents(fake_slack, channel)) == 1  # …but Slack has it, once (no retry)

    later = run_due(store, seed_index, poster, now + timedelta(minutes=3))
    assert later.reconciled == 1 and later.posted == 0
    delivery = store.get_delivery(TEAM_ID, channel, now.date())
    (post,) = parents(fake_slack, channel)
    assert (delivery.state, delivery.message_ts) == ("posted", post["ts"])
    assert fake_slack.rejections == []  # no missing_scope, no not_in_channel
    joins = fake_slack.calls("conversations.join")
    assert len(joins) == (0 if private else 1)  # joined only where it had to


def test_a_post_that_never_arrived_is_posted_once(fake_slack: FakeSlack, seed_index, store) -> None:
    # the claim was made at today's post time (09:00 UTC), whatever time the suite runs:
    # before 09:00 a re-post of today's claim would wait for today's post time
    now = datetime.now(timezone.utc).replace(hour=9, minute=0, second=0, microsecond=0)
    store.upsert_subscription(TEAM_ID, "C0QUIET", "09:00", "UTC", "U0ALICE", now - timedelta(days=1))
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=fake_slack.api_url)))
    store.claim_delivery(TEAM_ID, "C0QUIET", now.date(), seed_index.ids()[0], now=now)  # then a crash
    later = run_due(store, seed_index, poster, now + timedelta(minutes=3))
    assert later.reconciled == 1 and later.posted == 1  # read the whole history: not there
    (post,) = parents(fake_slack, "C0QUIET")  # so posted now, once — never skipped
    delivery = store.get_delivery(TEAM_ID, "C0QUIET", now.date())
    assert (delivery.state, delivery.message_ts) == ("posted", post["ts"])
    assert fake_slack.rejections == []
