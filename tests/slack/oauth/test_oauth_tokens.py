"""Tokens of a distributed app (issue 21 point 2): sealed at rest — a byte search of
the SQLite file and of a PostgreSQL dump finds no ``xoxb-``, ``xoxe-`` or ``xoxp-`` —,
renewed when they expire (token rotation) by one process at a time, and an
Enterprise Grid org-wide install answering for its workspaces."""

from __future__ import annotations

import logging
import subprocess
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest
from slack_sdk.oauth.installation_store import Installation

from bot.digest import send
from tests.slack.oauth.oauthkit import Browser, command, install
from tests.slack.slackkit import wait_until

T1, C1 = "T0ONE", "C0ONEGEN"
T2, C2 = "T0TWO", "C0TWOGEN"
PLAIN = (b"xoxb-", b"xoxe-", b"xoxp-")


def _refreshes(fake) -> list:
    return [c for c in fake.calls("oauth.v2.access") if c.body.get("grant_type") == "refresh_token"]


def _database_bytes(db_url: str, request: pytest.FixtureRequest) -> bytes:
    """Everything the database holds on disk (SQLite: the file and its WAL), or a
    ``pg_dump`` of the test's PostgreSQL schema."""
    if db_url.startswith("sqlite"):
        path = Path(db_url.removeprefix("sqlite:///"))
        return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    _, schema, dsn = request.getfixturevalue("pg_schema")
    return subprocess.run(["pg_dump", "--schema", schema, dsn], check=True, capture_output=True, timeout=60).stdout


def test_no_token_is_in_the_database_in_plaintext(fake, servers, db_url, request):
    fake.rotation, fake.lifetimes = True, [60, 60]  # xoxe.xoxb- tokens with xoxe- refresh tokens, renewed at once
    (served,) = servers()
    for team, channel in ((T1, C1), (T2, C2)):
        install(fake, served.url, team, channel)
        assert command(served.url, fake, "subscribe 09:00 UTC", team=team, channel=channel)[0].status == 200
    wait_until(lambda: len(_refreshes(fake)) == 2, what="both tokens renewed")
    served.drain()
    user = Installation(app_id="A0PAPERBOT", team_id="T0USER", user_id="U0USER", user_token="xoxp-1-user-token")
    served.distributed.installations.save(user)  # a user token too, should one ever be stored
    found = served.distributed.installations.find_installation(enterprise_id=None, team_id="T0USER", user_id="U0USER")
    assert found.user_token == "xoxp-1-user-token"

    held = _database_bytes(db_url, request)
    assert T1.encode() in held and b"gAAAAA" in held  # the right database, and sealed values in it
    issued = [t for i in fake.installs for t in i.tokens]
    assert issued and all(t.startswith("xoxe.xoxb-") for t in issued)
    assert [p for p in PLAIN if p in held] == []
    assert not [t for t in issued if t.encode() in held]


def test_an_expiring_token_is_renewed_once_saved_and_used(fake, servers, caplog):
    caplog.set_level(logging.INFO)  # what `paperbot -v serve` logs
    fake.rotation, fake.lifetimes = True, [60]  # expires within Bolt's 120 minutes: renewed on first use
    (served,) = servers()
    install(fake, served.url, T1, C1)
    first = fake.install_of(T1).token
    answer, url = command(served.url, fake, "search image steganography", team=T1, channel=C1)
    assert answer.status == 200 and fake.wait_for("response_url", where=lambda c: url.endswith(c.path))
    renewed = fake.install_of(T1).token
    assert renewed != first and len(_refreshes(fake)) == 1
    stored = served.distributed.installations.find_installation(enterprise_id=None, team_id=T1)
    assert (stored.bot_token, stored.bot_refresh_token) == (renewed, fake.install_of(T1).refresh)
    assert fake.calls("auth.test")[-1].token == renewed

    command(served.url, fake, "search chess", team=T1, channel=C1)
    served.drain()
    assert len(_refreshes(fake)) == 1  # the renewed token lives 12 hours
    issued = [first, renewed, fake.install_of(T1).refresh, *(c.answer.get("refresh_token") for c in _refreshes(fake))]
    assert "renewed the token of T0ONE" in caplog.text and not [t for t in issued if t and t in caplog.text]


def test_two_processes_renewing_at_once_spend_the_refresh_token_once(fake, servers):
    fake.rotation, fake.lifetimes, fake.renew_delay = True, [60], 0.3
    first, second = servers(2)  # two processes' stores over one database
    install(fake, first.url, T1, C1)
    barrier, tokens = threading.Barrier(2), []

    def renew(served) -> None:
        barrier.wait()
        tokens.append(served.distributed.posters.for_team(T1)._client.token)

    threads = [threading.Thread(target=renew, args=(s,)) for s in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(_refreshes(fake)) == 1 and [c.answer["ok"] for c in _refreshes(fake)] == [True]
    assert tokens == [fake.install_of(T1).token] * 2


def test_the_digest_renews_an_expiring_token_before_posting(fake, servers):
    fake.rotation, fake.lifetimes = True, [60]
    (served,) = servers()
    install(fake, served.url, T1, C1)
    served.store.upsert_subscription(T1, C1, "09:00", "UTC", "U0ALICE", datetime(2026, 1, 1, tzinfo=timezone.utc))
    summary = send(served.store, served.service.index, served.distributed.posters, datetime.now(timezone.utc))
    assert summary.posted == 1 and len(_refreshes(fake)) == 1
    assert fake.calls("chat.postMessage")[-1].token == fake.install_of(T1).token


def test_an_org_wide_install_answers_each_workspace_of_the_organisation(fake, servers):
    fake.grid = {"T0GRIDA": "E0ORG", "T0GRIDB": "E0ORG"}
    (served,) = servers()
    assert Browser().install(served.url, "E0ORG").status == 200
    stored = served.distributed.installations.find_installation(
        enterprise_id="E0ORG", team_id=None, is_enterprise_install=True
    )
    assert stored is not None and stored.is_enterprise_install and stored.team_id is None
    org_token = fake.install_of("E0ORG").token
    for team, channel in (("T0GRIDA", "C0GRIDA"), ("T0GRIDB", "C0GRIDB")):
        fake.own_channel(channel, team)
        fake.add_channel(channel, bot_member=True)
        answer, _ = command(
            served.url, fake, "subscribe 09:00 UTC", team=team, channel=channel, enterprise="E0ORG", org=True
        )
        assert answer.status == 200
        (confirmation,) = fake.wait_for("chat.postMessage", where=lambda c, ch=channel: c.body.get("channel") == ch)
        assert confirmation.token == org_token
    served.drain()
    assert served.store.team_installation("T0GRIDA") == ("E0ORG", True)
    summary = send(served.store, served.service.index, served.distributed.posters, datetime.now(timezone.utc))
    assert summary.posted == 2 and {c.token for c in fake.calls("chat.postMessage")} == {org_token}
