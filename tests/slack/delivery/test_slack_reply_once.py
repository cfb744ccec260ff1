"""A reply is sent once (issue 19 point 6): a ``response_url`` answer of HTTP 200
with ``ok``, ``{"ok": true}`` or nothing is delivered; ``{"ok": false, …}``, an
error word or a 4xx is a refusal, answered by the plain text once; a 5xx is
tried again later. Through the real HTTP server against both answers of the
strict fake (``response_style``, docs/slack-rules.md [response-url])."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from bot.slack.listeners import slash_command
from tests.slack.delivery.test_slack_fallback import BROKEN, BROKEN_MESSAGE
from tests.slack.listeners.test_slack_buttons import buttons
from tests.slack.slackkit import SlackHarness


@pytest.mark.parametrize(
    "status, body, meaning",
    [
        (200, "ok", "delivered"),
        (200, '{"ok":true}', "delivered"),
        (200, '{"ok": true, "warning": "x"}', "delivered"),
        (200, "", "delivered"),
        (200, " ok\n", "delivered"),
        (200, '{"ok":false,"error":"invalid_blocks"}', "refused"),
        (200, "invalid_blocks", "refused"),
        (200, "[1, 2]", "refused"),
        (400, "invalid_blocks", "refused"),
        (404, "expired_url", "refused"),
        (403, '{"ok":false,"error":"action_prohibited"}', "refused"),
        (500, "", "try later"),
        (503, "Service Unavailable", "try later"),
    ],
)
def test_outcome_reads_every_answer_public_reports_give(status: int, body: str, meaning: str) -> None:
    from bot.slack.delivery import response_url

    assert (
        response_url.outcome(status, body)
        == {
            "delivered": response_url.DELIVERED,
            "refused": response_url.REFUSED,
            "try later": response_url.TRY_LATER,
        }[meaning]
    )


def test_a_command_reply_is_sent_once(slack: SlackHarness, response_style: str) -> None:
    _, url = slack.command("search sparse attention")
    (reply,) = slack.replies(url)
    slack.drain()
    assert reply.get("blocks")
    assert len(slack.fake.calls("response_url")) == 1  # delivered: never again, in plain text or otherwise


def test_a_button_answer_is_sent_once(slack: SlackHarness, response_style: str) -> None:
    _, url = slack.command("search learning")
    (nxt,) = buttons(slack.replies(url)[0], "results_page")
    _, page_url = slack.click("results_page", nxt)
    slack.replies(page_url)
    slack.drain()
    assert len([c for c in slack.fake.calls("response_url") if c.path == urlsplit(page_url).path]) == 1


@pytest.mark.slack_rejects
def test_a_refused_reply_gets_its_plain_text_once(
    slack: SlackHarness, response_style: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(slash_command, "render", lambda reply: BROKEN_MESSAGE)
    _, url = slack.command("search sparse")
    first, second = slack.replies(url, 2)
    slack.drain()
    assert first["blocks"] == [BROKEN] and "blocks" not in second and second["text"] == BROKEN_MESSAGE.text
    assert len(slack.fake.calls("response_url")) == 2
    refusal, plain = slack.fake.calls("response_url")
    assert (refusal.status, refusal.answer) == (
        (400, "invalid_blocks") if response_style == "text" else (200, {"ok": False, "error": "invalid_blocks"})
    )
    assert plain.answer == ("ok" if response_style == "text" else {"ok": True})


@pytest.mark.parametrize("answer", [(200, ""), (200, {"ok": True}), (200, "ok")])
def test_every_success_answer_ends_the_reply(slack: SlackHarness, monkeypatch: pytest.MonkeyPatch, answer) -> None:
    monkeypatch.setattr(slack.fake, "_respond", lambda path, body: answer)
    _, url = slack.command("search sparse attention")
    slack.replies(url)
    slack.drain()
    assert len(slack.fake.calls("response_url")) == 1


@pytest.mark.parametrize("refusal", [(200, {"ok": False, "error": "invalid_blocks"}), (403, "action_prohibited")])
def test_every_refusal_gets_the_plain_text_once(slack: SlackHarness, monkeypatch: pytest.MonkeyPatch, refusal) -> None:
    answers = iter([refusal, (200, "ok")])
    monkeypatch.setattr(slack.fake, "_respond", lambda path, body: next(answers))
    _, url = slack.command("search sparse attention")
    first, second = slack.replies(url, 2)
    slack.drain()
    assert first.get("blocks") and "blocks" not in second and second["text"] == first["text"]
    assert len(slack.fake.calls("response_url")) == 2
