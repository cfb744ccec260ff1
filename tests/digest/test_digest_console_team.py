"""The console's subscriptions share the database but never reach Slack."""

from datetime import datetime, timezone

from bot import digest
from bot.cli.console import CONTEXT
from bot.core.models import Context


def test_console_subscription_is_never_posted(service, store, seed_index, poster):
    service.command("subscribe 06:00 UTC", CONTEXT)
    service.command("subscribe 06:00 UTC", Context("T1", "C9", "U1"))
    poster.posts.clear()
    now = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    summary = digest.send(store, seed_index, poster, now)
    assert [p[0] for p in poster.posts if p[2] is None] == ["C9"]
    assert summary.posted == 1
