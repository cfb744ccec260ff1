"""The reading list and the channel behave as people expect (issue 19 point 7, the
Slack side): *Save* and *Remove* update the message clicked, *Remove* asks
first naming the paper, an export leaves one message with its file or none,
and ``/paper unsubscribe`` is announced like subscribe. Signed requests through
the real HTTP server, the strict fake Slack (which checks the ``confirm``
dialog, docs/slack-rules.md [confirm]), over the seeds plus papers with links.
"""

from __future__ import annotations

import json

import pytest

from bot.render import ACTION_READING_LIST_EXPORT, ACTION_READING_LIST_REMOVE, ACTION_SAVE, ACTION_SHARE
from bot.render.blocks import ACTION_DETAILS
from tests.fakeslack import TEAM_ID
from tests.slack.listeners.test_slack_buttons import buttons
from tests.slack.payloads import view_of
from tests.slack.slackkit import SlackHarness, block_actions, mention_event, shown_strings
from tests.strict.methods import dm_of

ARXIV = "2401.01234"


@pytest.fixture
def slack(slack_factory, linked_index) -> SlackHarness:
    return slack_factory(index=linked_index)


def elements(body: dict, action_id: str) -> list[dict]:
    return [
        e
        for b in body.get("blocks") or []
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") == action_id
    ]


def test_save_on_my_results_marks_the_row_in_place(slack: SlackHarness) -> None:
    _, url = slack.command("search sparse mixture routing")
    (results,) = slack.replies(url)
    first, second = buttons(results, ACTION_SAVE)[:2]
    assert first["id"] == ARXIV and first["q"] == "sparse mixture routing"  # the page rides along
    _, click = slack.click(ACTION_SAVE, first)
    (redrawn,) = slack.replies(click)
    assert redrawn["replace_original"] is True  # the message clicked, not a new one
    assert ARXIV not in [v["id"] for v in buttons(redrawn, ACTION_SAVE)]
    assert second["id"] in [v["id"] for v in buttons(redrawn, ACTION_SAVE)]
    assert "Saved to your reading list ✓" in " ".join(shown_strings(redrawn["blocks"]))
    assert [v["id"] for v in buttons(redrawn, ACTION_DETAILS)] == [v["id"] for v in buttons(results, ACTION_DETAILS)]
    # a second Save on the same page keeps the first mark
    _, click2 = slack.click(ACTION_SAVE, second)
    (again,) = slack.replies(click2)
    assert " ".join(shown_strings(again["blocks"])).count("Saved to your reading list ✓") == 2
    assert slack.store.reading_list_count(TEAM_ID, "U0ALICE") == 2


def test_save_and_share_on_my_paper_card_mark_it_in_place(slack: SlackHarness) -> None:
    _, url = slack.command(f"show {ARXIV}")
    (card,) = slack.replies(url)
    (save,) = buttons(card, ACTION_SAVE)
    assert save == {"card": 1, "id": ARXIV}
    _, click = slack.click(ACTION_SAVE, save)
    (saved,) = slack.replies(click)
    assert saved["replace_original"] is True and buttons(saved, ACTION_SAVE) == []
    assert "arxiv.org/abs/2401.01234" in json.dumps(saved["blocks"])  # still the whole card
    (share,) = buttons(saved, ACTION_SHARE)
    _, click2 = slack.click(ACTION_SHARE, share)
    (shared,) = slack.replies(click2)
    assert shared["replace_original"] is True and buttons(shared, ACTION_SHARE) == []
    text = " ".join(shown_strings(shared["blocks"]))
    assert "Shared in <#C0GENERAL> ✓" in text and "Saved to your reading list ✓" in text


def test_save_in_a_modal_updates_that_modal(slack: SlackHarness) -> None:
    """A Details modal (its blocks as Slack sends them back in the click): Save
    marks the paper in that modal, no new modal on top."""
    _, url = slack.command(f"show {ARXIV}")
    (card,) = slack.replies(url)
    payload = block_actions(ACTION_SAVE, {"id": ARXIV}, in_view="modal", view_id="V0DETAILS")
    payload["view"].update(
        blocks=card["blocks"],
        title={"type": "plain_text", "text": "paperbot", "emoji": True},
        close={"type": "plain_text", "text": "Close", "emoji": True},
        private_metadata='{"depth": 1}',
    )
    assert slack.interact(payload).status == 200
    (update,) = slack.fake.wait_for("views.update")
    slack.drain()
    assert update.body["view_id"] == "V0DETAILS" and update.answer["ok"]
    view = view_of(update)
    assert buttons(view, ACTION_SAVE) == [] and "Saved to your reading list ✓" in " ".join(
        shown_strings(view["blocks"])
    )
    assert view["private_metadata"] == '{"depth": 1}' and view["title"]["text"] == "paperbot"
    assert slack.fake.calls("views.push") == [] and slack.fake.calls("response_url")[1:] == []


def test_remove_asks_first_naming_the_paper_and_says_so_once(slack: SlackHarness) -> None:
    slack.click(ACTION_SAVE, {"id": ARXIV})
    slack.fake.wait_for("response_url")
    title = slack.index.get(ARXIV).title
    _, url = slack.command("saved")
    (page,) = slack.replies(url)
    (remove,) = elements(page, ACTION_READING_LIST_REMOVE)
    confirm = remove["confirm"]
    assert title in confirm["text"]["text"] and confirm["confirm"]["text"] == "Remove"
    assert confirm["style"] == "danger" and confirm["deny"]["text"]
    _, click = slack.click(ACTION_READING_LIST_REMOVE, json.loads(remove["value"]))
    (after,) = slack.replies(click)
    assert after["replace_original"] is True
    shown = " ".join(shown_strings(after["blocks"]))
    assert shown.count("from your reading list") == 1 and f"Removed “{title}”" in shown


def test_a_failed_upload_leaves_no_export_message_and_a_retry_leaves_one(slack: SlackHarness) -> None:
    slack.click(ACTION_SAVE, {"id": ARXIV})
    slack.fake.wait_for("response_url")
    dm = dm_of("U0ALICE")
    slack.fake.fail_method("files.completeUploadExternal", "internal_error")
    _, url = slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    assert "internal_error" in " ".join(shown_strings(slack.replies(url)[0]))
    assert [m for m in slack.fake.history.get(dm, []) if m.get("user") == "UBOT"] == []  # deleted again
    slack.fake.stop_failing("files.completeUploadExternal")
    _, url2 = slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    assert "BibTeX" in " ".join(shown_strings(slack.replies(url2)[0]))
    slack.drain()
    lists = [m for m in slack.fake.history[dm] if m.get("user") == "UBOT"]
    files = [m for m in slack.fake.history[dm] if m.get("subtype") == "file_share"]
    assert len(lists) == 1 and len(files) == 1 and files[0]["thread_ts"] == lists[0]["ts"]


def test_unsubscribe_is_announced_in_the_channel_like_subscribe(slack: SlackHarness) -> None:
    _, url = slack.command("subscribe 09:00 UTC")
    slack.replies(url)
    (subscribed,) = slack.fake.wait_for("chat.postMessage")
    assert "<@U0ALICE>" in subscribed.body["text"] and subscribed.body["channel"] == "C0GENERAL"
    _, url2 = slack.command("unsubscribe")
    (note,) = slack.replies(url2)
    assert note["response_type"] == "ephemeral" and "Unsubscribed" in note["text"]
    slack.drain()
    _, stopped = slack.fake.calls("chat.postMessage")
    assert stopped.body["channel"] == "C0GENERAL" and stopped.answer["ok"]
    assert "<@U0ALICE>" in stopped.body["text"] and "stopped the paper of the day" in stopped.body["text"]


def test_unsubscribe_by_mention_is_announced_once_and_answered_to_the_asker(slack: SlackHarness) -> None:
    _, url = slack.command("subscribe 09:00 UTC")
    slack.replies(url)
    slack.fake.wait_for("chat.postMessage")
    slack.event(mention_event("<@UBOT> unsubscribe", ts="1765000200.000100"), event_id="Ev0UNSUB")
    slack.fake.wait_for("chat.postEphemeral")
    slack.drain()
    posts = [c for c in slack.fake.calls("chat.postMessage")[1:]]
    assert len(posts) == 1 and "stopped the paper of the day" in posts[0].body["text"]
    (note,) = slack.fake.calls("chat.postEphemeral")
    assert "Unsubscribed" in note.body["text"] and not note.body.get("thread_ts")
