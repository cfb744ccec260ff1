"""End to end through the real HTTP server: signed requests in, fake Slack out.

Real waitress server + real Bolt app + real ``Service`` over a real Whoosh
index of the seeds and a real SQLite store; the fake Web API records what
the bot sends (docs/interfaces.md "Rules every reply obeys").
"""

from __future__ import annotations

import json
import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.signing import JSON, signed_headers
from tests.slack.slackkit import SECRET, SlackHarness, mention_event, shown_strings


def first_paper_id(index, payload: dict) -> str | None:
    """The id of the paper mentioned first in a reply's blocks (None if none)."""
    text = json.dumps(payload.get("blocks") or []) + "\n" + payload.get("text", "")
    ids = index.ids()
    found = [
        (m.start(), pid)
        for pid in ids
        for m in [re.search(rf"(?<![A-Za-z0-9]){re.escape(pid)}(?![A-Za-z0-9])", text)]
        if m
    ]
    return min(found)[1] if found else None


def test_signed_search_acks_empty_and_answers_with_kistego_first(slack: SlackHarness) -> None:
    response, url = slack.command("search image steganography")

    assert response.status == 200
    assert response.body == b""  # ack() with no body; the reply comes via respond()
    (reply,) = slack.replies(url)
    assert reply["response_type"] == "ephemeral"
    assert reply["unfurl_links"] is False and reply["unfurl_media"] is False
    assert reply["blocks"] and reply["text"]
    (kistego,) = slack.index.by_name("KIStego")
    assert first_paper_id(slack.index, reply) == kistego.id


def test_unsigned_and_stale_requests_are_refused_and_run_nothing(slack: SlackHarness) -> None:
    before = len(slack.fake.calls())  # auth.test from the App constructor

    unsigned, _ = slack.command("search image steganography", signed=False)
    stale, _ = slack.command("search image steganography", age_s=6 * 60)
    forged = slack.request(
        "POST",
        "/slack/events",
        "text=x",
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": "1700000000",
            "X-Slack-Signature": "v0=" + "0" * 64,
        },
    )

    assert (unsigned.status, stale.status, forged.status) == (401, 401, 401)
    # A valid request afterwards is answered, and it is the only thing that ran.
    ok, url3 = slack.command("help")
    assert ok.status == 200
    slack.drain()
    new = slack.fake.calls()[before:]
    assert [(c.method, c.path) for c in new] == [("response_url", urlsplit(url3).path)]


def test_mention_gets_exactly_one_threaded_reply_and_retries_none(slack: SlackHarness) -> None:
    event = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000000.000100")

    first = slack.event(event, event_id="Ev0MENTION1")
    assert first.status == 200
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["channel"] == "C0GENERAL"
    assert post.body["thread_ts"] == "1765000000.000100"
    assert post.body["unfurl_links"] is False and post.body["unfurl_media"] is False
    (kistego,) = slack.index.by_name("KIStego")
    assert kistego.id in json.dumps(post.body["blocks"])

    retry = slack.event(event, event_id="Ev0MENTION1", retry_num=1)
    assert retry.status == 200
    slack.drain()  # every listener has finished
    assert ("event:Ev0MENTION1", True) in slack.seen_log
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_edited_message_with_new_event_id_is_not_answered_again(slack_factory) -> None:
    slack = slack_factory(store_seen=True)  # idempotency through the real store
    event = mention_event(f"<@{BOT_USER_ID}> UniSparse", ts="1765000001.000200")
    slack.event(event, event_id="Ev0EDIT1")
    slack.fake.wait_for("chat.postMessage")

    edited = dict(event, text=f"<@{BOT_USER_ID}> UniSparse please", edited={"user": "U0ALICE", "ts": "1765000009.0"})
    assert slack.event(edited, event_id="Ev0EDIT2").status == 200
    slack.drain()
    assert (f"msg:{TEAM_ID}:C0GENERAL:1765000001.000200", True) in slack.seen_log
    assert len(slack.fake.calls("chat.postMessage")) == 1


def test_mention_inside_a_thread_replies_in_that_thread(slack: SlackHarness) -> None:
    event = mention_event(
        f"what about <@{BOT_USER_ID}> UniSparse?", ts="1765000002.000300", thread_ts="1765000000.000001"
    )
    slack.event(event, event_id="Ev0THREAD1")
    (post,) = slack.fake.wait_for("chat.postMessage")
    assert post.body["thread_ts"] == "1765000000.000001"


def test_bot_messages_and_edits_are_ignored(slack: SlackHarness) -> None:
    from_bot = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000003.0", bot_id="B0OTHER")
    changed = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000004.0", subtype="message_changed")
    human = mention_event(f"<@{BOT_USER_ID}> KIStego", ts="1765000005.0")
    for n, event in enumerate([from_bot, changed, human]):
        assert slack.event(event, event_id=f"Ev0IGN{n}").status == 200
    slack.drain()
    (post,) = slack.fake.calls("chat.postMessage")
    assert post.body["thread_ts"] == "1765000005.0"
    # The two ignored events never reached the idempotency check either.
    assert [k for k, _ in slack.seen_log if k.startswith("event:")] == ["event:Ev0IGN2"]


def test_channel_mention_in_a_search_is_never_live(slack: SlackHarness) -> None:
    response, url = slack.command("search &lt;!channel&gt; &lt;@U0ALICE&gt; &lt;https://x.y|z&gt;")
    assert response.status == 200
    (reply,) = slack.replies(url)
    for s in shown_strings(reply):
        assert "<!channel" not in s and "<@U0ALICE" not in s and "<https://x.y" not in s


@pytest.mark.parametrize(
    "words,shown",
    [
        ("KIStego", "Training-free"),  # a hit
        ("qqzzxyv", "qqzzxyv"),
    ],
)  # no hit: the query is echoed
def test_channel_mention_in_a_mention_is_never_live(slack: SlackHarness, words: str, shown: str) -> None:
    event = mention_event(f"<@{BOT_USER_ID}> <!channel> &lt;!here&gt; {words}", ts="1765000006.0")
    slack.event(event, event_id="Ev0CHAN1")
    (post,) = slack.fake.wait_for(None, where=lambda c: c.method.startswith("chat.post"))
    strings = shown_strings(post.body)
    assert any(shown in s for s in strings), strings  # the answer (or the echo) is checked below
    for s in strings:
        assert "<!channel" not in s and "<!here" not in s


def test_subscribe_passes_the_users_slack_time_zone(slack: SlackHarness) -> None:
    slack.fake.user_tz["U0TOKYO"] = "Asia/Tokyo"
    response, url = slack.command("subscribe 09:30", user="U0TOKYO", channel="C0DIGEST")
    assert response.status == 200
    slack.replies(url)
    (info,) = slack.fake.calls("users.info")
    assert info.body["user"] == "U0TOKYO"
    sub = slack.store.get_subscription(TEAM_ID, "C0DIGEST")
    assert (sub.local_time, sub.tz, sub.subscribed_by) == ("09:30", "Asia/Tokyo", "U0TOKYO")


def test_subscribe_survives_a_failing_users_info(slack: SlackHarness) -> None:
    slack.fake.fail_method("users.info", "missing_scope")
    response, url = slack.command("subscribe 07:15", channel="C0DIGEST2")
    assert response.status == 200
    slack.replies(url)
    sub = slack.store.get_subscription(TEAM_ID, "C0DIGEST2")
    assert sub.local_time == "07:15" and sub.tz == "UTC"  # PAPERBOT_DEFAULT_TZ


def test_other_commands_never_call_users_info(slack: SlackHarness) -> None:
    _, url = slack.command("search attention")
    slack.replies(url)
    assert slack.fake.calls("users.info") == []


def test_healthz_and_unknown_paths(slack: SlackHarness) -> None:
    health = slack.request("GET", "/healthz")
    assert (health.status, health.body) == (200, b"ok")
    assert slack.request("GET", "/").status == 404
    assert slack.request("GET", "/slack/events").status == 404
    assert slack.request("POST", "/healthz", "x").status == 404
    assert slack.request("POST", "/slack/other", "x").status == 404


def test_fifty_concurrent_signed_commands_all_acked(slack: SlackHarness) -> None:
    n = 50
    barrier = threading.Barrier(n)
    queries = ["search image steganography", "search sparse attention", "search chess", "speculative decoding", "help"]

    def one(i: int):
        barrier.wait()
        return slack.command(queries[i % len(queries)], user=f"U{i:04d}")

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(one, range(n)))  # a refused/reset connection raises here

    assert [r.status for r, _ in results] == [200] * n
    assert all(r.body == b"" for r, _ in results)
    for _, url in results:
        (reply,) = slack.replies(url, timeout=60)
        assert reply["text"]


def test_url_verification_challenge_is_echoed(slack: SlackHarness) -> None:
    # What Slack sends when the Request URL is entered in the app settings.
    body = json.dumps(
        {
            "token": "deprecated",
            "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
            "type": "url_verification",
        }
    )
    response = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=JSON))
    assert response.status == 200
    assert json.loads(response.body) == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


@pytest.mark.parametrize(
    "body,headers",
    [
        ("{not json", {"Content-Type": "application/json"}),
        ("[1,2]", {"Content-Type": "application/json"}),
        ("null", {"Content-Type": "application/json"}),
        ("payload=%7Bnot", {"Content-Type": "application/x-www-form-urlencoded"}),
        ("payload=[1]", {"Content-Type": "application/x-www-form-urlencoded"}),
        (
            "command=%2Fpaper&text=x",
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Slack-Request-Timestamp": "abc",
                "X-Slack-Signature": "v0=00",
            },
        ),
    ],
)
def test_unsigned_malformed_bodies_are_401_never_500(slack_factory, body, headers) -> None:
    slack = slack_factory()
    response = slack.request("POST", "/slack/events", body, headers)
    assert response.status == 401
    assert slack.fake.calls("chat.postMessage") == []


@pytest.mark.parametrize(
    "body,content_type",
    [
        ("{not json", "application/json"),
        ("[1,2]", "application/json"),
        ("null", "application/json"),
        ("payload=%7Bnot", "application/x-www-form-urlencoded"),
    ],
)
def test_signed_malformed_bodies_are_400_with_one_warning_and_no_traceback(
    slack: SlackHarness, body: str, content_type: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    response = slack.request("POST", "/slack/events", body, signed_headers(SECRET, body, content_type=content_type))
    assert response.status == 400
    # waitress itself warns "Task queue depth is N" on a loaded machine: not our line
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and not r.name.startswith("waitress")]
    assert len(warnings) == 1 and warnings[0].exc_info is None and "400" in warnings[0].getMessage()
    assert "Traceback" not in caplog.text


def test_an_unsigned_request_is_refused_with_a_log_line_saying_so(slack: SlackHarness, caplog) -> None:
    from bot.slack.transport.http_server import UNSIGNED

    caplog.set_level(logging.WARNING, logger="bot.slack.transport.http_server")
    body = json.dumps({"challenge": "x", "type": "url_verification"})
    response = slack.request("POST", "/slack/events", body, {"Content-Type": JSON})
    assert response.status == 401 and b"challenge" not in response.body
    assert [r.getMessage() for r in caplog.records if r.name == "bot.slack.transport.http_server"] == [
        f"rejected a request to /slack/events (401): {UNSIGNED}"
    ]
