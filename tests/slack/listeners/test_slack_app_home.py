"""App Home and the search modal end to end (issue 5 item 4).

Signed ``app_home_opened`` events, ``block_actions`` from the Home tab and
``view_submission`` payloads through the real HTTP server; the views the bot
sends to the fake Slack must pass slack_sdk's ``View`` validation.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

from slack_sdk.models.views import View

from bot.render import ACTION_DETAILS, ACTION_HOME_SEARCH, ACTION_SHARE, ACTION_SIMILAR
from bot.render.home import SEARCH_INPUT_BLOCK, SEARCH_MODAL_ID
from tests.fakeslack import TEAM_ID
from tests.slack.slackkit import SlackHarness, shown_strings, view_submission


def home_opened(user: str = "U0ALICE", tab: str = "home") -> dict:
    """An ``app_home_opened`` event (docs.slack.dev/reference/events/app_home_opened)."""
    return {"type": "app_home_opened", "user": user, "channel": "D0ALICE", "tab": tab, "event_ts": f"{time.time():.6f}"}


def checked(view: dict) -> dict:
    """``view`` after slack_sdk's validation and the 100-block limit."""
    View(**view).validate_json()
    assert 0 < len(view["blocks"]) <= 100
    return view


def sent_view(call) -> dict:
    """The ``view`` argument of a recorded views.* call (JSON body or form field)."""
    view = call.body["view"]
    return json.loads(view) if isinstance(view, str) else view


def subscribe(slack: SlackHarness, channel: str, at: str = "09:30", tz: str = "Europe/Berlin") -> None:
    slack.store.upsert_subscription(TEAM_ID, channel, at, tz, "U0ALICE", datetime.now(timezone.utc))


def actions_in(view: dict, action_id: str) -> list[dict]:
    return [
        json.loads(e["value"])
        for b in view["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") == action_id
    ]


def test_home_shows_the_viewers_subscribed_channels_in_one_publish(slack: SlackHarness) -> None:
    subscribe(slack, "C0DIGEST")
    subscribe(slack, "C0ELSEWHERE", "07:00", "Asia/Tokyo")  # the viewer is not in it
    slack.fake.memberships["U0ALICE"] = ["C0RANDOM", "C0GENERAL", "C0DIGEST"]
    slack.fake.member_page_size = 2  # C0DIGEST is on page 2

    assert slack.event(home_opened(), event_id="Ev0HOME1").status == 200
    slack.fake.wait_for("views.publish")
    slack.drain()
    (publish,) = slack.fake.calls("views.publish")
    assert publish.body["user_id"] == "U0ALICE"
    view = checked(sent_view(publish))
    assert view["type"] == "home"
    text = "\n".join(shown_strings(view))
    assert "<#C0DIGEST> · a paper of the day every day at 09:30 (Europe/Berlin)" in text
    assert "C0ELSEWHERE" not in text
    assert len(slack.fake.calls("users.conversations")) == 2  # one paginated listing
    today = actions_in(view, ACTION_DETAILS)
    assert len(today) == 1 and today[0]["id"] in slack.index.ids()
    assert actions_in(view, ACTION_HOME_SEARCH)


def test_home_without_subscriptions_asks_slack_nothing_more(slack: SlackHarness) -> None:
    slack.event(home_opened(), event_id="Ev0HOME2")
    slack.fake.wait_for("views.publish")
    slack.drain()
    assert slack.fake.calls("users.conversations") == []
    (publish,) = slack.fake.calls("views.publish")
    assert "None yet" in json.dumps(sent_view(publish))


def test_home_still_opens_when_membership_cannot_be_read(slack: SlackHarness) -> None:
    subscribe(slack, "C0DIGEST")
    slack.fake.fail_method("users.conversations", "missing_scope")
    slack.event(home_opened(), event_id="Ev0HOME3")
    (publish,) = slack.fake.wait_for("views.publish")
    view = checked(sent_view(publish))
    assert "C0DIGEST" not in json.dumps(view)


def test_home_is_refreshed_on_each_open_and_the_messages_tab_is_ignored(slack: SlackHarness) -> None:
    slack.event(home_opened(), event_id="Ev0HOME4")
    slack.event(home_opened(tab="messages"), event_id="Ev0HOME5")
    slack.event(home_opened(), event_id="Ev0HOME6")
    slack.fake.wait_for("views.publish", 2)
    slack.drain()
    assert len(slack.fake.calls("views.publish")) == 2


def test_search_papers_button_opens_the_modal(slack: SlackHarness) -> None:
    response, _ = slack.click(ACTION_HOME_SEARCH, {"open": 1}, in_view="home")
    assert (response.status, response.body) == (200, b"")
    (opened,) = slack.fake.wait_for("views.open")
    assert opened.answer["ok"], opened.answer  # a fresh trigger_id, used once
    view = checked(sent_view(opened))
    assert view["callback_id"] == SEARCH_MODAL_ID
    assert view["blocks"][0]["block_id"] == SEARCH_INPUT_BLOCK


def test_modal_search_acks_searching_then_updates_with_results(slack: SlackHarness) -> None:
    response = slack.interact(view_submission("image steganography"))

    assert response.status == 200
    ack = json.loads(response.body)
    assert ack["response_action"] == "update"
    assert "Searching…" in json.dumps(checked(ack["view"]), ensure_ascii=False)
    slack.fake.wait_for("views.update")
    slack.drain()
    (update,) = slack.fake.calls("views.update")
    assert update.body["view_id"] == "V0MODAL"
    view = checked(sent_view(update))
    assert view["callback_id"] == SEARCH_MODAL_ID
    (paper,) = slack.index.by_name("KIStego")
    assert paper.id in json.dumps(view)
    assert "Searching…" not in json.dumps(view, ensure_ascii=False)


def test_modal_with_a_bad_query_explains_it(slack: SlackHarness) -> None:
    response = slack.interact(view_submission("((( \""))  # only syntax, no words
    assert json.loads(response.body)["response_action"] == "update"
    (update,) = slack.fake.wait_for("views.update")
    view = checked(sent_view(update))
    assert "Type some words" in json.dumps(view)


def test_empty_modal_query_is_an_error_on_the_input(slack: SlackHarness) -> None:
    for query in ["   ", None]:
        response = slack.interact(view_submission(query))
        assert response.status == 200
        ack = json.loads(response.body)
        assert ack["response_action"] == "errors"
        assert set(ack["errors"]) == {SEARCH_INPUT_BLOCK}
    slack.drain()
    assert slack.fake.calls("views.update") == []


def test_details_clicked_in_the_home_tab_opens_a_modal(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    response, url = slack.click(ACTION_DETAILS, {"id": paper.id}, in_view="home")
    assert response.status == 200 and url is None
    (opened,) = slack.fake.wait_for("views.open")
    view = checked(sent_view(opened))
    assert view["type"] == "modal" and paper.id in json.dumps(view)
    assert actions_in(view, ACTION_SHARE) == []  # no channel to share into…
    assert [v["id"] for v in actions_in(view, "paper_share_to")] == [paper.id]  # …so: pick one


def test_similar_clicked_in_a_modal_is_pushed_on_top(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.click(ACTION_SIMILAR, {"id": paper.id}, in_view="modal", view_id="V0DETAILS")
    (pushed,) = slack.fake.wait_for("views.push")
    view = checked(sent_view(pushed))
    assert "Papers like" in json.dumps(view)


def test_a_full_modal_stack_updates_the_current_view(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.fake.fail_method("views.push", "push_limit_reached")
    slack.click(ACTION_DETAILS, {"id": paper.id}, in_view="modal", view_id="V0THIRD")
    (update,) = slack.fake.wait_for("views.update")
    assert update.body["view_id"] == "V0THIRD"
    checked(sent_view(update))


def test_tampered_value_in_the_home_tab_gets_a_polite_modal(slack: SlackHarness) -> None:
    response, _ = slack.click(ACTION_DETAILS, "{not json", in_view="home")
    assert response.status == 200
    (opened,) = slack.fake.wait_for("views.open")
    assert "couldn't read that button" in json.dumps(checked(sent_view(opened)))


def test_clicks_in_modals_push_until_three_views_then_update(slack: SlackHarness) -> None:
    (paper,) = slack.index.by_name("KIStego")
    slack.click(ACTION_DETAILS, {"id": paper.id}, in_view="home")
    (opened,) = slack.fake.wait_for("views.open")
    view_id, metadata = opened.answer["view"]["id"], sent_view(opened)["private_metadata"]
    for n in (1, 2, 3):  # click Similar inside the top modal each time
        slack.click(ACTION_SIMILAR, {"id": paper.id}, in_view="modal", view_id=view_id, private_metadata=metadata)
        if n < 3:
            (pushed,) = slack.fake.wait_for("views.push", n)[n - 1 :]
            assert pushed.answer["ok"], pushed.answer
            view_id, metadata = pushed.answer["view"]["id"], sent_view(pushed)["private_metadata"]
    (update,) = slack.fake.wait_for("views.update")
    slack.drain()
    assert update.body["view_id"] == view_id  # the third view, replaced
    assert len(slack.fake.calls("views.push")) == 2
    assert slack.fake.stacks.depth(view_id) == 3


def test_share_to_from_the_home_tab_opens_the_picker(slack: SlackHarness) -> None:
    slack.event(home_opened(), event_id="Ev0HOME9")
    (publish,) = slack.fake.wait_for("views.publish")
    (value,) = actions_in(sent_view(publish), "paper_share_to")
    slack.click("paper_share_to", value, in_view="home")
    (opened,) = slack.fake.wait_for("views.open")
    assert opened.answer["ok"], opened.answer
    assert sent_view(opened)["callback_id"] == "share_modal"
