"""``kill -9`` of a real ``paperbot serve`` during a burst of mentions, then a
restart on the same database: every acknowledged mention is answered, once
(docs/architecture.md "Idempotency and the journal"). ``benchmarks/crash_bench.py`` does the
same with several hundred mentions."""
from __future__ import annotations

import time

from tests.fakeslack import BOT_USER_ID
from tests.slack.burst import ServeProcess, burst, mention_envelope, replies_in_thread, slow_down

MENTIONS = 40


def test_mentions_acknowledged_before_a_kill_are_answered_once_after_the_restart(fake_slack, tmp_path) -> None:
    server = ServeProcess(fake_slack, tmp_path, f"sqlite:///{tmp_path / 'paperbot.db'}", tmp_path / "index")
    slow_down(fake_slack, "chat.postMessage", 0.3)  # a slow Slack: the kill lands mid-work
    fake_slack.add_channel("C0GENERAL", bot_member=True)   # where the mentions come from
    stamps = [f"{1765400000 + i}.000100" for i in range(MENTIONS)]
    bodies = [mention_envelope(f"Ev0KILL{i}", ts, text=f"<@{BOT_USER_ID}> sparse attention {i}")
              for i, ts in enumerate(stamps)]
    try:
        statuses = burst(server.start(), bodies)
        server.kill()                               # acked, mostly not answered yet
        acked = [ts for ts, status in zip(stamps, statuses) if status == 200]
        assert len(acked) == MENTIONS
        url = server.start()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and any(replies_in_thread(fake_slack, ts) == 0 for ts in acked):
            time.sleep(0.2)
        assert burst(url, bodies[:3]) == [200] * 3  # Slack retries after the restart: no second answer
        assert server.stop() == 0                   # SIGTERM waits for running listeners
    finally:
        server.stop()
    assert [replies_in_thread(fake_slack, ts) for ts in acked] == [1] * len(acked)
    assert sum(1 for line in server.log if " settings: SLACK_BOT_TOKEN=set (environment)" in line) == 1
    retaken = [line for line in server.log if "left unanswered" in line]
    assert retaken, "the kill landed after every reply: nothing was recovered"
