"""What users send is echoed clean: NUL, ESC and the other C0/C1 controls (but
tab and newline) and bidi overrides never reach a reply, from a command, a
mention or the search modal (bot.slack.transport.incoming_text, bot.core.parsing.user_text); a
mention of nothing but a pasted link is about the link's label, not a help
answer; a subscribe whose Slack time zone cannot be read says it uses the
default zone. Through the real HTTP server and the strict fake Slack."""

from __future__ import annotations

import json
import re

from bot.cli.console import Console
from bot.render import ACTION_PAGE
from bot.service.service import Service
from bot.store import Store
from tests.fakeslack import BOT_USER_ID, TEAM_ID
from tests.slack.slackkit import SlackHarness, mention_event, shown_strings, view_submission

#: Every character that must never be echoed.
INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: A word with each kind in it: NUL, an ANSI colour (ESC), a C1 control, a bidi
#: override that would show "exe.png" as "gnp.exe", an isolate, a DEL. (A
#: lone surrogate too, in JSON payloads: a form body cannot carry one.)
HOSTILE = "qq\x00zz\x1b[31mvy\x9b1m\u202egnp.exe\u2066x\u2069\x7fw"
SHOWN = "qqzz[31mvy1mgnp.exexw"
#: How the help answer starts.
HELP = "searches this workspace's conference papers"


def assert_clean(body) -> list[str]:
    strings = shown_strings(body)
    for s in strings:
        assert not INVISIBLE.search(s), ascii(s)
    return strings


def test_a_command_echoes_no_control_or_bidi_character(slack: SlackHarness) -> None:
    _, url = slack.command(f"search {HOSTILE}")
    (reply,) = slack.replies(url)
    strings = assert_clean(reply)
    assert any(SHOWN in s for s in strings), strings  # the rest is echoed


def test_a_mention_echoes_no_control_or_bidi_character(slack: SlackHarness) -> None:
    slack.event(mention_event(f"<@{BOT_USER_ID}> {HOSTILE}\ud800", ts="1765000200.000100"), event_id="Ev0CTRL1")
    (post,) = slack.fake.wait_for(None, where=lambda c: c.method.startswith("chat.post"))  # no match: ephemeral
    assert any(SHOWN + "\ufffd" in s for s in assert_clean(post.body))


def test_a_tampered_page_button_echoes_no_control_character(slack: SlackHarness) -> None:
    _, url = slack.click(ACTION_PAGE, {"q": HOSTILE + "\ud800", "o": 0})
    (reply,) = slack.replies(url)
    assert any(SHOWN in s for s in assert_clean(reply))


def test_the_search_modal_echoes_no_control_character(slack: SlackHarness) -> None:
    response = slack.interact(view_submission(HOSTILE + "\ud800"))
    assert response.status == 200
    assert any(SHOWN in s for s in assert_clean(json.loads(response.body)))


def test_a_mention_of_only_a_link_is_about_the_link_not_help(slack: SlackHarness) -> None:
    slack.event(
        mention_event(f"<@{BOT_USER_ID}> <https://example.org/paper/1|KIStego>", ts="1765000201.000100"),
        event_id="Ev0LINK1",
    )
    (post,) = slack.fake.wait_for("chat.postMessage")  # the label the user wrote names it
    shown = " ".join(shown_strings(post.body))
    assert HELP not in shown and "KIStego" in shown, shown
    # a link's path is never a name (docs/search.md "Mentions: is the best hit the paper meant?")
    slack.event(
        mention_event(f"<@{BOT_USER_ID}> <https://example.org/KIStego>", ts="1765000203.000100"), event_id="Ev0LINK2"
    )
    (note,) = slack.fake.wait_for("chat.postEphemeral")
    shown = " ".join(shown_strings(note.body))
    assert HELP not in shown and "no paper at that link" in shown, shown


def test_only_a_mention_is_still_help(slack: SlackHarness) -> None:
    slack.event(mention_event(f"<@{BOT_USER_ID}>", ts="1765000202.000100"), event_id="Ev0HELP1")
    (post,) = slack.fake.wait_for("chat.postEphemeral")  # help goes to the asker only
    assert HELP in " ".join(shown_strings(post.body))


def test_a_subscribe_whose_zone_cannot_be_read_says_it_uses_utc(slack: SlackHarness) -> None:
    slack.fake.fail_method("users.info", "internal_error")
    _, url = slack.command("subscribe 07:15", channel="C0DIGEST3")
    (reply,) = slack.replies(url)
    text = " ".join(shown_strings(reply))
    assert (
        "Your Slack time zone could not be read; using UTC — add a zone, e.g. "
        "`/paper subscribe 07:15 Europe/Berlin`." in text
    ), text
    sub = slack.store.get_subscription(TEAM_ID, "C0DIGEST3")
    assert (sub.local_time, sub.tz) == ("07:15", "UTC")  # the fallback is kept


def test_a_subscribe_with_a_readable_zone_or_a_given_one_says_nothing_of_it(slack: SlackHarness) -> None:
    slack.fake.user_tz["U0TOKYO"] = "Asia/Tokyo"
    _, url = slack.command("subscribe 09:30", user="U0TOKYO", channel="C0DIGEST4")
    (reply,) = slack.replies(url)
    assert "could not be read" not in " ".join(shown_strings(reply))
    slack.fake.fail_method("users.info", "internal_error")
    _, url = slack.command("subscribe 09:30 Europe/Paris", channel="C0DIGEST5")
    (reply,) = slack.replies(url)
    assert "could not be read" not in " ".join(shown_strings(reply))


def test_the_console_echoes_no_control_or_bidi_character(seed_index, tmp_path, settings) -> None:
    console = Console(Service(seed_index, Store(f"sqlite:///{tmp_path / 'c.db'}"), settings))
    out = console.handle(f"/paper search {HOSTILE}\ud800")
    assert not INVISIBLE.search(out) and SHOWN + "\ufffd" in out, ascii(out)
    assert not INVISIBLE.search(console.handle(f"@paperbot {HOSTILE}"))


#: Invisible format characters (Unicode category Cf) typed or pasted inside words: ZWSP, soft
#: hyphen, ZWNJ, ZWJ, word joiner, BOM, left-to-right mark.
FORMAT_CHARACTERS = "\u200b\u00ad\u200c\u200d\u2060\ufeff\u200e"


def test_invisible_format_characters_do_not_split_words(slack: SlackHarness) -> None:
    _, url = slack.command("search dif\u200bfu\u00adsion chess\ufeff")
    (reply,) = slack.replies(url)
    strings = shown_strings(reply)
    assert any("diffusion chess" in s for s in strings), strings  # one word again, and searched as one
    assert not any(ch in s for s in strings for ch in FORMAT_CHARACTERS), [ascii(s) for s in strings]
    slack.event(mention_event(f"<@{BOT_USER_ID}> stau\u200dts", ts="1765000210.000100"), event_id="Ev0CF1")
    (note,) = slack.fake.wait_for("chat.postEphemeral")  # read as "stauts": a mistyped `status`
    assert "Did you mean `@paperbot status`?" in " ".join(shown_strings(note.body))
