"""Signed interaction payloads no Slack client sends — a ``view`` of null, a
``callback_id`` or ``action_id`` we never drew, no ``user`` — get a 400 or an
empty 200 with one WARNING line: never a 500, never a traceback (issue 20
point 4; docs/interfaces.md "Quality bars"). Over Socket Mode an answer other
than 200 is never acked, so Slack would show the user an error: the unknown
ones are answered 200 and ignored."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from tests.slack.slackkit import SlackHarness, block_actions, view_submission


def _without(payload: dict[str, Any], key: str) -> dict[str, Any]:
    out = copy.deepcopy(payload)
    out.pop(key)
    return out


def _with(payload: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(payload)
    out.update(changes)
    return out


SUBMISSION = view_submission("sparse attention")
CLICK = block_actions("paper_details", {"id": "p1"}, response_url="http://127.0.0.1:9/response/x")
SHORTCUT = {
    "type": "shortcut",
    "token": "deprecated",
    "callback_id": "search_papers",
    "trigger_id": "1337.44.abcdef",
    "user": {"id": "U0ALICE", "username": "alice", "team_id": "T0PAPERBOT"},
    "team": {"id": "T0PAPERBOT", "domain": "paperbot-test"},
}

MALFORMED = {
    "view null": _with(SUBMISSION, view=None),
    "view missing": _without(SUBMISSION, "view"),
    "unknown callback_id": _with(SUBMISSION, view=dict(SUBMISSION["view"], callback_id="not_ours")),
    "view without a type": _with(SUBMISSION, view={"id": "V1", "callback_id": "not_ours"}),
    "submission without user": _without(SUBMISSION, "user"),
    "unknown action_id": _with(CLICK, actions=[dict(CLICK["actions"][0], action_id="not_ours")]),
    "click without user": _without(CLICK, "user"),
    "click without actions": _with(CLICK, actions=[]),
    "action without action_id": _with(CLICK, actions=[{"value": "x"}]),
    "unknown shortcut": _with(SHORTCUT, callback_id="not_ours"),
    "shortcut without user": _without(SHORTCUT, "user"),
    "view_closed": {"type": "view_closed", "user": {"id": "U0ALICE"}, "view": SUBMISSION["view"]},
    "unknown type": {"type": "not_a_type", "user": {"id": "U0ALICE"}},
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_interaction_is_400_or_an_empty_200_with_one_warning(
    slack: SlackHarness, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    response = slack.interact(copy.deepcopy(MALFORMED[name]))
    slack.drain()
    assert response.status in (200, 400), (response.status, response.text)
    assert response.status == 400 or response.body in (b"", b"{}")
    # waitress itself warns "Task queue depth is N" on a loaded machine: not our line
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING and not r.name.startswith("waitress")]
    assert len(loud) == 1, [r.getMessage() for r in loud]
    assert loud[0].levelno == logging.WARNING and loud[0].exc_info is None
    assert "Traceback" not in caplog.text
    assert slack.fake.calls("views.open") == [] and slack.fake.calls("response_url") == []


def test_a_flood_of_requests_no_listener_matches_is_one_line_a_minute(slack: SlackHarness, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    unknown = MALFORMED["unknown action_id"]
    assert [slack.interact(copy.deepcopy(unknown)).status for _ in range(5)] == [200] * 5
    slack.drain()
    loud = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and not r.name.startswith("waitress")
    ]
    assert len(loud) == 1 and "no listener for a block_actions 'not_ours' from U0ALICE" in loud[0]
