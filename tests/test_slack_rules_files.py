"""The strict fake's [dm-by-user-id] and [files-upload] rules (docs/slack-rules.md):
a post to a user id lands in the DM and answers its ``D…`` id; an upload needs
``files:write`` and a conversation id, and the bytes arrive as sent."""

from __future__ import annotations

import json

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from tests.fakeslack import FakeSlack


def _manifest(tmp_path, scopes: list[str]):
    path = tmp_path / "m.yml"
    path.write_text(f"oauth_config:\n  scopes:\n    bot: {json.dumps(scopes)}\n")
    return path


def test_a_post_to_a_user_id_goes_to_the_dm_and_the_upload_needs_its_d_id(tmp_path) -> None:
    with FakeSlack(_manifest(tmp_path, ["chat:write", "files:write"])) as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        posted = client.chat_postMessage(channel="U0CAROL", text="hi")
        dm = posted["channel"]
        assert dm.startswith("D") and set(fake.history) == {dm}
        with pytest.raises(SlackApiError) as by_user:
            client.files_upload_v2(channel="U0CAROL", content="x", filename="a.bib")
        assert by_user.value.response["error"] == "invalid_arguments"
        done = client.files_upload_v2(channel=dm, content="@misc{k, title = {Ä}}\n", filename="a.bib", title="A")
        assert done["ok"] and done["file"]["name"] == "a.bib"
        (_, first), (_, second) = sorted(fake.files.items())
        assert second["content"] == "@misc{k, title = {Ä}}\n" and second["channel"] == dm
        assert first.get("channel") is None  # the refused share never reached a conversation
        assert [r.error for r in fake.rejections] == ["invalid_arguments"]


def test_an_upload_without_files_write_is_missing_scope(tmp_path) -> None:
    with FakeSlack(_manifest(tmp_path, ["chat:write"])) as fake:
        client = WebClient(token="xoxb-1", base_url=fake.api_url)
        with pytest.raises(SlackApiError) as no_scope:
            client.files_upload_v2(channel="D0123456789", content="x", filename="a.bib")
        assert no_scope.value.response["error"] == "missing_scope"
        assert no_scope.value.response["needed"] == "files:write"
