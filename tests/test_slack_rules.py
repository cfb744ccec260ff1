"""The strict fake's rule set (tests/strict) refuses what Slack refuses and
accepts what it accepts — one case per rule of docs/slack-rules.md."""

from __future__ import annotations

import pytest

from tests.strict.surfaces import ResponseUrls, Triggers, check_message, check_view


def text(s: str, kind: str = "mrkdwn") -> dict:
    return {"type": kind, "text": s}


def button(label: str = "Go", action_id: str = "a", **extra) -> dict:
    return {"type": "button", "text": text(label, "plain_text"), "action_id": action_id, **extra}


def section(s: str = "hi", **extra) -> dict:
    return {"type": "section", "text": text(s), **extra}


GOOD = [
    section(),
    {"type": "header", "text": text("Title", "plain_text")},
    {"type": "context", "elements": [text("a"), text("b", "plain_text")]},
    {"type": "actions", "elements": [button(action_id="a"), button(action_id="b")]},
    {"type": "divider"},
    section(fields=[text("x")] * 10),
]

BAD = [
    (
        "action-id",
        [{"type": "actions", "elements": [button(action_id="p"), button(action_id="p")]}],
        "action_id must be unique within a block",
    ),
    ("block-id", [section(block_id="x"), section(block_id="x")], "block_id must be unique"),
    ("section", [{"type": "section"}], "either `text` or `fields`"),
    ("section", [section("")], "more than 0 characters"),
    ("section", [section("x" * 3001)], "less than 3001 characters"),
    ("section", [section(fields=[text("x")] * 11)], "no more than 10 items"),
    ("header", [{"type": "header", "text": text("x" * 151, "plain_text")}], "less than 151"),
    ("header", [{"type": "header", "text": text("Title")}], "must be a plain_text object"),
    ("header", [{"type": "header"}], "missing required field: text"),
    ("context", [{"type": "context", "elements": [text("a")] * 11}], "no more than 10 items"),
    ("button", [{"type": "actions", "elements": [button("x" * 76)]}], "less than 76"),
    ("button", [{"type": "actions", "elements": [button("")]}], "more than 0 characters"),
    ("button", [{"type": "actions", "elements": [button(value="v" * 2001)]}], "less than 2001"),
    ("button", [{"type": "actions", "elements": [button(url="https://x/" + "u" * 2991)]}], "less than 3001"),
    ("button", [{"type": "actions", "elements": [button(accessibility_label="l" * 76)]}], "less than 76"),
    (
        "option",
        [
            section(
                accessory={
                    "type": "static_select",
                    "action_id": "s",
                    "options": [{"text": text("a", "plain_text"), "value": ""}],
                }
            )
        ],
        "more than 0 characters",
    ),
    ("blocks-max", [section()] * 51, "no more than 50 items"),
    (
        "confirm",
        [{"type": "actions", "elements": [button(confirm={"title": text("Sure?", "plain_text"), "text": text("x")})]}],
        "[json-pointer:/blocks/0/elements/0/confirm/confirm]",
    ),
    (
        "confirm",
        [
            {
                "type": "actions",
                "elements": [
                    button(
                        confirm={
                            "title": text("t" * 101, "plain_text"),
                            "text": text("x"),
                            "confirm": text("Yes", "plain_text"),
                            "deny": text("No", "plain_text"),
                        }
                    )
                ],
            }
        ],
        "less than 101",
    ),
    (
        "confirm",
        [
            {
                "type": "actions",
                "elements": [
                    button(
                        confirm={
                            "title": text("Sure?", "plain_text"),
                            "text": text("x" * 301),
                            "confirm": text("Yes", "plain_text"),
                            "deny": text("N" * 31, "plain_text"),
                        }
                    )
                ],
            }
        ],
        "less than 31",
    ),
    (
        "users-select",
        [section(accessory={"type": "users_select", "action_id": "u", "placeholder": text("p" * 151, "plain_text")})],
        "less than 151",
    ),
    (
        "text-object",
        [{"type": "section", "text": {"type": "mrkdwn", "text": "x", "emoji": True}}],
        "emoji is only allowed on plain_text",
    ),
]


def test_good_blocks_pass() -> None:
    assert check_message({"text": "fallback", "blocks": GOOD}) is None


@pytest.mark.parametrize("rule,blocks,message", BAD, ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(BAD)])
def test_each_rule_refuses_with_slacks_answer(rule: str, blocks: list, message: str) -> None:
    error, messages = check_message({"text": "fallback", "blocks": blocks})
    assert error == "invalid_blocks"
    assert any(message in m and "[json-pointer:/blocks" in m for m in messages), messages


def test_a_good_confirm_dialog_and_users_select_pass() -> None:
    confirm = {
        "title": text("Remove this paper?", "plain_text"),
        "text": text("Remove “UniSparse” from your reading list?", "plain_text"),
        "confirm": text("Remove", "plain_text"),
        "deny": text("Keep it", "plain_text"),
        "style": "danger",
    }
    blocks = [
        {"type": "actions", "elements": [button(confirm=confirm)]},
        section(accessory={"type": "users_select", "action_id": "u", "placeholder": text("Pick", "plain_text")}),
    ]
    assert check_message({"text": "x", "blocks": blocks}) is None


def test_message_text_rules() -> None:
    assert check_message({"text": ""}) == ("no_text", [])
    assert check_message({"text": "x" * 40_001}) == ("msg_too_long", [])
    assert check_message({"text": "x", "metadata": {"event_type": "bad type!", "event_payload": {}}}) == (
        "invalid_metadata_format",
        [],
    )
    assert (
        check_message(
            {"text": "x", "metadata": {"event_type": "paperbot_digest", "event_payload": {"day": "2026-12-01"}}}
        )
        is None
    )


def modal(**extra) -> dict:
    return {"type": "modal", "title": text("paperbot", "plain_text"), "blocks": [section()], **extra}


@pytest.mark.parametrize(
    "view,message",
    [
        (modal(title=text("t" * 25, "plain_text")), "less than 25"),
        (modal(submit=text("s" * 25, "plain_text")), "less than 25"),
        (modal(close=text("Close")), "must be a plain_text object"),
        (modal(private_metadata="m" * 3001), "less than 3001"),
        (modal(blocks=[section()] * 101), "no more than 100 items"),
        (
            modal(
                blocks=[
                    {
                        "type": "input",
                        "label": text("L", "plain_text"),
                        "element": {"type": "plain_text_input", "action_id": "q"},
                    }
                ]
            ),
            "submit is required",
        ),
        ({"type": "modal", "blocks": [section()]}, "missing required field: title"),
    ],
)
def test_view_rules(view: dict, message: str) -> None:
    error, messages = check_view(view, method="views.open")
    assert error == "invalid_arguments" and any(message in m for m in messages), messages


def test_a_home_view_takes_100_blocks_and_no_title() -> None:
    assert check_view({"type": "home", "blocks": [section()] * 100}, method="views.publish") is None
    assert (
        check_view({"type": "modal", "title": text("x", "plain_text"), "blocks": [section()]}, method="views.publish")[
            0
        ]
        == "invalid_arguments"
    )


def test_trigger_ids_work_once_within_three_seconds() -> None:
    now = [100.0]
    triggers = Triggers(clock=lambda: now[0])
    first, late = triggers.issue(), triggers.issue()
    assert triggers.use(first) is None
    assert triggers.use(first) == "exchanged_trigger_id"
    now[0] += 3.5
    assert triggers.use(late) == "expired_trigger_id"
    assert triggers.use("1.2.3") == "invalid_trigger_id"


def test_a_response_url_takes_five_posts_within_thirty_minutes() -> None:
    now = [0.0]
    urls = ResponseUrls(clock=lambda: now[0])
    urls.issue("/response/1")
    urls.issue("/response/2")
    assert [urls.use("/response/1") for _ in range(6)] == [None] * 5 + ["expired_url"]
    now[0] += 30 * 60 + 1
    assert urls.use("/response/2") == "expired_url"
    assert urls.use("/response/9") == "expired_url"


def test_the_fake_answers_missing_scope_not_in_channel_and_a_rejected_response_url(tmp_path) -> None:
    import json
    import urllib.request

    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    from tests.fakeslack import FakeSlack

    def manifest(name: str, scopes: list[str]):
        path = tmp_path / name
        path.write_text(f"oauth_config:\n  scopes:\n    bot: {json.dumps(scopes)}\n")
        return path

    with FakeSlack(manifest("narrow.yml", ["chat:write", "commands"])) as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        with pytest.raises(SlackApiError) as no_scope:
            client.conversations_history(channel="C1")
        assert no_scope.value.response["error"] == "missing_scope"
        assert no_scope.value.response["needed"] == "channels:history"
        assert no_scope.value.response["provided"] == "chat:write,commands"
    with FakeSlack(manifest("wide.yml", ["chat:write", "channels:history", "channels:join"])) as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        with pytest.raises(SlackApiError) as outside:
            client.conversations_history(channel="C1")
        assert outside.value.response["error"] == "not_in_channel"
        client.conversations_join(channel="C1")
        assert client.conversations_history(channel="C1")["ok"]
        url = fake.new_response_url()
        bad = {"text": "x", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": ""}}]}
        request = urllib.request.Request(url, json.dumps(bad).encode(), {"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert (refused.value.code, refused.value.read()) == (400, b"invalid_blocks")
        assert [r.error for r in fake.rejections] == ["invalid_blocks"]


def conversations_input(**extra) -> dict:
    return {
        "type": "input",
        "block_id": "to",
        "label": text("Share to", "plain_text"),
        "element": {"type": "conversations_select", "action_id": "c", **extra},
    }


def test_response_url_enabled_only_on_a_conversations_select_in_a_modal_input() -> None:
    good = modal(
        blocks=[conversations_input(response_url_enabled=True, filter={"include": ["public", "private"]})],
        submit=text("Share", "plain_text"),
    )
    assert check_view(good, method="views.push") is None
    in_actions = modal(
        blocks=[
            {
                "type": "actions",
                "elements": [{"type": "conversations_select", "action_id": "c", "response_url_enabled": True}],
            }
        ]
    )
    error, messages = check_view(in_actions, method="views.push")
    assert error == "invalid_arguments" and any("response_url_enabled" in m for m in messages)
    in_a_message = check_message({"text": "x", "blocks": [conversations_input(response_url_enabled=True)]})
    assert in_a_message[0] == "invalid_blocks"
    bad_filter = modal(
        blocks=[conversations_input(filter={"include": ["everyone"]})], submit=text("Share", "plain_text")
    )
    assert check_view(bad_filter, method="views.push")[0] == "invalid_arguments"


def test_a_modal_stack_holds_three_views() -> None:
    from tests.strict.surfaces import Stacks

    stacks = Stacks()
    root = stacks.open()
    second, _ = stacks.push(root)
    third, _ = stacks.push(second)
    assert stacks.push(third) == (None, "push_limit_reached")
    assert stacks.depth(root) == 3


def test_unfurl_rules() -> None:
    from tests.strict.surfaces import check_unfurls

    url = "https://arxiv.org/abs/2401.01234"
    card = {"blocks": [section("card")]}
    assert check_unfurls({url: card}, {url}) is None
    assert check_unfurls({url: {"text": "plain"}}, {url}) is None
    assert check_unfurls({"https://elsewhere.org/x": card}, {url}) == ("cannot_unfurl_url", [])
    assert check_unfurls([card], {url}) == ("invalid_unfurls_format", [])
    assert check_unfurls({url: {}}, {url}) == ("invalid_unfurls_format", [])
    error, messages = check_unfurls({url: {"blocks": [{"type": "rich_text", "elements": []}]}}, {url})
    assert error == "invalid_blocks" and "rich_text" in messages[0]


def test_the_fake_checks_chat_unfurl_targets(tmp_path) -> None:
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    from tests.fakeslack import FakeSlack

    url = "https://arxiv.org/abs/2401.01234"
    card = {url: {"blocks": [section("card")]}}
    with FakeSlack() as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        posted = fake.link_shared([url], channel="C1", ts="1.000100")
        typed = fake.link_shared([url], ts="2.000100", composer=True)
        assert client.chat_unfurl(channel="C1", ts="1.000100", unfurls=card)["ok"]
        assert client.chat_unfurl(unfurl_id=typed["unfurl_id"], source="composer", unfurls=card)["ok"]
        assert client.chat_unfurl(unfurl_id=posted["unfurl_id"], source="conversations_history", unfurls=card)["ok"]
        for kwargs, error in (
            ({"channel": "COMPOSER", "ts": typed["message_ts"]}, "cannot_unfurl_message"),
            ({"unfurl_id": "nope", "source": "composer"}, "invalid_unfurl_id"),
        ):
            with pytest.raises(SlackApiError) as refused:
                client.chat_unfurl(unfurls=card, **kwargs)
            assert refused.value.response["error"] == error


def test_shortcut_payload_shapes() -> None:
    from tests.strict.payloads import shortcut_problems

    base = {"callback_id": "c", "trigger_id": "t", "team": {"id": "T"}, "user": {"id": "U"}}
    good_message = {
        **base,
        "type": "message_action",
        "message": {"ts": "1.0"},
        "channel": {"id": "C1"},
        "response_url": "https://hooks/x",
    }
    assert shortcut_problems(good_message) == []
    assert shortcut_problems({**base, "type": "shortcut"}) == []
    assert shortcut_problems({**good_message, "message": {}}) == ["message_action: missing message.ts"]
    assert shortcut_problems({**base, "type": "shortcut", "channel": {"id": "C1"}})
    assert shortcut_problems({**base, "type": "block_actions"})


def test_an_ephemeral_message_in_a_thread_without_replies_is_not_shown() -> None:
    """[ephemeral-thread]: Slack says ok, shows nothing; the fake records a defect."""
    from slack_sdk import WebClient

    from tests.fakeslack import FakeSlack

    with FakeSlack() as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        fake.user_message("C1", "1.000100", user="U1", text="@paperbot help")
        assert client.chat_postEphemeral(channel="C1", user="U1", text="hint", thread_ts="1.000100")["ok"]
        assert [(d.method, d.kind) for d in fake.defects] == [("chat.postEphemeral", "not_shown")]
        assert client.chat_postEphemeral(channel="C1", user="U1", text="hint")["ok"]  # beside it: shown
        fake.user_message("C1", "2.000100", user="U2", text="a reply", thread_ts="1.000100")
        assert client.chat_postEphemeral(channel="C1", user="U1", text="hint", thread_ts="1.000100")["ok"]
        assert [m["shown"] for m in fake.ephemerals["C1"]] == [False, True, True]
        assert len(fake.defects) == 1


def test_a_click_may_not_replace_someone_elses_public_message() -> None:
    """[replace-original]: the asker's own ephemeral may be replaced; a public message
    that is not the clicker's may not (a defect, answered ok)."""
    import json
    import urllib.request

    from tests.fakeslack import FakeSlack

    def post(url: str, body: dict) -> bytes:
        request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.read()

    with FakeSlack() as fake:
        own = fake.new_response_url(clicker="U1")
        mine = fake.new_response_url(clicker="U1", public=True, owner="U1")
        theirs = fake.new_response_url(clicker="U2", public=True, owner="U1")
        digest = fake.new_response_url(clicker="U1", public=True)
        for url in (own, mine):
            assert post(url, {"text": "page 2", "replace_original": True}) == b"ok"
        assert post(theirs, {"text": "for me", "response_type": "ephemeral", "replace_original": False}) == b"ok"
        assert fake.defects == []
        assert post(theirs, {"text": "page 2", "replace_original": True}) == b"ok"
        assert post(digest, {"text": "saved", "replace_original": "true"}) == b"ok"
        assert [d.kind for d in fake.defects] == ["replaced_for_everyone"] * 2


@pytest.mark.parametrize(
    "style, ok, refused",
    [
        ("text", b"ok", (400, b"invalid_blocks")),
        ("json", b'{"ok": true}', (200, b'{"ok": false, "error": "invalid_blocks"}')),
    ],
)
def test_a_response_url_answers_in_either_style(style: str, ok: bytes, refused: tuple) -> None:
    import json
    import urllib.error
    import urllib.request

    from tests.fakeslack import FakeSlack

    def post(url: str, body: dict) -> tuple[int, bytes]:
        request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    with FakeSlack() as fake:
        fake.response_style = style
        url = fake.new_response_url()
        assert post(url, {"text": "hi"}) == (200, ok)
        assert post(url, {"text": "x", "blocks": [section("")]}) == refused


def test_the_bot_is_only_in_its_own_dms(tmp_path) -> None:
    """[dm-membership], [chat-delete]: a DM between people refuses every way in;
    ``conversations.open`` gives the bot's own DM, which takes posts; the bot deletes
    only its own messages."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    from tests.fakeslack import FakeSlack
    from tests.strict.methods import dm_of

    with FakeSlack() as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        fake.add_im("D0ALICEBOB")
        for call, error in (
            (lambda: client.chat_postMessage(channel="D0ALICEBOB", text="x"), "channel_not_found"),
            (lambda: client.conversations_join(channel="D0ALICEBOB"), "method_not_supported_for_channel_type"),
            (lambda: client.conversations_info(channel="D0ALICEBOB"), "channel_not_found"),
            (lambda: client.conversations_open(users="UBOT"), "cannot_dm_bot"),
        ):
            with pytest.raises(SlackApiError) as refused:
                call()
            assert refused.value.response["error"] == error
        opened = client.conversations_open(users="U0BOB")["channel"]["id"]
        assert opened == dm_of("U0BOB")
        posted = client.chat_postMessage(channel=opened, text="a paper")
        fake.user_message(opened, "9.000100", user="U0BOB", text="thanks")
        with pytest.raises(SlackApiError) as not_mine:
            client.chat_delete(channel=opened, ts="9.000100")
        assert not_mine.value.response["error"] == "message_not_found"
        assert client.chat_delete(channel=opened, ts=posted["ts"])["ok"]
        assert [m["ts"] for m in fake.history[opened]] == ["9.000100"]
