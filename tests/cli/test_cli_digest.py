"""`paperbot digest send` as an operator runs it, in-process through click's
``CliRunner`` (``tests.clikit``): the strict fake Slack Web API, the real seed
index (the session's, which ``digest send`` only reads) and a real SQLite file."""

from datetime import datetime, timezone

import pytest

from bot.store import Store
from tests.clikit import Ran, run
from tests.fakeslack import FakeSlack

TOKEN = "xoxb-cli-test"


@pytest.fixture
def subscribed(tmp_path):
    """``tmp_path`` with ``bot.db``: three channels subscribed at 09:00 in three zones."""
    store = Store(f"sqlite:///{tmp_path / 'bot.db'}")
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for channel, zone in (("C1", "UTC"), ("C2", "Europe/Berlin"), ("C3", "America/New_York")):
        store.upsert_subscription("T0TEST", channel, "09:00", zone, "U1", now)
    store.close()
    return tmp_path


@pytest.fixture
def strict_slack():
    """The strict fake Slack; the test fails if Slack would have refused a call."""
    with FakeSlack() as fake:
        yield fake
    assert fake.rejections == [], fake.rejections


@pytest.fixture
def digest_send(subscribed, seed_index_dir, strict_slack):
    """``digest_send(*args)`` → ``Ran`` of ``paperbot digest send *args`` against
    ``strict_slack``; checks that the shared index was only read (no rebuild switched it)."""
    current = (seed_index_dir / "CURRENT").read_text()

    def send(*args: str) -> Ran:
        ran = run(
            ["digest", "send", *args],
            subscribed,
            env_extra={
                "SLACK_BOT_TOKEN": TOKEN,
                "SLACK_API_URL": strict_slack.api_url,
                "DATABASE_URL": f"sqlite:///{subscribed / 'bot.db'}",
                "PAPERBOT_INDEX_DIR": str(seed_index_dir),
            },
        )
        assert (seed_index_dir / "CURRENT").read_text() == current
        return ran

    return send


def parents(fake):
    return [c for c in fake.calls("chat.postMessage") if not c.body.get("thread_ts")]


def test_digest_send_twice_posts_once_per_channel(digest_send, strict_slack):
    first = digest_send()
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("posted 3, skipped 0, failed 0")
    second = digest_send()
    assert second.stdout.startswith("posted 0, skipped 3")
    assert sorted(c.body["channel"] for c in parents(strict_slack)) == ["C1", "C2", "C3"]
    assert all(c.body.get("unfurl_links") is False for c in parents(strict_slack))


def test_digest_send_forced_date_twice_posts_once(digest_send, strict_slack):
    refused = digest_send("--date", "2027-01-05")
    assert refused.returncode != 0 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert digest_send("--date", "2027-01-05", "--force").stdout.startswith("posted 3")
    assert digest_send("--date", "2027-01-05", "--force").stdout.startswith("posted 0")
    posted = parents(strict_slack)
    assert len(posted) == 3
    assert all(c.body["metadata"]["event_payload"]["day"] == "2027-01-05" for c in posted)
    assert all(c.body["text"].startswith("Paper of the day · 2027-01-05: ") for c in posted)


def test_no_token_in_the_database(subscribed, digest_send, strict_slack):
    assert digest_send().stdout.startswith("posted 3")
    assert {c.headers["authorization"] for c in parents(strict_slack)} == {f"Bearer {TOKEN}"}
    files = list(subscribed.glob("bot.db*"))
    assert subscribed / "bot.db" in files
    for f in files:
        data = f.read_bytes()
        assert b"xoxb-" not in data and b"xapp-" not in data
