"""A distributed app's part of the store (schema 9): slack_sdk's installation and state
stores on our tables, tokens sealed with ``PAPERBOT_TOKEN_KEY`` (a new key first, the
old one after it still opens), which installation answers each workspace, and a
version-8 database gaining the tables."""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.store import SCHEMA_VERSION, Store, TokenCipher, TokenKeyError
from tests.kit import older_database

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
OAUTH_TABLES = ("slack_installations", "slack_bots", "slack_oauth_states", "installation_teams")


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def _installation(team: str, token: str, **more) -> Installation:
    return Installation(app_id="A1", team_id=team, user_id="U1", bot_token=token, bot_id="B1", **more)


def test_tokens_are_sealed_and_a_second_key_still_opens_them(store):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    store.installations("1.2", TokenCipher(old)).save(_installation("T1", "xoxb-old-key", bot_refresh_token="xoxe-1-r"))
    rotated = store.installations("1.2", TokenCipher(f"{new},{old}"))  # the new key first
    assert rotated.find_installation(enterprise_id=None, team_id="T1").bot_refresh_token == "xoxe-1-r"
    rotated.save(_installation("T2", "xoxb-new-key"))
    assert store.installations("1.2", TokenCipher(new)).find_bot(enterprise_id=None, team_id="T2").bot_token == (
        "xoxb-new-key"
    )
    with store._engine.connect() as conn:
        held = [r[0] for r in conn.execute(sa.text("SELECT bot_token FROM slack_bots"))]
    assert len(held) == 2 and not [t for t in held if "xox" in t]


def test_a_key_that_opens_nothing_finds_nothing_in_one_line(store, caplog):
    store.installations("1.2", TokenCipher(Fernet.generate_key().decode())).save(_installation("T1", "xoxb-1"))
    other = store.installations("1.2", TokenCipher(Fernet.generate_key().decode()))
    with caplog.at_level(logging.ERROR, logger="bot.store.installations"):
        assert other.find_installation(enterprise_id=None, team_id="T1") is None  # never the sealed text
    assert len(caplog.records) == 1 and "T1" in caplog.text and "xoxb" not in caplog.text
    with pytest.raises(TokenKeyError, match="does not open the tokens"):
        other.check_key()


@pytest.mark.parametrize("keys", ["", "short", "a" * 44, f"{Fernet.generate_key().decode()},nope"])
def test_a_malformed_key_is_refused(keys):
    with pytest.raises(TokenKeyError) as e:
        TokenCipher(keys)
    assert "\n" not in str(e.value) and (not keys or keys not in str(e.value))


def test_a_state_is_consumed_by_one_of_many_at_once(store):
    states = store.oauth_states(600)
    state, wins, barrier = states.issue(), [], threading.Barrier(8)

    def consume() -> None:
        barrier.wait()
        wins.append(states.consume(state))

    threads = [threading.Thread(target=consume) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(wins) == [False] * 7 + [True]


def test_which_installation_answers_each_team(store):
    assert store.team_installation("T1") == (None, False)
    store.note_team("T1", None, False, now=T0)
    store.note_team("T2", "E1", True, now=T0)
    store.note_team("T3", "E1", False, now=T0)
    store.note_team("T4", "E1", True, now=T0)
    store.note_team("T4", "E1", True, now=T0 + timedelta(hours=1))  # noted again: one row
    assert [store.team_installation(t) for t in ("T1", "T2", "T3")] == [(None, False), ("E1", True), ("E1", False)]
    assert store.org_teams("E1") == ["T2", "T4"]


def test_turning_off_teams_leaves_the_others(store):
    for team, channel in (("T1", "C1"), ("T1", "U1"), ("T2", "C2")):
        store.upsert_subscription(team, channel, "09:00", "UTC", "U1", T0)
    assert store.deactivate_teams(["T1"], "app_uninstalled", now=T0) == [("T1", "C1"), ("T1", "U1")]
    assert store.deactivate_teams(["T1"], "app_uninstalled", now=T0) == []  # already off
    assert [(s.team_id, s.active, s.inactive_reason) for s in store.subscriptions()] == [
        ("T1", False, "app_uninstalled"),
        ("T1", False, "app_uninstalled"),
        ("T2", True, None),
    ]


def test_rotation_claims_are_purged_after_a_day(store):
    assert store.mark_once("rotation", "abc:1", "T1", now=T0)
    assert not store.mark_once("rotation", "abc:1", "T1", now=T0)
    assert store.purge_claims(T0 + timedelta(hours=23)) == 0
    assert store.purge_claims(T0 + timedelta(days=1, minutes=1)) == 1


def test_a_version_8_database_gains_the_tables_and_keeps_its_rows(tmp_path):
    path = tmp_path / "v8.db"
    store = Store(f"sqlite:///{path}")
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", T0)
    store.close()
    older_database(path, 8, *(f"DROP TABLE {t}" for t in OAUTH_TABLES))
    store = Store(f"sqlite:///{path}")
    assert (store.migrated_from, store.schema_version(), SCHEMA_VERSION) == (8, 11, 11)
    assert set(OAUTH_TABLES) <= set(sa.inspect(store._engine).get_table_names())
    assert store.get_subscription("T1", "C1").active
    store.close()
