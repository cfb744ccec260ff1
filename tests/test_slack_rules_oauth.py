"""The strict fake's OAuth rules (docs/slack-rules.md "OAuth"), each checked against
the fake itself with slack_sdk's own client: what Slack refuses, the fake refuses."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from tests.fakeslack import FakeSlack
from tests.kit import ROOT
from tests.slack.oauth.oauthkit import call
from tests.strict.oauth import CLIENT_ID, CLIENT_SECRET


@pytest.fixture
def fake():
    with FakeSlack(ROOT / "manifest.oauth.yml") as f:
        f.redirect_url = "http://127.0.0.1:9/slack/oauth_redirect"
        yield f


def _authorize(fake: FakeSlack, **query: str):
    fields = {"client_id": CLIENT_ID, "scope": ",".join(sorted(fake.granted)), "state": "s1", **query}
    return call("GET", fake.base_url + "/oauth/v2/authorize?" + "&".join(f"{k}={v}" for k, v in fields.items()))


def _code(fake: FakeSlack, **query: str) -> str:
    answer = _authorize(fake, **query)
    assert answer.status == 302 and "state=s1" in answer.headers["location"]
    return answer.headers["location"].split("code=")[1].split("&")[0]


def _access(fake: FakeSlack, **kwargs):
    client = WebClient(base_url=fake.api_url)
    args = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, **kwargs}
    return client.oauth_v2_access(**args)


@pytest.mark.parametrize(
    "query, refusal",
    [
        ({"client_id": "9.9"}, "invalid_client_id"),
        ({"scope": "admin"}, "invalid_scope"),
        ({"user_scope": "chat:write"}, "invalid_scope"),
    ],
)
def test_authorize_refuses_what_the_app_was_not_given(fake, query, refusal):
    answer = _authorize(fake, **query)
    assert (answer.status, answer.text) == (400, refusal)


def test_a_code_works_once_with_its_credentials_and_redirect(fake):
    code = _code(fake, team="T0ONE", redirect_uri="http://127.0.0.1:9/back")
    for wrong, error in (
        ({"client_secret": "nope"}, "bad_client_secret"),
        ({"client_id": "9.9"}, "invalid_client_id"),
    ):
        with pytest.raises(SlackApiError) as e:
            _access(fake, code=code, redirect_uri="http://127.0.0.1:9/back", **wrong)
        assert e.value.response["error"] == error
    with pytest.raises(SlackApiError) as e:
        _access(fake, code=code, redirect_uri="http://127.0.0.1:9/elsewhere")
    assert e.value.response["error"] == "bad_redirect_uri"  # and the code is spent
    code = _code(fake, team="T0ONE")
    answer = _access(fake, code=code)
    assert (answer["team"]["id"], answer["token_type"], answer["is_enterprise_install"]) == ("T0ONE", "bot", False)
    with pytest.raises(SlackApiError) as e:
        _access(fake, code=code)
    assert e.value.response["error"] == "invalid_code"


def test_a_refresh_token_is_spent_once(fake):
    fake.rotation = True
    first = _access(fake, code=_code(fake, team="T0ONE"))
    assert first["access_token"].startswith("xoxe.xoxb-") and first["expires_in"] == 43_200
    renewed = _access(fake, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert renewed["refresh_token"] != first["refresh_token"]
    with pytest.raises(SlackApiError) as e:
        _access(fake, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert e.value.response["error"] == "invalid_refresh_token"


def test_a_token_answers_for_its_own_workspace_only(fake):
    one = _access(fake, code=_code(fake, team="T0ONE"))["access_token"]
    two = _access(fake, code=_code(fake, team="T0TWO"))["access_token"]
    fake.own_channel("C0TWO", "T0TWO")
    fake.add_channel("C0TWO", bot_member=True)
    assert WebClient(token=one, base_url=fake.api_url).auth_test()["team_id"] == "T0ONE"
    for token, error in ((one, "channel_not_found"), ("xoxb-unknown", "invalid_auth"), (None, "not_authed")):
        with pytest.raises(SlackApiError) as e:
            WebClient(token=token, base_url=fake.api_url).chat_postMessage(channel="C0TWO", text="hi")
        assert e.value.response["error"] == error
    assert WebClient(token=two, base_url=fake.api_url).chat_postMessage(channel="C0TWO", text="hi")["ok"]
    envelope = fake.uninstall("T0TWO")
    assert (envelope["type"], envelope["event"]["type"], envelope["team_id"]) == (
        "event_callback",
        "app_uninstalled",
        "T0TWO",
    )
    with pytest.raises(SlackApiError) as e:
        WebClient(token=two, base_url=fake.api_url).chat_postMessage(channel="C0TWO", text="hi")
    assert e.value.response["error"] == "token_revoked"
    assert [c.token for c in fake.calls("chat.postMessage")][-1] == two  # each call's token is recorded


def test_an_org_wide_install_names_the_organisation(fake):
    fake.grid = {"T0GRID": "E0ORG"}
    answer = _access(fake, code=_code(fake, team="E0ORG"))
    assert (answer["team"], answer["enterprise"]["id"], answer["is_enterprise_install"]) == (None, "E0ORG", True)
    fake.own_channel("C0GRID", "T0GRID")
    fake.add_channel("C0GRID", bot_member=True)
    assert WebClient(token=answer["access_token"], base_url=fake.api_url).chat_postMessage(channel="C0GRID", text="x")[
        "ok"
    ]
