"""Personal feeds and topic posts end to end (issue 13 points 1, 3, 4):
``/paper subscribe me …`` through the real HTTP endpoint (signed), the digest
through the real ``SlackPoster`` to the strict fake, the App Home listing,
``unsubscribe me``, an interrupted feed post; a three-paper post and a topic a
rebuild left without matches, against the strict fake.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bot import search
from bot.core.config import Settings
from bot.daily.post_times import next_post_time
from bot.digest import run_due, send
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.slack.listeners.test_slack_app_home import home_opened, sent_view
from tests.slack.slackkit import BOT_TOKEN, SlackHarness, make_settings, shown_strings
from tests.strict.methods import dm_of


def test_a_personal_feed_posts_to_the_users_dm_and_nowhere_else(slack: SlackHarness, tmp_path):
    slack.fake.user_tz["U0ALICE"] = "America/New_York"
    response, url = slack.command("subscribe me 08:00 about reinforcement learning", channel="C0GENERAL")
    assert response.status == 200
    (reply,) = slack.replies(url)
    assert "personal feed" in " ".join(shown_strings(reply))
    feed = slack.store.get_subscription(TEAM_ID, "U0ALICE")
    assert (feed.topic, feed.local_time, feed.tz) == (
        "reinforcement learning",
        "08:00",
        "America/New_York",
    )  # their Slack zone
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
    store.upsert_subscription(TEAM_ID, "U0ALICE", "09:00", "UTC", "U0ALICE", now - timedelta(days=1), topic="reasoning")
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=fake_slack.api_url)))
    fake_slack.drop_connection("chat.postMessage")  # Slack takes the post in; the answer is lost
    assert send(store, seed_index, poster, now).posted == 0
    for minutes in (3, 10, 60):
        run_due(store, seed_index, poster, now + timedelta(minutes=minutes))
    dm = [m for m in fake_slack.history.get(dm_of("U0ALICE"), []) if not m.get("thread_ts")]
    assert len(dm) == 1  # never a second parent in the DM
    assert store.get_delivery(TEAM_ID, "U0ALICE", now.date()).state == "unknown"
    assert fake_slack.calls("conversations.history") == []  # no history lookup by user id
    store.close()


def test_a_three_paper_post_passes_the_strict_fake(fake_slack, seed_index, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'many.db'}")
    now = datetime(2026, 12, 7, 10, 5, tzinfo=timezone.utc)  # a Monday
    store.upsert_subscription(
        TEAM_ID, "C0GROUP", "10:00", "UTC", "U0ALICE", now - timedelta(days=1), topic="reasoning", days=(0,), papers=3
    )
    poster = SlackPoster(make_client(Settings(bot_token=BOT_TOKEN, api_url=fake_slack.api_url)))
    assert run_due(store, seed_index, poster, now).posted == 1
    history = fake_slack.history["C0GROUP"]
    parents = [m for m in history if not m.get("thread_ts")]
    replies = [m for m in history if m.get("thread_ts") == parents[0]["ts"]]
    assert len(parents) == 1 and len(replies) == 3
    picks = store.channel_picks(TEAM_ID, "C0GROUP", now.date(), "reasoning")
    titles = [seed_index.get(p).title for p in picks]
    shown = " ".join(shown_strings(parents[0]["blocks"]))
    assert all(t[:60] in shown.replace("&amp;", "&") for t in titles)
    assert fake_slack.rejections == []
    store.close()


def test_status_says_when_a_topic_no_longer_matches_anything(slack_factory, fake_slack, seed_papers, tmp_path):
    index_dir = tmp_path / "ix"
    search.build_index(index_dir, seed_papers)
    settings = make_settings(fake_slack, tmp_path)
    store = Store(settings.database_url)
    index = search.SearchIndex(index_dir)
    poster = SlackPoster(make_client(settings))
    slack = slack_factory(service=Service(index, store, settings, announcer=PostingAnnouncer(poster)))
    fake_slack.add_channel("C0STEG", bot_member=True)
    _, url = slack.command("subscribe 09:00 UTC about steganography", channel="C0STEG")
    assert "Next post" in " ".join(shown_strings(slack.replies(url)[0]))
    assert store.get_subscription(TEAM_ID, "C0STEG").topic == "steganography"
    matching = set(index.match_all("steganography"))
    search.build_index(index_dir, [p for p in seed_papers if p.id not in matching])  # a rebuild
    sub = store.get_subscription(TEAM_ID, "C0STEG")
    due = next_post_time(sub, sub.updated_at) + timedelta(minutes=1)
    summary = run_due(store, index, poster, due)
    assert summary.posted == 0 and summary.failed == 0
    assert [
        c for c in fake_slack.calls("chat.postMessage") if c.body["channel"] == "C0STEG" and "potd-" in str(c.body)
    ] == []
    _, url = slack.command("status", channel="C0STEG")
    text = " ".join(shown_strings(slack.replies(url)[0]))
    assert "no paper matches it now" in text and "nothing is posted" in text
    _, url = slack.command("today", channel="C0STEG")
    assert "No paper in the index matches" in " ".join(shown_strings(slack.replies(url)[0]))
    store.close()
