"""``SlackPoster`` against the fake Web API: posts, threads, errors, 429s, history."""

from __future__ import annotations

import pytest

from bot.core.config import Settings
from bot.core.ports import HistoryUnavailable, Message, PostError
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from tests.fakeslack import FakeSlack

BLOCK = {"type": "section", "text": {"type": "mrkdwn", "text": "hello"}}


@pytest.fixture
def poster(fake_slack: FakeSlack) -> SlackPoster:
    return SlackPoster(make_client(Settings(bot_token="xoxb-test", api_url=fake_slack.api_url)))


def test_post_then_thread_replies_under_the_parent(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    message = Message(
        text="parent",
        blocks=(BLOCK,),
        visibility="in_channel",
        thread=(Message(text="abstract 1"), Message(text="abstract 2")),
    )

    ts = poster.post("C0DIGEST", message)

    parent, *replies = fake_slack.calls("chat.postMessage")
    assert parent.body["channel"] == "C0DIGEST" and "thread_ts" not in parent.body
    assert parent.body["blocks"] == [BLOCK] and parent.body["text"] == "parent"
    assert parent.body["unfurl_links"] is False and parent.body["unfurl_media"] is False
    assert parent.headers["authorization"] == "Bearer xoxb-test"
    assert [(r.body["text"], r.body["thread_ts"]) for r in replies] == [("abstract 1", ts), ("abstract 2", ts)]
    assert "blocks" not in replies[0].body  # no empty blocks list sent


def test_post_into_an_existing_thread(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    message = Message(text="answer", thread=(Message(text="more"),))
    poster.post("C1", message, thread_ts="1765000000.000100")
    assert [c.body["thread_ts"] for c in fake_slack.calls("chat.postMessage")] == [
        "1765000000.000100",
        "1765000000.000100",
    ]


@pytest.mark.parametrize("code", ["is_archived", "not_in_channel", "channel_not_found"])
def test_channel_errors_become_post_errors(poster: SlackPoster, fake_slack: FakeSlack, code: str) -> None:
    fake_slack.fail_channel("C0GONE", code)
    with pytest.raises(PostError) as err:
        poster.post("C0GONE", Message(text="x"))
    assert err.value.code == code and err.value.channel_level


def test_workspace_errors_become_post_errors(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    fake_slack.fail_method("chat.postMessage", "invalid_auth")
    with pytest.raises(PostError) as err:
        poster.post("C1", Message(text="x"))
    assert err.value.code == "invalid_auth" and err.value.workspace_level


def test_a_failing_thread_reply_does_not_undo_the_parent(
    poster: SlackPoster, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake_slack.fail_method("chat.postMessage", "msg_too_long", after=1)
    ts = poster.post("C1", Message(text="parent", thread=(Message(text="reply"),)))
    assert ts == fake_slack.history["C1"][0]["ts"]
    assert len(fake_slack.calls("chat.postMessage")) == 2
    assert "msg_too_long" in caplog.text


def test_429_is_retried_after_retry_after(
    poster: SlackPoster, fake_slack: FakeSlack, retry_sleeps: list[float]
) -> None:
    fake_slack.rate_limit("chat.postMessage", times=1, retry_after=2)
    ts = poster.post("C1", Message(text="x"))
    calls = fake_slack.calls("chat.postMessage")
    assert [c.status for c in calls] == [429, 200] and ts
    assert len(retry_sleeps) == 1 and 2 <= retry_sleeps[0] < 3  # Retry-After, plus < 1 s jitter


def test_429_beyond_the_retries_is_ratelimited(
    poster: SlackPoster, fake_slack: FakeSlack, retry_sleeps: list[float]
) -> None:
    fake_slack.rate_limit("chat.postMessage", times=3, retry_after=0)
    with pytest.raises(PostError) as err:
        poster.post("C1", Message(text="x"))
    assert err.value.code == "ratelimited"
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [429, 429, 429]
    assert len(retry_sleeps) == 2 and all(0 <= s < 1 for s in retry_sleeps)


def test_unreachable_api_is_a_post_error(retry_sleeps: list[float]) -> None:
    with FakeSlack() as gone:
        url = gone.api_url
    poster = SlackPoster(make_client(Settings(bot_token="xoxb-test", api_url=url)))
    with pytest.raises(PostError) as err:
        poster.post("C1", Message(text="x"))
    assert err.value.code == "request_failed"
    assert len(retry_sleeps) == 1  # one retry of the refused connection, after a pause


def test_find_recent_post_finds_only_our_own_post(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    fake_slack.history["C1"] = [
        {
            "type": "message",
            "ts": "1765000000.000001",
            "user": "U0ALICE",
            "text": "potd-2026-12-01-p7k2 quoted by a human",
        }
    ]
    assert poster.find_recent_post("C1", "potd-2026-12-01-p7k2", 1764999999.0) is None

    ts = poster.post(
        "C1",
        Message(
            text="Paper of the day",
            blocks=({"type": "section", "block_id": "potd-2026-12-01-p7k2", "text": {"type": "mrkdwn", "text": "x"}},),
        ),
    )

    assert poster.find_recent_post("C1", "potd-2026-12-01-p7k2", 1764999999.0) == ts
    assert poster.find_recent_post("C1", "potd-2026-12-02-p7k2", 1764999999.0) is None
    assert poster.find_recent_post("C1", "potd-2026-12-01-p7k2", float(ts) + 1) is None


def test_find_recent_post_finds_a_marker_kept_only_in_metadata(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    meta = {"event_type": "paperbot_digest", "event_payload": {"marker": "potd-2026-12-01-p9"}}
    ts = poster.post("C2", Message(text="Paper of the day: A title", metadata=meta))
    assert poster.find_recent_post("C2", "potd-2026-12-01-p9", 0.0) == ts


def test_find_recent_post_raises_when_history_is_unreadable(poster: SlackPoster, fake_slack: FakeSlack) -> None:
    poster.post("C0PRIV", Message(text="potd-x"))
    fake_slack.fail_channel("C0PRIV", "not_in_channel", methods=("conversations.history",))
    with pytest.raises(HistoryUnavailable, match="not_in_channel"):
        poster.find_recent_post("C0PRIV", "potd-x", 0.0)


def test_fake_answers_the_other_methods_the_app_will_use(fake_slack: FakeSlack) -> None:
    client = make_client(Settings(bot_token="xoxb-test", api_url=fake_slack.api_url))
    view = {"type": "home", "blocks": []}
    modal = dict(view, type="modal", title={"type": "plain_text", "text": "paperbot"})
    assert client.views_publish(user_id="U1", view=view)["view"]["type"] == "home"
    assert client.views_open(trigger_id=fake_slack.new_trigger_id(), view=modal)["view"]["id"]
    assert client.views_update(view_id="V9", view=modal)["view"]["id"] == "V9"
    assert client.users_info(user="U1")["user"]["tz"] == "Europe/Berlin"
    assert [c.method for c in fake_slack.calls()] == ["views.publish", "views.open", "views.update", "users.info"]
