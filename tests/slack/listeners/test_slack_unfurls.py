"""Link unfurls end to end (issue 12 item 1): signed ``link_shared`` events
through the real HTTP server, ``chat.unfurl`` answered by the strict fake
(docs/slack-rules.md [unfurl]) under each manifest.

The index is the seeds plus three papers with arXiv, OpenReview and DOI
links (``linked_index`` of tests/conftest.py); seed papers carry GitHub code links.
"""

from __future__ import annotations

import json

import pytest
from slack_bolt.adapter.socket_mode.internals import run_bolt_app
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.render import ACTION_DETAILS, ACTION_SAVE, ACTION_SIMILAR
from bot.service.paper_links import PaperLinks
from bot.service.service import Service
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.slack.slackkit import SlackHarness, make_settings


@pytest.fixture
def slack(slack_factory, linked_index, fake_slack, tmp_path) -> SlackHarness:
    settings = make_settings(fake_slack, tmp_path)
    store = Store(f"sqlite:///{tmp_path / 'unfurl.db'}")
    service = Service(linked_index, store, settings)
    harness = slack_factory(service=service)
    yield harness
    store.close()


def by_source(index, source_id: str):
    (paper,) = index._lookup("source_key", source_id.casefold(), 2)  # noqa: SLF001 — test lookup
    return paper


def shared(slack: SlackHarness, urls: list[str], event_id: str, **kwargs) -> list:
    slack.event(slack.fake.link_shared(urls, **kwargs), event_id=event_id)
    slack.drain()
    return slack.fake.calls("chat.unfurl")


def test_a_known_arxiv_link_unfurls_into_a_compact_card(slack: SlackHarness, linked_index) -> None:
    paper = by_source(linked_index, "2401.01234")
    url = "https://arxiv.org/abs/2401.01234v2"
    (call,) = shared(slack, [url], "Ev0UNF1")
    assert call.answer["ok"] and call.body["channel"] == "C0GENERAL"
    (card,) = call.body["unfurls"].values()
    shown = json.dumps(card["blocks"], ensure_ascii=False)
    assert paper.title in shown and "Ada Lovelace, Alan Turing, Grace Hopper et al." in shown
    assert "ICLR 2026" in shown and paper.tldr[:40] in shown
    buttons = [e["action_id"] for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert buttons == [ACTION_DETAILS, ACTION_SIMILAR, ACTION_SAVE]  # Save: issue 13
    assert list(call.body["unfurls"]) == [url]


def test_unknown_links_are_left_alone(slack: SlackHarness) -> None:
    calls = shared(
        slack,
        [
            "https://arxiv.org/abs/9999.99999",
            "https://github.com/nobody/nothing",
            "https://openreview.net/group?id=ICLR.cc",
        ],
        "Ev0UNF2",
    )
    assert calls == []


def test_a_mixed_message_unfurls_each_known_link_once(slack: SlackHarness, linked_index) -> None:
    links = PaperLinks(linked_index)
    code = next(
        u for p in linked_index.papers() for u in p.code_urls if "github.com" in u and links.find(u) is not None
    )
    urls = [
        "https://openreview.net/pdf?id=AbC123xyz",
        "https://example.org/blog",
        "https://doi.org/10.1145/3544548.3581234",
        code,
        "https://arxiv.org/pdf/2401.01234.pdf",
    ]
    (call,) = shared(slack, urls, "Ev0UNF3")
    assert call.answer["ok"]
    assert list(call.body["unfurls"]) == [urls[0], urls[2], urls[3], urls[4]]


def test_only_the_first_links_of_an_event_are_looked_at(slack: SlackHarness) -> None:
    # An event may list thousands of links (Slack documents no limit): the first
    # UNFURLS_MAX are looked at, known or not, so its cost does not grow with the message.
    from bot.slack.listeners.unfurls import UNFURLS_MAX

    known = "https://arxiv.org/abs/2401.01234"
    unknown = [f"https://arxiv.org/abs/9999.{i:05d}" for i in range(1000)]
    last_looked_at = unknown[: UNFURLS_MAX - 1] + [known] + unknown[UNFURLS_MAX:]
    first_left_alone = unknown[:UNFURLS_MAX] + [known] + unknown[UNFURLS_MAX:]
    slack.event(slack.fake.link_shared(last_looked_at, ts="1765000600.000100"), event_id="Ev0UNF5")
    slack.event(slack.fake.link_shared(first_left_alone, ts="1765000601.000100"), event_id="Ev0UNF6")
    slack.drain()
    calls = slack.fake.calls("chat.unfurl")
    assert [(c.body["ts"], list(c.body["unfurls"])) for c in calls] == [("1765000600.000100", [known])]


def test_an_overlong_url_is_not_looked_at(slack: SlackHarness) -> None:
    from bot.slack.listeners.unfurls import URL_MAX

    padded = "https://arxiv.org/abs/2401.01234?" + "x" * URL_MAX  # names a known paper
    slack.event(slack.fake.link_shared([padded], ts="1765000602.000100"), event_id="Ev0UNF7")
    slack.event(slack.fake.link_shared([padded[: URL_MAX - 1]], ts="1765000603.000100"), event_id="Ev0UNF8")
    slack.drain()
    assert [c.body["ts"] for c in slack.fake.calls("chat.unfurl")] == ["1765000603.000100"]


def test_the_composer_preview_is_answered_with_unfurl_id_and_source(slack: SlackHarness) -> None:
    (call,) = shared(slack, ["https://arxiv.org/abs/2401.01234"], "Ev0UNF4", composer=True)
    assert call.answer["ok"]
    assert call.body["source"] == "composer" and call.body["unfurl_id"].startswith("C-")
    assert "channel" not in call.body


def test_a_card_slack_refuses_is_sent_as_plain_text(slack: SlackHarness, monkeypatch) -> None:
    from bot.slack.listeners import unfurls

    monkeypatch.setattr(unfurls, "unfurl", lambda paper: {"blocks": [{"type": "rich_text", "elements": []}]})
    refused, plain = shared(slack, ["https://arxiv.org/abs/2401.01234"], "Ev0UNF5")
    assert refused.answer["error"] == "invalid_blocks" and plain.answer["ok"]
    (entry,) = plain.body["unfurls"].values()
    assert "Sparse Mixture Routing" in entry["text"]
    slack.fake.rejections.clear()  # the one refusal was the point


def test_link_shared_through_socket_mode(slack: SlackHarness) -> None:
    payload = {
        "team_id": TEAM_ID,
        "api_app_id": "A0PAPERBOT",
        "type": "event_callback",
        "event_id": "Ev0UNFS",
        "event_time": 1765000000,
        "event": slack.fake.link_shared(["https://openreview.net/forum?id=AbC123xyz"]),
    }
    assert run_bolt_app(slack.app, SocketModeRequest("events_api", "env-u", payload)).status == 200
    (call,) = slack.fake.wait_for("chat.unfurl")
    assert call.answer["ok"]


def test_details_on_an_unfurled_card_answers_the_clicker(slack: SlackHarness, linked_index) -> None:
    from tests.slack.slackkit import block_actions

    paper = by_source(linked_index, "2401.01234")
    url = slack.fake.new_response_url()
    payload = block_actions(ACTION_DETAILS, {"id": paper.id}, response_url=url, ephemeral=False)
    payload["container"] = {
        "type": "message_attachment",
        "message_ts": "1765000500.000100",
        "attachment_id": 1,
        "channel_id": "C0GENERAL",
        "is_ephemeral": False,
        "is_app_unfurl": True,
        "app_unfurl_url": "https://arxiv.org/abs/2401.01234",
    }
    assert slack.interact(payload).status == 200
    (opened,) = slack.fake.wait_for("views.open")  # the clicker sees it in a modal
    assert opened.answer["ok"] and paper.title in json.dumps(opened.body["view"])
    assert slack.fake.calls("response_url") == []
