"""Values nested too deep to read (issue 20's outside run): a button ``value`` or a
modal's ``private_metadata`` of ``"[" * 1000 + "]" * 1000`` made ``json.loads``
raise ``RecursionError`` — a traceback per click and a 500 on the share modal's
submission. Every such value is read by ``bot.core.json_values.json_object``:
through the real HTTP server, signed, against the strict fake Slack, each gets
the polite answer other bad values get, and no traceback."""

from __future__ import annotations

import json
import logging

import pytest

from bot.core.json_values import DEPTH_MAX, json_object, nesting
from bot.render import ACTION_DETAILS, ACTION_PAGE
from bot.render.blocks import ACTION_MODAL_PAGE, ACTION_SHARE_TO
from bot.render.cards import SHARE_MODAL_ID
from tests.slack.slackkit import SlackHarness, view_submission

DEEP = "[" * 1000 + "]" * 1000
DEEPER = "[" * 1500 + "]" * 1500


def tracebacks(caplog) -> list[str]:
    """Log lines that carry a traceback, or are errors."""
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("action_id", [ACTION_DETAILS, ACTION_PAGE])
def test_a_deep_button_value_is_a_bad_value(slack: SlackHarness, caplog, action_id: str) -> None:
    response, url = slack.click(action_id, DEEP)
    assert response.status == 200
    (reply,) = slack.replies(url)
    slack.drain()
    assert reply["response_type"] == "ephemeral" and "couldn't read that button" in reply["text"]
    assert tracebacks(caplog) == []


@pytest.mark.parametrize(
    "action_id, value",
    [(ACTION_MODAL_PAGE, {"q": "learning", "o": 10}), (ACTION_SHARE_TO, {"id": "p7k2b"})],
)
def test_deep_private_metadata_in_a_modal_is_read_as_none(slack: SlackHarness, caplog, action_id, value) -> None:
    response, _ = slack.click(action_id, value, in_view="modal", view_id="V0MODAL", private_metadata=DEEPER)
    slack.drain()
    assert response.status == 200
    assert tracebacks(caplog) == []
    assert slack.fake.calls("views.push") or slack.fake.calls("views.update")  # the modal still answers


def test_a_share_modal_with_deep_private_metadata_cannot_be_read(slack: SlackHarness, caplog) -> None:
    payload = view_submission("", view_id="V0SHARE", callback_id=SHARE_MODAL_ID)
    payload["view"]["private_metadata"] = DEEPER
    response = slack.interact(payload)
    slack.drain()
    assert response.status == 200  # never a 500
    answer = json.loads(response.text)
    assert answer["response_action"] == "errors" and "couldn't read this form" in json.dumps(answer["errors"])
    assert tracebacks(caplog) == []


@pytest.mark.parametrize(
    "raw, expected",
    [
        ('{"q": "a [[[[[[[[[[[[ b", "o": 5}', {"q": "a [[[[[[[[[[[[ b", "o": 5}),  # brackets in a string
        ('{"a": ' + "[" * DEPTH_MAX + "]" * DEPTH_MAX + "}", None),  # one level too deep
        ("[1]", None),  # not an object
        ('{"id": "x' + "y" * 3000 + '"}', None),  # longer than Slack allows
        (None, None),
    ],
)
def test_json_object_reads_what_we_write_and_nothing_deeper(raw, expected) -> None:
    assert json_object(raw) == expected
    assert nesting('"\\"[[[[[[[[[["') == 0


@pytest.mark.parametrize("value", ["{", "null", '{"offset": 10}'])
def test_share_to_with_a_value_we_never_drew_is_one_warning(slack: SlackHarness, caplog, value) -> None:
    response, _ = slack.click(ACTION_SHARE_TO, value)  # an attacker's finding: a traceback each
    slack.drain()
    assert response.status == 200
    assert tracebacks(caplog) == []
    assert not slack.fake.calls("views.open") and not slack.fake.calls("views.push")


def test_a_modal_page_click_from_a_message_is_ignored_with_one_warning(slack: SlackHarness, caplog) -> None:
    response, _ = slack.click(ACTION_MODAL_PAGE, {"q": "learning", "o": 5})  # no view: nothing to update
    slack.drain()
    assert response.status == 200
    assert tracebacks(caplog) == []
    assert not slack.fake.calls("views.update")
    assert any("a click from no modal" in r.getMessage() for r in caplog.records)
