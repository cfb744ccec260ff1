"""Every answer is seen by the person it is for, and public results belong to
everyone (issue 19 points 2 and 4): signed events and clicks through the real
HTTP server, answered against the strict fake Slack, which records an
ephemeral message in a thread without replies as not shown and a click that
replaces someone else's public message as a defect (docs/slack-rules.md
[ephemeral-thread], [replace-original]; the ``fake_slack`` fixture fails on either).
"""

from __future__ import annotations

import pytest

from bot.render import ACTION_PAGE, ACTION_SAVE, ACTION_SHARE
from tests.slack.listeners.test_slack_buttons import buttons, page_line
from tests.slack.slackkit import SlackHarness, mention_event, shown_strings

TOP = "1765000100.000100"  # a top-level message in #general


def answers_to(slack: SlackHarness, event_id: str) -> tuple[list, list]:
    """(public posts, ephemeral posts) the bot made for one event, after it finished."""
    slack.fake.wait_for(None, where=lambda c: c.method in ("chat.postMessage", "chat.postEphemeral"))
    slack.drain()
    return slack.fake.calls("chat.postMessage"), slack.fake.calls("chat.postEphemeral")


@pytest.mark.parametrize(
    "text, says",
    [
        ("<@UBOT> help", "searches this workspace"),
        ("<@UBOT>", "searches this workspace"),
        ("<@UBOT> zzqqxv wwvvkk", "not confident"),
        ("<@UBOT> 🙂", "very common words or symbols"),
    ],
    ids=["help", "alone", "no-match", "emoji-only"],
)
def test_a_hint_for_a_top_level_mention_is_shown_to_the_asker_only(slack: SlackHarness, text: str, says: str) -> None:
    assert slack.event(mention_event(text, ts=TOP), event_id="Ev0HINT").status == 200
    public, private = answers_to(slack, "Ev0HINT")
    assert public == []  # never public
    (hint,) = private
    assert hint.body["user"] == "U0ALICE" and says in hint.body["text"]
    assert not hint.body.get("thread_ts")  # a top-level mention has no thread yet: Slack would not show it
    assert [m["shown"] for m in slack.fake.ephemerals["C0GENERAL"]] == [True]


def test_a_hint_inside_a_thread_stays_in_that_thread(slack: SlackHarness) -> None:
    slack.fake.user_message("C0GENERAL", TOP, user="U0BOB", text="what should I read?")
    reply = mention_event("<@UBOT> help", ts="1765000101.000100", thread_ts=TOP)
    assert slack.event(reply, event_id="Ev0INTHREAD").status == 200
    public, (hint,) = answers_to(slack, "Ev0INTHREAD")
    assert public == [] and hint.body["thread_ts"] == TOP
    assert slack.fake.ephemerals["C0GENERAL"][0]["shown"] is True


def public_results(slack: SlackHarness) -> dict:
    """Alice's ``@paperbot search …``: results posted for everyone in the mention's thread."""
    slack.event(mention_event("<@UBOT> search learning", ts=TOP), event_id="Ev0RESULTS")
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["thread_ts"] == TOP and not post.body.get("response_type")
    return post.body


def test_paging_someone_elses_public_results_opens_the_page_for_the_clicker_alone(slack: SlackHarness) -> None:
    results = public_results(slack)
    (nxt,) = buttons(results, ACTION_PAGE)
    _, url = slack.click(ACTION_PAGE, nxt, user="U0BOB", ephemeral=False, owner="U0ALICE", thread_ts=TOP)
    (page,) = slack.replies(url)
    assert page["response_type"] == "ephemeral" and page.get("replace_original") is not True
    assert page_line(page).startswith("Showing 6–10 of")
    # the page Bob got is his own: its Next replaces it, for him alone
    (again,) = [v for v in buttons(page, ACTION_PAGE) if v["o"] == 10]
    _, url2 = slack.click(ACTION_PAGE, again, user="U0BOB", ephemeral=True)
    (third,) = slack.replies(url2)
    assert third["replace_original"] is True and page_line(third).startswith("Showing 11–")


def test_the_asker_paging_public_results_leaves_them_for_everyone(slack: SlackHarness) -> None:
    (nxt,) = buttons(public_results(slack), ACTION_PAGE)
    _, url = slack.click(ACTION_PAGE, nxt, user="U0ALICE", ephemeral=False, owner="U0ALICE", thread_ts=TOP)
    (page,) = slack.replies(url)
    assert page["response_type"] == "ephemeral" and page.get("replace_original") is not True


def test_save_on_a_public_digest_answers_the_clicker_alone(slack: SlackHarness) -> None:
    pid = slack.index.ids()[0]
    _, url = slack.click(ACTION_SAVE, {"id": pid}, user="U0BOB", ephemeral=False)
    (note,) = slack.replies(url)
    assert note["response_type"] == "ephemeral" and note.get("replace_original") is not True
    assert "Saved" in " ".join(shown_strings(note))


def test_share_from_public_results_in_a_thread_posts_in_that_thread(slack: SlackHarness) -> None:
    results = public_results(slack)
    value = buttons(results, ACTION_SHARE)[0]
    _, url = slack.click(ACTION_SHARE, value, user="U0BOB", ephemeral=False, owner="U0ALICE", thread_ts=TOP)
    (confirmation,) = slack.replies(url)
    slack.drain()
    cards = [c for c in slack.fake.calls("chat.postMessage")[1:] if "Shared by" in str(c.body.get("blocks"))]
    (card,) = cards
    assert card.body["channel"] == "C0GENERAL" and card.body["thread_ts"] == TOP
    assert confirmation["response_type"] == "ephemeral" and confirmation.get("replace_original") is not True
    assert "Shared in this thread" in confirmation["text"]
