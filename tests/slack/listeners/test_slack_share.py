"""*Share* end to end (issue 12 point 4): signed ``block_actions`` through the real
HTTP server, the real store, the strict fake Slack. One card per message and
paper, posted with ``chat.postMessage`` (abstract in the thread, the sharer by
name), the results redrawn in place with "Shared in #channel ✓"."""

from __future__ import annotations

import json

import pytest

from bot.render import ACTION_SHARE
from tests.slack.listeners.test_slack_buttons import buttons
from tests.slack.slackkit import SlackHarness, shown_strings


def search(slack: SlackHarness, query: str = "sparse attention") -> dict:
    _, url = slack.command(f"search {query}")
    (reply,) = slack.replies(url)
    return reply


def parents(slack: SlackHarness, channel: str = "C0GENERAL") -> list:
    return [
        c
        for c in slack.fake.calls("chat.postMessage")
        if c.body.get("channel") == channel and not c.body.get("thread_ts") and (c.answer or {}).get("ok")
    ]


def test_share_posts_a_compact_card_once_and_marks_the_row(slack: SlackHarness) -> None:
    results = search(slack)
    value = buttons(results, ACTION_SHARE)[0]
    assert value["q"] == "sparse attention" and value["o"] == 0
    paper = slack.index.get(value["id"])

    _, url = slack.click(ACTION_SHARE, value, user="U0BOB")
    (redrawn,) = slack.replies(url)
    (card,) = parents(slack)
    shown = " ".join(shown_strings(card.body["blocks"]))
    assert paper.title[:30] in shown and "Shared by u0bob" in shown
    assert "<@U0BOB>" not in json.dumps(card.body)  # the sharer is not notified
    assert paper.tldr[:30] in shown or not paper.tldr
    thread = [c for c in slack.fake.calls("chat.postMessage") if c.body.get("thread_ts")]
    assert len(thread) == 1 and paper.abstract[:40] in " ".join(shown_strings(thread[0].body))

    assert redrawn["replace_original"] is True  # confirmed in place
    assert "Shared in <#C0GENERAL> ✓" in json.dumps(redrawn["blocks"], ensure_ascii=False)
    assert value["id"] not in [v["id"] for v in buttons(redrawn, ACTION_SHARE)]
    assert len(buttons(redrawn, ACTION_SHARE)) == len(buttons(results, ACTION_SHARE)) - 1

    _, again = slack.click(ACTION_SHARE, value, user="U0BOB")  # a second click
    (second,) = slack.replies(again)
    slack.drain()
    assert "already shared" in second["text"] and second["replace_original"] is False
    assert len(parents(slack)) == 1  # still one post


def test_share_into_a_private_channel_without_the_bot_goes_through_the_clicks_response_url(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    slack.fake.add_channel("G0SECRET", private=True)
    paper = slack.index.get(slack.index.ids()[0])
    _, url = slack.click(ACTION_SHARE, {"id": paper.id}, channel="G0SECRET")
    card, ok = slack.replies(url, 2)
    assert card["response_type"] == "in_channel" and card["replace_original"] is False
    assert paper.title[:30] in " ".join(shown_strings(card["blocks"]))
    assert ok["response_type"] == "ephemeral" and "Shared in <#G0SECRET> ✓" in ok["text"]
    # Slack refuses that too (an admin's restriction): then, and only then, "invite me"
    refuse_cards = slack.fake._respond
    monkeypatch.setattr(
        slack.fake,
        "_respond",
        lambda path, body: (
            (403, "action_prohibited") if body.get("response_type") == "in_channel" else refuse_cards(path, body)
        ),
    )
    other = slack.index.get(slack.index.ids()[1])
    _, url2 = slack.click(ACTION_SHARE, {"id": other.id}, channel="G0SECRET")
    _, reply = slack.replies(url2, 2)
    assert "Invite @paperbot to <#G0SECRET> first" in reply["text"] and reply["response_type"] == "ephemeral"
    slack.fake.add_channel("G0SECRET", private=True, bot_member=True)  # invited: now it is posted
    _, url3 = slack.click(ACTION_SHARE, {"id": other.id}, channel="G0SECRET")
    (done,) = slack.replies(url3)
    assert "Shared in <#G0SECRET> ✓" in done["text"]
    assert len(parents(slack, "G0SECRET")) == 1


@pytest.mark.parametrize("value", [{"id": "zz99nope"}, "[1, 2]"])
def test_a_bad_share_posts_nothing(slack: SlackHarness, value) -> None:
    _, url = slack.click(ACTION_SHARE, value)
    (reply,) = slack.replies(url)
    slack.drain()
    assert reply["response_type"] == "ephemeral"
    assert slack.fake.calls("chat.postMessage") == []
