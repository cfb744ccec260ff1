"""A personal feed end to end (issue 13 point 4): ``/paper subscribe me …``
through the real HTTP endpoint (signed), the digest through the real
``SlackPoster`` to the strict fake, the App Home listing, ``unsubscribe me``.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bot.config import Settings
from bot.digest import run_due, send
from bot.slack.app import make_client
from bot.slack.poster import SlackPoster
from bot.slots import next_post_time
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.slack.slackkit import BOT_TOKEN, SlackHarness, make_settings, shown_strings
from tests.slack.test_slack_home import home_opened, sent_view
from tests.strict.methods import dm_of


def test_a_personal_feed_posts_to_the_users_dm_and_nowhere_else(slack: SlackHarness, tmp_path):
    slack.fake.user_tz["U0ALICE"] = "America/New_York"
    response, url = slack.command("subscribe me 08:00 about reinforcement learning",
                                  channel="C0GENERAL")
    assert response.status == 200
    (reply,) = slack.replies(url)
    assert "personal feed" in " ".join(shown_strings(reply))
    feed = slack.store.get_subscription(TEAM_ID, "U0ALICE")
    assert (feed.topic, feed.local_time, feed.tz) == ("reinforcement learning", "08:00",
                                                      "America/New_York")  # their Slack zone
    assert slack.store.get_subscription(TEAM_ID, "C0GENERAL") is None
    assert slack.fake.calls("chat.postMessage") == []  # no channel announcement

    poster = SlackPoster(make_client(make_settings(slack.fake, tmp_path)))
    due = next_post_time(feed, feed.updated_at) + timedelta(minutes=1)
    for minutes in (0, 30, 60):  # the clock ticks on: still one post
        summary = run_due(slack.store, slack.index, poster, due + timedelta(minutes=minutes))
        assert summary.failed == 0
    posts = slack.fake.calls("chat.postMessage")
    parents = [c for c in posts if not c.body.get("thread_ts")]
    assert [c.body["channel"] for c in parents] == ["U0ALICE"]
    assert parents[0].answer["channel"] == dm_of("U0ALICE")
    assert set(slack.fake.history) == {dm_of("U0ALICE")}  # the DM and nowhere else
    matches = set(slack.index.match_all("reinforcement learning"))
    assert any(pid in str(parents[0].body) for pid in matches)

    # the App Home lists it
    assert slack.event(home_opened(), event_id="Ev0FEEDHOME").status == 200
    slack.fake.wait_for("views.publish")
    home = " ".join(shown_strings(sent_view(slack.fake.calls("views.publish")[-1])))
    assert "Your personal feed" in home and "reinforcement learning" in home

    # /paper status shows it; unsubscribe me stops it
    _, url = slack.command("status", channel="C0GENERAL")
    assert "Your personal feed" in " ".join(shown_strings(slack.replies(url)[0]))
    _, url = slack.command("unsubscribe me", channel="C0GENERAL")
    assert "personal feed is stopped" in " ".join(shown_strings(slack.replies(url)[0]))
    assert slack.store.get_subscription(TEAM_ID, "U0ALICE") is None
    run_due(slack.store, slack.index, poster, due + timedelta(days=1))
    slack.drain()
    assert len([c for c in slack.fake.calls("chat.postMessage") if not c.body.get("thread_ts")]) == 1


def test_an_ambiguous_feed_post_is_never_posted_twice(fake_slack, seed_index, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'feed.db'}")
    now = datetime.now(timezone.utc)
    store.upsert_subscription(TEAM_ID, "U0ALICE", "09:00", "UTC", "U0ALICE", now - timedelta(days=1),
                              topic="reasoning")
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=fake_slack.api_url)))
    fake_slack.drop_connection("chat.postMessage")   # Slack takes the post in; the answer is lost
    assert send(store, seed_index, poster, now).posted == 0
    for minutes in (3, 10, 60):
        run_due(store, seed_index, poster, now + timedelta(minutes=minutes))
    dm = [m for m in fake_slack.history.get(dm_of("U0ALICE"), []) if not m.get("thread_ts")]
    assert len(dm) == 1                                # never a second parent in the DM
    assert store.get_delivery(TEAM_ID, "U0ALICE", now.date()).state == "unknown"
    assert fake_slack.calls("conversations.history") == []  # no history lookup by user id
    store.close()
