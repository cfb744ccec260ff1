"""Pure parts of the mention listener: idempotency keys, what is answered, ``SeenKeys``."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.slack.delivery.event_keys import SeenKeys, idempotency_keys, should_answer

EVENT = {"type": "app_mention", "user": "U1", "text": "<@UBOT> x", "ts": "1.000100", "channel": "C1"}


def test_keys_are_event_id_and_team_channel_ts() -> None:
    body = {"event_id": "Ev1", "team_id": "T1", "event": EVENT}
    assert idempotency_keys(body, EVENT) == ["event:Ev1", "msg:T1:C1:1.000100"]
    # A retry has the same event_id; an edit keeps team, channel and ts.
    assert idempotency_keys({"event_id": "Ev2", "team_id": "T1"}, EVENT)[1] == "msg:T1:C1:1.000100"
    assert idempotency_keys({}, dict(EVENT, team="T9")) == ["msg:T9:C1:1.000100"]


@pytest.mark.parametrize(
    "extra, answered",
    [
        ({}, True),
        ({"subtype": "thread_broadcast"}, True),
        ({"subtype": "file_share"}, True),
        ({"subtype": "message_changed"}, False),
        ({"subtype": "bot_message"}, False),
        ({"subtype": "document_mention"}, False),
        ({"bot_id": "B1"}, False),
        ({"channel": None}, False),
    ],
)
def test_should_answer(extra: dict, answered: bool) -> None:
    assert should_answer({**EVENT, **extra}) is answered


def test_seen_keys_once_and_bounded() -> None:
    seen = SeenKeys(max_keys=3)
    assert [seen.seen(k) for k in "abca"] == [False, False, False, True]
    seen.seen("d")  # evicts the oldest ("a")
    assert seen.seen("b") is True
    assert seen.seen("a") is False


def test_seen_keys_claims_all_keys_or_none() -> None:
    seen = SeenKeys()
    assert seen.seen("event:Ev1", "msg:T:C:1.0") is False
    assert seen.seen("event:Ev2", "msg:T:C:1.0") is True  # an edit: same message, new event
    assert seen.seen("event:Ev2") is False  # the refused claim kept nothing


def test_seen_keys_is_atomic_under_races() -> None:
    seen = SeenKeys()
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda _: seen.seen("event:Ev1"), range(200)))
    assert answers.count(False) == 1


def test_a_failing_idempotency_check_answers_nothing(fake_slack, caplog: pytest.LogCaptureFixture) -> None:
    from bot.core.config import Settings
    from bot.slack.app import make_client
    from bot.slack.delivery.poster import SlackPoster
    from bot.slack.listeners.common import answer_message

    def broken_seen(*keys: str) -> bool:
        raise RuntimeError("database is locked")

    poster = SlackPoster(make_client(Settings(bot_token="xoxb-t", api_url=fake_slack.api_url)))
    body = {"event_id": "Ev1", "team_id": "T1", "event": EVENT}
    assert answer_message(body, EVENT, service=None, poster=poster, seen=broken_seen) is False
    assert fake_slack.calls() == []
    assert "database is locked" in caplog.text


def test_an_event_that_is_not_an_object_is_not_journaled() -> None:
    from bot.slack.delivery.journal import work_of

    assert work_of({"type": "event_callback", "event_id": "Ev3", "event": "str"}) is None
    assert work_of({"type": "event_callback", "event_id": "Ev1", "team_id": "T1", "event": EVENT})[0] == "event:Ev1"


def test_a_mention_whose_text_is_not_a_string_is_read_as_no_words_not_sorry(fake_slack, seed_index, tmp_path) -> None:
    """Over Socket Mode no HTTP check stands before the listener: an integer
    ``text`` (Slack never sends one) is read as a mention with no words."""
    from bot.core.config import Settings
    from bot.service.service import Service
    from bot.slack.app import make_client
    from bot.slack.delivery.fallback import SORRY
    from bot.slack.delivery.poster import SlackPoster
    from bot.slack.listeners.common import answer_message

    settings = Settings(bot_token="xoxb-t", api_url=fake_slack.api_url)
    poster = SlackPoster(make_client(settings))
    event = dict(EVENT, text=123)
    body = {"event_id": "Ev2", "team_id": "T1", "event": event}
    assert (
        answer_message(body, event, service=Service(seed_index, None, settings), poster=poster, seen=SeenKeys().seen)
        is True
    )
    (post,) = fake_slack.wait_for(None, where=lambda c: c.method in ("chat.postMessage", "chat.postEphemeral"))
    assert SORRY not in str(post.body) and post.method == "chat.postEphemeral"  # the help, to the user
    assert not post.body.get("thread_ts")  # beside the top-level mention, where Slack shows it
