"""Shortcuts end to end (issue 12 point 2): signed ``message_action`` and
``shortcut`` payloads through the real HTTP server (and Socket Mode's
dispatch), the real service and index, the strict fake Slack."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.render.blocks import ACTION_DETAILS, ACTION_SHARE, ACTION_SHARE_TO, ACTION_SIMILAR
from bot.render.home import SEARCH_MODAL_ID
from tests.signing import signed_headers
from tests.slack.payloads import global_shortcut, message_action, values, view_of
from tests.slack.slackkit import SECRET, SlackHarness, shown_strings

#: Paraphrases the abstract of KIStego (training-free generative image steganography).
PARAPHRASE = (
    "Could we hide secret messages inside ordinary generated images without training "
    "any model? Sounds like image steganography <@U0BOB> &amp; cryptography."
)


def kistego(slack: SlackHarness):
    (paper,) = slack.index.by_name("KIStego")
    return paper


def test_find_related_opens_searching_then_fills_the_modal(slack: SlackHarness) -> None:
    response = slack.interact(message_action(PARAPHRASE, response_url=slack.fake.new_response_url()))
    assert (response.status, response.body) == (200, b"")
    (opened,) = slack.fake.wait_for("views.open")
    assert opened.answer["ok"], opened.answer
    assert "Searching…" in json.dumps(view_of(opened), ensure_ascii=False)
    (update,) = slack.fake.wait_for("views.update")
    slack.drain()
    assert update.body["view_id"] == opened.answer["view"]["id"]
    view = view_of(update)
    ids = [v["id"] for v in values(view, ACTION_DETAILS)]
    assert ids[0] == kistego(slack).id  # the paraphrased paper first
    assert ids == [v["id"] for v in values(view, ACTION_SIMILAR)] == [v["id"] for v in values(view, ACTION_SHARE_TO)]
    assert slack.fake.calls("response_url") == []


@pytest.mark.parametrize("text, files", [(None, True), ("", False), ("  <@U0BOB>  ", False)])
def test_a_message_without_text_gets_a_short_explanation(slack: SlackHarness, text, files) -> None:
    slack.interact(message_action(text, files=files, response_url=slack.fake.new_response_url()))
    (opened,) = slack.fake.wait_for("views.open")
    slack.drain()
    assert "has no text to read" in " ".join(shown_strings(view_of(opened)["blocks"]))
    assert slack.fake.calls("views.update") == []


@pytest.mark.slack_rejects
def test_an_expired_trigger_answers_ephemerally(slack: SlackHarness) -> None:
    url = slack.fake.new_response_url()
    payload = message_action(PARAPHRASE, response_url=url)
    trigger = slack.fake.new_trigger_id()
    slack.fake.triggers.age(trigger, 10)
    payload["trigger_id"] = trigger
    body = urlencode({"payload": json.dumps(payload)})
    assert slack.request("POST", "/slack/events", body, signed_headers(SECRET, body)).status == 200
    (reply,) = slack.replies(url)
    assert reply["response_type"] == "ephemeral"
    shares = values(reply, ACTION_SHARE)
    assert shares and shares[0]["id"] == kistego(slack).id
    assert [r.error for r in slack.fake.rejections] == ["expired_trigger_id"]


def test_the_global_shortcut_opens_the_search_modal(slack: SlackHarness) -> None:
    response = slack.interact(global_shortcut())
    assert (response.status, response.body) == (200, b"")
    (opened,) = slack.fake.wait_for("views.open")
    assert opened.answer["ok"] and view_of(opened)["callback_id"] == SEARCH_MODAL_ID


def test_socket_mode_message_shortcut(slack: SlackHarness) -> None:
    payload = message_action(PARAPHRASE, response_url=slack.fake.new_response_url())
    payload["trigger_id"] = slack.fake.new_trigger_id()
    response = run_bolt_app(slack.app, SocketModeRequest("interactive", "env-sc-1", payload))
    assert response.status == 200
    (update,) = slack.fake.wait_for("views.update")
    assert values(view_of(update), ACTION_DETAILS)[0]["id"] == kistego(slack).id


@pytest.mark.slack_rejects
def test_no_text_and_an_expired_trigger_explains_ephemerally(slack: SlackHarness) -> None:
    url = slack.fake.new_response_url()
    payload = message_action(None, files=True, response_url=url)
    trigger = slack.fake.new_trigger_id()
    slack.fake.triggers.age(trigger, 10)
    payload["trigger_id"] = trigger
    body = urlencode({"payload": json.dumps(payload)})
    slack.request("POST", "/slack/events", body, signed_headers(SECRET, body))
    (reply,) = slack.replies(url)
    assert reply["response_type"] == "ephemeral" and "has no text to read" in reply["text"]
