"""The search modal acts like channel results (issue 12 point 4): signed payloads
through the real HTTP server, the real store, the strict fake Slack — every view
it sends must pass, modal stacks stay ≤ 3 views."""

from __future__ import annotations

import json

import pytest

from bot.render.blocks import (
    ACTION_DETAILS,
    ACTION_MODAL_PAGE,
    ACTION_MODAL_PAGE_PREVIOUS,
    ACTION_SHARE,
    ACTION_SHARE_TO,
    ACTION_SIMILAR,
)
from bot.render.cards import SHARE_MODAL_ID, SHARE_TARGET_ACTION, SHARE_TARGET_BLOCK
from bot.slack.listeners.share import SHARING
from tests.fakeslack import TEAM_ID
from tests.slack.payloads import values, view_of
from tests.slack.slackkit import SlackHarness, shown_strings, view_submission


def submitted_results(slack: SlackHarness, query: str) -> dict:
    slack.interact(view_submission(query))
    (update,) = slack.fake.wait_for("views.update")
    return view_of(update)


def test_modal_results_have_buttons_a_count_and_pages(slack: SlackHarness) -> None:
    total = slack.index.search("learning", limit=10).total
    assert 10 < total <= 20  # two pages
    view = submitted_results(slack, "learning")
    ids = [v["id"] for v in values(view, ACTION_DETAILS)]
    assert len(ids) == 10 and ids == [v["id"] for v in values(view, ACTION_SIMILAR)]
    assert ids == [v["id"] for v in values(view, ACTION_SHARE_TO)]
    assert values(view, ACTION_SHARE) == []  # no channel implied in a modal
    text = " ".join(shown_strings(view["blocks"]))
    assert f"Showing 1–10 of {total}" in text
    assert values(view, ACTION_MODAL_PAGE) == [{"q": "learning", "o": 10}]

    slack.click(ACTION_MODAL_PAGE, {"q": "learning", "o": 10}, in_view="modal", view_id="V0MODAL")
    second = view_of(slack.fake.wait_for("views.update", 2)[1])
    assert f"Showing 11–{total} of {total}" in " ".join(shown_strings(second["blocks"]))
    assert values(second, ACTION_MODAL_PAGE) == []
    assert values(second, ACTION_MODAL_PAGE_PREVIOUS) == [{"q": "learning", "o": 0}]
    slack.drain()
    assert [c.body["view_id"] for c in slack.fake.calls("views.update")] == ["V0MODAL", "V0MODAL"]
    assert slack.fake.calls("views.push") == []  # paging never grows the stack


def share_submission(
    paper_id: str, target: str | None, *, response_url: str | None = None, view_id: str = "V0SHARE"
) -> dict:
    state = (
        {}
        if target is None
        else {
            SHARE_TARGET_BLOCK: {SHARE_TARGET_ACTION: {"type": "conversations_select", "selected_conversation": target}}
        }
    )
    payload = view_submission("", view_id=view_id, callback_id=SHARE_MODAL_ID)
    payload["view"].update(
        private_metadata=json.dumps({"id": paper_id, "depth": 2}), root_view_id="V0MODAL", state={"values": state}
    )
    if response_url:
        payload["response_urls"] = [
            {
                "block_id": SHARE_TARGET_BLOCK,
                "action_id": SHARE_TARGET_ACTION,
                "channel_id": target,
                "response_url": response_url,
            }
        ]
    return payload


def test_share_to_pushes_a_conversation_picker(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.click(ACTION_SHARE_TO, {"id": paper.id}, in_view="modal", view_id="V0MODAL")
    (pushed,) = slack.fake.wait_for("views.push")
    assert pushed.answer["ok"], pushed.answer
    view = view_of(pushed)
    assert view["callback_id"] == SHARE_MODAL_ID
    (picker,) = [b["element"] for b in view["blocks"] if b.get("block_id") == SHARE_TARGET_BLOCK]
    assert picker["type"] == "conversations_select" and picker["response_url_enabled"] is True
    assert "default_to_current_conversation" not in picker  # a person picked alone gets it alone


def shared_says(slack: SlackHarness, submission: dict, count: int) -> str:
    """Submit the share modal: its ack says "Sharing…" (the post is not waited for);
    return what the ``count``-th ``views.update`` of it says afterwards."""
    answer = json.loads(slack.interact(submission).body)
    assert answer["response_action"] == "update" and SHARING in json.dumps(answer["view"], ensure_ascii=False)
    update = slack.fake.wait_for("views.update", count)[count - 1]
    assert update.body["view_id"] == submission["view"]["id"]
    return " ".join(shown_strings(view_of(update)["blocks"]))


def test_sharing_from_the_modal_posts_once_and_confirms(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.fake.add_channel("C0PAPERS", bot_member=True)
    assert "Shared in <#C0PAPERS> ✓" in shared_says(slack, share_submission(paper.id, "C0PAPERS"), 1)
    assert "Already shared in <#C0PAPERS>" in shared_says(slack, share_submission(paper.id, "C0PAPERS"), 2)
    slack.drain()
    parents = [c for c in slack.fake.calls("chat.postMessage") if not c.body.get("thread_ts")]
    assert [c.body["channel"] for c in parents] == ["C0PAPERS"]
    assert paper.title[:30] in " ".join(shown_strings(parents[0].body["blocks"]))


def test_a_private_channel_without_the_bot_says_invite_first(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.fake.add_channel("G0SECRET", private=True)
    said = shared_says(slack, share_submission(paper.id, "G0SECRET"), 1)
    assert said.startswith("I can't post in that conversation. If it is a private")
    slack.fake.add_channel("C0PUBLIC")
    slack.fake.fail_channel("C0PUBLIC", "not_in_channel", ("chat.postMessage",))
    said = shared_says(slack, share_submission(paper.id, "C0PUBLIC"), 2)
    assert said.startswith("Invite @paperbot to #c0public first")
    slack.drain()
    assert slack.store.mark("share", f"{TEAM_ID}:C0PUBLIC:V0MODAL:{paper.id}") == (False, None)


def test_a_dm_is_reached_through_the_submissions_response_url(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.fake.add_channel("D0BOB", private=True)  # someone else's DM
    url = slack.fake.new_response_url()
    answer = json.loads(slack.interact(share_submission(paper.id, "D0BOB", response_url=url)).body)
    assert answer["response_action"] == "update"
    (posted,) = slack.replies(url)
    assert posted["response_type"] == "in_channel" and paper.title[:30] in json.dumps(posted)


@pytest.mark.parametrize("target", [None, ""])
def test_a_share_without_a_target_asks_for_one(slack: SlackHarness, target) -> None:
    answer = json.loads(slack.interact(share_submission("p1", target)).body)
    assert answer["response_action"] == "errors" and "Pick where" in answer["errors"][SHARE_TARGET_BLOCK]
