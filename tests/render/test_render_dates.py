"""Times the bot shows are Slack date tokens, so each reader sees their own zone
(issue 12 point 4; https://docs.slack.dev/messaging/formatting-message-text)."""

from __future__ import annotations

import re
from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.core.models import Subscription
from bot.core.replies import NoticeReply, StatusReply
from bot.render import render, to_text
from bot.render.home import home_view

WHEN = datetime(2026, 12, 2, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))
TOKEN = re.compile(r"<!date\^(\d+)\^\{date_long_pretty\} at \{time\}\|([^<>|]+)>")


def tokens(text: str) -> list[tuple[int, str]]:
    return [(int(a), b) for a, b in TOKEN.findall(text)]


def test_status_next_post_is_a_date_token_with_a_readable_fallback() -> None:
    sub = Subscription("T", "C", "09:30", "Europe/Berlin")
    message = render(StatusReply(subscription=sub, next_post=WHEN))
    assert tokens(message.text) == [(int(WHEN.timestamp()), "Wed 02 Dec 2026, 09:30 CET")]
    assert "Next post: Wed 02 Dec 2026, 09:30 CET." in to_text(message)  # console: the fallback


def test_subscribe_confirmation_and_home_use_date_tokens() -> None:
    notice = render(NoticeReply(text="Done. Next paper of the day:", when=WHEN))
    assert tokens(notice.text)[0][0] == int(WHEN.timestamp())
    sub = Subscription("T", "C0DIGEST", "09:30", "Europe/Berlin")
    view = home_view(None, date(2026, 12, 1), [(sub, WHEN)])
    assert any(tokens(b.get("text", {}).get("text", "")) for b in view["blocks"])


def test_a_note_after_the_time_stays_after_it() -> None:
    text = render(NoticeReply(text="Done. Next paper of the day: {when}. Your zone could not be read.", when=WHEN)).text
    assert text.index("<!date^") < text.index("Your zone could not be read")
    assert "{when}" not in text
