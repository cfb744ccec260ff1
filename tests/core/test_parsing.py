"""Sub-command, subscribe and mention parsing.

Rules: docs/interfaces.md "/paper slash command" and "Mentions and direct messages".
"""

import pytest

from bot.core.parsing import (
    MAX_INPUT,
    SubscribeError,
    canonical_zone,
    parse_command,
    parse_subscribe,
    parse_time,
    small_talk,
    user_text,
)


@pytest.mark.parametrize(
    "text,name,arg",
    [
        ("", "help", ""),
        ("   ", "help", ""),
        ("help", "help", ""),
        ("HELP", "help", ""),
        ("search sparse attention", "search", "sparse attention"),
        ("Search  sparse   attention", "search", "sparse attention"),
        ("show UniSparse", "show", "UniSparse"),
        ("similar p7k2", "similar", "p7k2"),
        ("subscribe 09:30 Europe/Berlin", "subscribe", "09:30 Europe/Berlin"),
        ("subscribe", "subscribe", ""),
        ("today", "today", ""),
        ("random", "random", ""),
        ("random forests", "search", "random forests"),
        ("today's best paper", "search", "today's best paper"),
        ("status of the field", "search", "status of the field"),
        ("help me find chess", "search", "help me find chess"),
        ("attention", "search", "attention"),
        ("unsubscribe", "unsubscribe", ""),
        ("status please", "suggest", "status"),
        ("today?", "suggest", "today"),
        ("Status, pls!", "suggest", "status"),
        ("random now", "suggest", "random"),
        ("help !", "suggest", "help"),
        ("random forests please", "search", "random forests please"),
        ("today? papers", "search", "today? papers"),
    ],
)
def test_parse_command(text, name, arg):
    cmd = parse_command(text)
    assert (cmd.name, cmd.arg) == (name, arg)


def test_long_input_is_cut_with_flag():
    cmd = parse_command("x" * 5000)
    assert cmd.cut and len(cmd.arg) == MAX_INPUT == 4000


def test_long_input_is_cut_at_a_space_and_a_4000_character_one_is_not_cut():
    words = "sparse attention " * 300  # 5,100 characters
    cmd = parse_command("search " + words)
    assert cmd.cut and cmd.name == "search" and len(cmd.arg) <= MAX_INPUT
    assert cmd.arg.endswith(("sparse", "attention"))  # no word split by the cut
    whole = parse_command(("x" * 99 + " ") * 40)  # exactly 4,000 once stripped
    assert not whole.cut and len(whole.arg) == 3999


@pytest.mark.parametrize(
    "text,expected",
    [("9:30", "09:30"), ("09:30", "09:30"), ("21:00", "21:00"), ("24:00", None), ("9:3", None), ("noon", None)],
)
def test_parse_time(text, expected):
    assert parse_time(text) == expected


def test_subscribe_either_order_and_defaults():
    assert parse_subscribe("Europe/Berlin 9:30", "09:00") == ("09:30", "Europe/Berlin")
    assert parse_subscribe("21:00", "09:00") == ("21:00", None)
    assert parse_subscribe("america/new_york", "08:15") == ("08:15", "America/New_York")
    assert parse_subscribe("", "09:00") == ("09:00", None)


@pytest.mark.parametrize(
    "arg,fragment", [("25:00", "HH:MM"), ("Mars/Olympus", "Europe/Berlin"), ("9:30 nowhere", "IANA")]
)
def test_subscribe_errors_show_the_right_form(arg, fragment):
    with pytest.raises(SubscribeError) as e:
        parse_subscribe(arg, "09:00")
    assert fragment in str(e.value)


def test_canonical_zone():
    assert canonical_zone("UTC") == "UTC"
    assert canonical_zone("europe/berlin") == "Europe/Berlin"
    assert canonical_zone("Berlin") is None
    assert canonical_zone("") is None


@pytest.mark.parametrize("arg,fragment", [("Europe/Berlin Asia/Tokyo", "one time zone"), ("09:30 09:45", "one time")])
def test_subscribe_two_times_or_zones_say_so(arg, fragment):
    with pytest.raises(SubscribeError) as e:
        parse_subscribe(arg, "09:00")
    assert fragment in str(e.value)


@pytest.mark.parametrize("mark", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u061c"])
def test_user_text_drops_invisible_format_characters(mark):
    assert user_text(f"dif{mark}fusion models{mark}") == "diffusion models"
    assert parse_command(user_text(f"sub{mark}scribe 09:30")) == parse_command("subscribe 09:30")


def test_user_text_keeps_visible_text():
    text = "Schrödinger “bridges” – 拡散 emoji 👩‍🔬"
    assert user_text(text) == text.replace("\u200d", "")  # the ZWJ of an emoji sequence is format too


@pytest.mark.parametrize(
    "text, kind",
    [
        ("hi!", "hello"),
        ("Hello there :wave:", "hello"),
        ("good morning", "hello"),
        ("thanks", "thanks"),
        ("Thank you so much!", "thanks"),
        ("hi, thanks a lot", "thanks"),
        ("hey what do you have on chess?", None),
        ("hello world", None),
        ("thanks 2024", None),
        ("good", None),
        ("", None),
    ],
)
def test_small_talk(text, kind):
    assert small_talk(text) == kind


@pytest.mark.parametrize(
    "text, free",
    [("sparse attention", True), ("subscibe 09:30", True), ("search subscibe", False), ("show stauts", False)],
)
def test_only_free_words_may_start_with_a_mistyped_subcommand(text, free):
    assert parse_command(text).free is free  # bot.service.verb_typos asks only about free words
