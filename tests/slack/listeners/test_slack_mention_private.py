"""Help, "did you mean" and no-match answers to a mention go to the asker only
(issue 12 point 4): ``chat.postEphemeral`` — beside a top-level mention, since
Slack shows no ephemeral message in a thread without replies (issue 19 point 2;
a mention inside a thread: tests/slack/listeners/test_slack_seen_by.py) —
through the real HTTP server with signed events and the strict fake Slack."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.slackkit import SlackHarness, make_settings, mention_event, shown_strings


@pytest.mark.parametrize(
    "text, says",
    [
        ("help", "searches this workspace"),
        ("", "searches this workspace"),
        ("status please", "Did you mean `@paperbot status`?"),
        ("zzqqxv wwkkjj", "not confident"),
    ],
)
def test_help_and_no_match_answer_the_asker_only(slack: SlackHarness, text: str, says: str) -> None:
    event = mention_event(f"<@{BOT_USER_ID}> {text}", ts="1765000100.000100", user="U0ASKER")
    assert slack.event(event, event_id="Ev0PRIV1").status == 200
    (call,) = slack.fake.wait_for("chat.postEphemeral")
    slack.drain()
    assert call.body["user"] == "U0ASKER" and call.body["channel"] == "C0GENERAL"
    assert not call.body.get("thread_ts")  # shown: a top-level mention has no thread yet
    assert says in " ".join(shown_strings(call.body))
    assert slack.fake.calls("chat.postMessage") == []  # nothing in the channel


def test_a_paper_found_by_a_mention_is_still_posted_in_the_thread(slack: SlackHarness) -> None:
    event = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000101.000100")
    slack.event(event, event_id="Ev0PRIV2")
    (post,) = slack.fake.wait_for("chat.postMessage")
    slack.drain()
    assert post.body["thread_ts"] == "1765000101.000100"
    assert slack.fake.calls("chat.postEphemeral") == []


def test_a_user_who_left_gets_nothing_and_no_channel_post(slack: SlackHarness) -> None:
    slack.fake.outside["C0GENERAL"] = {"U0GONE"}
    event = mention_event(f"<@{BOT_USER_ID}> help", ts="1765000102.000100", user="U0GONE")
    slack.event(event, event_id="Ev0PRIV3")
    slack.fake.wait_for("chat.postEphemeral")
    slack.drain()
    assert slack.fake.calls("chat.postMessage") == []


@pytest.mark.parametrize("text", ["search sparse attention", "status"])
def test_search_and_status_from_a_mention_are_for_the_thread(slack: SlackHarness, text: str) -> None:
    slack.store.upsert_subscription(
        TEAM_ID, "C0GENERAL", "09:30", "Europe/Berlin", "U0ALICE", datetime.now(timezone.utc)
    )
    event = mention_event(f"<@{BOT_USER_ID}> {text}", ts="1765000103.000100")
    slack.event(event, event_id="Ev0PRIV4")
    (post,) = slack.fake.wait_for("chat.postMessage")
    slack.drain()
    assert post.body["thread_ts"] == "1765000103.000100"
    assert slack.fake.calls("chat.postEphemeral") == []
    assert "<@U0ALICE>" not in " ".join(shown_strings(post.body))  # no one is notified


def test_a_mention_not_sure_of_one_paper_lists_matches_in_the_thread(slack: SlackHarness) -> None:
    text = "hey team, do we know anything on sparse attention kernels?"
    event = mention_event(f"<@{BOT_USER_ID}> {text}", ts="1765000104.000100")
    slack.event(event, event_id="Ev0PRIV5")
    (post,) = slack.fake.wait_for("chat.postMessage")  # the strict fake accepted it
    slack.drain()
    shown = " ".join(shown_strings(post.body))
    assert post.body["thread_ts"] == "1765000104.000100" and "Not sure which paper you mean" in shown
    assert "UniSparse" in shown and slack.fake.calls("chat.postEphemeral") == []


def test_a_link_token_in_a_mention_finds_its_paper(slack_factory, fake_slack, linked_index, tmp_path) -> None:
    from bot.service.service import Service
    from bot.store import Store

    store = Store(f"sqlite:///{tmp_path / 'linked.db'}")
    try:
        slack = slack_factory(service=Service(linked_index, store, make_settings(fake_slack, tmp_path)))
        event = mention_event(
            f"check out <https://arxiv.org/abs/2401.01234v2|arxiv.org/abs/2401.01234v2> <@{BOT_USER_ID}> it's great",
            ts="1765000105.000100",
        )
        slack.event(event, event_id="Ev0PRIV6")
        (post,) = slack.fake.wait_for("chat.postMessage")
        slack.drain()
        assert "Sparse Mixture Routing for Long-Context Retrieval" in " ".join(shown_strings(post.body))
    finally:
        store.close()
