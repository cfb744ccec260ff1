"""Share reaches people (issue 19 point 3), through the real HTTP server and the
strict fake Slack, which refuses any post into a DM or group DM between people
(docs/slack-rules.md [dm-membership]): a person always gets the card — through
the picked conversation's ``response_url`` when Slack gives one, else in the
bot's own DM with them, naming who shared it — and a DM never ends in "invite
me"; a channel the bot is not in is joined (public) or reached through the
click's ``response_url``. Over the seeds plus papers with real links
(``linked_index``), so the card carries the paper's page.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.render import ACTION_SHARE
from bot.render.blocks import ACTION_SHARE_TO
from tests.fakeslack import BOT_USER_ID
from tests.slack.payloads import view_of
from tests.slack.slackkit import SlackHarness, shown_strings, view_submission
from tests.strict.methods import dm_of

ARXIV = "2401.01234"  # tests/slack/data/linked.jsonl: https://arxiv.org/abs/2401.01234
BETWEEN = "D0ALICEBOB"  # Alice's DM with Bob: the bot is not in it


@pytest.fixture
def slack(slack_factory, linked_index) -> SlackHarness:
    harness = slack_factory(index=linked_index)
    harness.fake.add_im(BETWEEN)
    return harness


def share_modal(slack: SlackHarness, paper_id: str = ARXIV) -> dict:
    """The share modal *Share to…* pushes (clicked in a Details modal)."""
    before = len(slack.fake.calls("views.push"))
    slack.click(ACTION_SHARE_TO, {"id": paper_id}, in_view="modal", view_id="V0MODAL")
    return view_of(slack.fake.wait_for("views.push", before + 1)[-1])


def submit(
    slack: SlackHarness,
    modal: dict,
    *,
    conversation: str | None = None,
    person: str | None = None,
    response_url: str | None = None,
) -> dict:
    """Submit ``modal`` with a conversation and/or a person picked in its inputs, as
    Slack sends it (``response_urls`` only for a conversation, when given); the
    HTTP answer (``response_action`` …)."""
    state: dict[str, Any] = {}
    urls = []
    for block in modal["blocks"]:
        element = block.get("element") or {}
        if element.get("type") == "conversations_select" and conversation:
            picked = {"type": "conversations_select", "selected_conversation": conversation}
            if response_url:
                urls.append(
                    {
                        "block_id": block["block_id"],
                        "action_id": element["action_id"],
                        "channel_id": conversation,
                        "response_url": response_url,
                    }
                )
        elif element.get("type") == "users_select" and person:
            picked = {"type": "users_select", "selected_user": person}
        else:
            continue
        state[block["block_id"]] = {element["action_id"]: picked}
    assert conversation is None or any(v for v in state.values() if "conversations_select" in str(v))
    assert person is None or any(v for v in state.values() if "users_select" in str(v)), "no person picker"
    payload = view_submission("", view_id="V0SHARE", callback_id=modal["callback_id"])
    payload["view"].update(
        private_metadata=modal["private_metadata"],
        root_view_id="V0MODAL",
        state={"values": state},
        blocks=modal["blocks"],
    )
    payload["response_urls"] = urls
    return json.loads(slack.interact(payload).body)


def said(slack: SlackHarness, count: int = 1) -> str:
    """What the share modal says once its job is done: the submission's ack turned it
    into "Sharing…"; the job's ``count``-th ``views.update`` says how it went."""
    update = slack.fake.wait_for("views.update", count, where=lambda c: c.body.get("view_id") == "V0SHARE")
    return " ".join(shown_strings(view_of(update[count - 1])["blocks"]))


def posted_cards(slack: SlackHarness) -> list:
    slack.drain()
    return [
        c
        for c in slack.fake.calls("chat.postMessage")
        if (c.answer or {}).get("ok") and not c.body.get("thread_ts") and "Shared by" in str(c.body.get("blocks"))
    ]


def test_a_person_picked_without_a_response_url_gets_it_in_the_bots_dm(slack: SlackHarness) -> None:
    answer = submit(slack, share_modal(slack), person="U0BOB")
    assert answer["response_action"] == "update", answer  # "Sharing…"
    assert "Sent to <@U0BOB> ✓" in said(slack)
    (opened,) = slack.fake.calls("conversations.open")
    assert opened.body["users"] == "U0BOB" and opened.answer["ok"]
    (card,) = posted_cards(slack)
    assert card.answer["channel"] == dm_of("U0BOB")
    shown = " ".join(shown_strings(card.body["blocks"]))
    assert "Shared by u0alice" in shown  # who shared it, by name
    assert "arxiv.org/abs/2401.01234" in json.dumps(card.body["blocks"])  # the paper's page


def test_a_dm_between_people_is_reached_through_its_response_url(slack: SlackHarness) -> None:
    url = slack.fake.new_response_url()
    answer = submit(slack, share_modal(slack), conversation=BETWEEN, response_url=url)
    assert answer["response_action"] == "update"
    (card,) = slack.replies(url)
    assert card["response_type"] == "in_channel" and "Shared by u0alice" in " ".join(shown_strings(card["blocks"]))
    assert posted_cards(slack) == []  # not a post the bot could not make


def test_a_dm_picked_without_a_response_url_never_asks_to_invite_the_bot(slack: SlackHarness) -> None:
    submit(slack, share_modal(slack), conversation=BETWEEN)
    error = said(slack)
    assert "Invite" not in error and "invite" not in error
    assert "pick the person" in error
    # picking the person then reaches them
    submit(slack, share_modal(slack), person="U0BOB")
    assert "Sent to <@U0BOB> ✓" in said(slack, 2) and len(posted_cards(slack)) == 1


def test_a_bot_picked_as_the_person_gets_a_short_answer(slack: SlackHarness) -> None:
    submit(slack, share_modal(slack), person=BOT_USER_ID)
    assert "bot" in said(slack)
    assert posted_cards(slack) == []


def test_share_from_a_message_in_a_dm_between_people_arrives_there(slack: SlackHarness) -> None:
    """``/paper search`` in Alice's DM with Bob, then Share: the bot is not in that
    DM, so the card goes through the click's ``response_url``."""
    _, url = slack.command("search sparse mixture routing", channel=BETWEEN)
    (results,) = slack.replies(url)
    (value,) = [
        json.loads(e["value"])
        for b in results["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == ACTION_SHARE and ARXIV in e["value"]
    ]
    _, click_url = slack.click(ACTION_SHARE, value, channel=BETWEEN)
    card, confirmation = slack.replies(click_url, 2)
    assert card["response_type"] == "in_channel" and card["replace_original"] is False
    assert "Shared by u0alice" in " ".join(shown_strings(card["blocks"]))
    assert "invite" not in confirmation["text"].lower()
    assert posted_cards(slack) == []


def test_a_public_channel_the_bot_is_not_in_is_joined_without_chat_write_public(slack: SlackHarness) -> None:
    slack.fake.granted = slack.fake.granted - {"chat:write.public"}
    slack.fake.add_channel("C0NEWS")  # public, the bot not in it
    _, url = slack.click(ACTION_SHARE, {"id": ARXIV}, channel="C0NEWS")
    (confirmation,) = slack.replies(url)
    assert "Shared in <#C0NEWS> ✓" in confirmation["text"]
    (card,) = posted_cards(slack)
    assert card.body["channel"] == "C0NEWS"
    assert [c.body["channel"] for c in slack.fake.calls("conversations.join")] == ["C0NEWS"]


def promises_a_thread(card: dict) -> bool:
    return "thread" in " ".join(shown_strings(card["blocks"])).lower()


def test_a_card_through_a_response_url_promises_no_thread_and_carries_the_abstract(slack: SlackHarness) -> None:
    """A DM between people, reached through the submission's ``response_url`` and through
    the click's: no thread reply can follow there, so the card says nothing of one and
    shows the abstract's start itself; a post the bot makes keeps its thread."""
    url = slack.fake.new_response_url()
    submit(slack, share_modal(slack), conversation=BETWEEN, response_url=url)
    (card,) = slack.replies(url)
    assert not promises_a_thread(card), shown_strings(card["blocks"])
    assert "We route each query token" in " ".join(shown_strings(card["blocks"]))  # a short abstract: all of it
    (long_paper,) = slack.index.by_name("KIStego")  # a seed: an abstract longer than the card's excerpt
    _, click_url = slack.click(ACTION_SHARE, {"id": long_paper.id}, channel=BETWEEN)
    card, _confirmation = slack.replies(click_url, 2)
    shown = " ".join(shown_strings(card["blocks"]))
    assert not promises_a_thread(card) and long_paper.abstract[:40] in shown and "…" in shown, shown
    assert "The full abstract: *Details*" in shown
    assert not any((c.answer or {}).get("ok") for c in slack.fake.calls("chat.postMessage"))  # tried, refused
    # where the bot can post, the card keeps its thread and the abstract follows in it
    slack.fake.add_channel("C0NEWS")
    slack.click(ACTION_SHARE, {"id": long_paper.id}, channel="C0NEWS")
    (posted,) = posted_cards(slack)
    assert promises_a_thread(posted.body)
    replies = [c for c in slack.fake.calls("chat.postMessage") if c.body.get("thread_ts") and c.answer.get("ok")]
    assert len(replies) == 1 and long_paper.abstract[:40] in json.dumps(replies[0].body, ensure_ascii=False)
