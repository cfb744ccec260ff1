"""Long queries kept for their page buttons (``Store.keep_query``, schema 6),
against real SQLite and PostgreSQL, and the migration that adds the table."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from bot.service.query_keys import KEEP_DAYS, PURGE_EVERY_S, QueryKeys, key_of
from bot.store import SCHEMA_VERSION, Store
from tests.kit import older_database

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
LONG = "We hide secret messages inside ordinary images without training any model. " * 40


def test_a_kept_query_is_read_back_until_purged(db_url):
    store = Store(db_url)
    key = key_of(LONG)
    assert store.query_text(key) is None
    store.keep_query(key, LONG[:4000], T0)
    store.keep_query(key, LONG[:4000], T0 + timedelta(days=5))  # a second use: no error
    assert store.query_text(key) == LONG[:4000]
    assert store.purge_queries(T0 + timedelta(days=1)) == 0  # used since
    assert store.purge_queries(T0 + timedelta(days=6)) == 1
    assert store.query_text(key) is None
    with pytest.raises(ValueError):
        store.keep_query(key, "x" * 4001, T0)
    with pytest.raises(ValueError):
        store.keep_query("", "words", T0)
    store.close()


def test_query_keys_only_for_texts_a_button_cannot_carry(db_url):
    store = Store(db_url)
    now = [T0]
    ticks = [0.0]
    keys = QueryKeys(store, lambda: now[0], monotonic=lambda: ticks[0])
    short = "sparse attention"
    quoted = '"' * 200  # 200 characters, 400 once JSON-escaped
    got = dict(keys.keys_for([short, None, LONG[:3000], quoted, LONG[:3000]]))
    assert set(got) == {LONG[:3000], quoted}
    assert got[LONG[:3000]] == key_of(LONG[:3000]) and len(got[quoted]) == 20
    assert keys.text_of(got[LONG[:3000]]) == LONG[:3000]
    assert keys.text_of("not-a-key") is None and keys.text_of("0" * 20) is None
    now[0] = T0 + timedelta(days=KEEP_DAYS + 1)  # both unused for a month …
    ticks[0] = PURGE_EVERY_S + 1
    keys.keys_for([LONG[:2000]])  # … so the next use purges them
    assert keys.text_of(got[LONG[:3000]]) is None
    assert keys.text_of(key_of(LONG[:2000])) == LONG[:2000]
    store.close()


def test_a_version_5_database_gains_the_table(tmp_path):
    path = tmp_path / "v3.db"
    Store(f"sqlite:///{path}").close()
    older_database(path, 5, "DROP TABLE query_keys")
    store = Store(f"sqlite:///{path}")
    assert store.migrated_from == 5 and store.schema_version() == SCHEMA_VERSION
    store.keep_query(key_of(LONG), LONG[:4000], T0)
    assert store.query_text(key_of(LONG)) == LONG[:4000]
    store.close()
