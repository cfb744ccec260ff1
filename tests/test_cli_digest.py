"""`paperbot digest send` as an operator runs it: a real subprocess against the
fake Slack Web API, the real seed index and a real SQLite file."""
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from bot.store import Store
from tests.fakeslack import FakeSlack

ROOT = Path(__file__).resolve().parents[1]


def digest_send(tmp_path, fake, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DATABASE_"))}
    env.update({"SLACK_BOT_TOKEN": "xoxb-cli-test", "SLACK_API_URL": fake.api_url,
                "PAPERBOT_SEEDS": str(ROOT / "seeds"), "PAPERBOT_INDEX_DIR": str(tmp_path / "index"),
                "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}", "PYTHONPATH": str(ROOT)})
    return subprocess.run([sys.executable, "-m", "bot", "digest", "send", *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.fixture
def subscribed(tmp_path):
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


def parents(fake):
    return [c for c in fake.calls("chat.postMessage") if not c.body.get("thread_ts")]


def test_digest_send_twice_posts_once_per_channel(subscribed, strict_slack):
    fake = strict_slack
    first = digest_send(subscribed, fake)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("posted 3, skipped 0, failed 0")
    second = digest_send(subscribed, fake)
    assert second.stdout.startswith("posted 0, skipped 3")
    assert sorted(c.body["channel"] for c in parents(fake)) == ["C1", "C2", "C3"]
    assert all(c.body.get("unfurl_links") is False for c in parents(fake))


def test_digest_send_forced_date_twice_posts_once(subscribed, strict_slack):
    fake = strict_slack
    refused = digest_send(subscribed, fake, "--date", "2027-01-05")
    assert refused.returncode != 0 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert digest_send(subscribed, fake, "--date", "2027-01-05", "--force").stdout.startswith("posted 3")
    assert digest_send(subscribed, fake, "--date", "2027-01-05", "--force").stdout.startswith("posted 0")
    assert len(parents(fake)) == 3
    assert all(c.body["metadata"]["event_payload"]["day"] == "2027-01-05" for c in parents(fake))
    assert all(c.body["text"].startswith("Paper of the day: ") for c in parents(fake))


def test_no_token_in_the_database(subscribed, strict_slack):
    fake = strict_slack
    digest_send(subscribed, fake)
    for f in subscribed.glob("bot.db*"):
        data = f.read_bytes()
        assert b"xoxb-" not in data and b"xapp-" not in data
