"""The ``/paper subscribe`` grammar (bot/daily/subscribe_grammar.py) and its sub-commands."""

from __future__ import annotations

import pytest

from bot.core import parsing
from bot.core.parsing import SubscribeError
from bot.daily import subscribe_grammar


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "09:30 Europe/Berlin about reinforcement learning",
            dict(local_time="09:30", zone="Europe/Berlin", topic="reinforcement learning"),
        ),
        ("about reinforcement learning  ", dict(topic="reinforcement learning")),
        (
            "weekly mon 10:00 Europe/London about diffusion",
            dict(days=(0,), local_time="10:00", zone="Europe/London", topic="diffusion"),
        ),
        ("weekly", dict(days=(0,))),
        ("weekly fri", dict(days=(4,))),
        ("Europe/London 3 papers weekly", dict(days=(0,), zone="Europe/London", papers=3)),
        ("weekdays", dict(days=(0, 1, 2, 3, 4))),
        ("mon wed fri 08:00", dict(days=(0, 2, 4), local_time="08:00")),
        ("Friday Monday", dict(days=(0, 4))),
        ("daily", dict(days=())),
        ("mon tue wed thu fri sat sun", dict(days=())),
        ("1 paper", dict(papers=1)),
        ("about", dict(topic="")),
        ("about everything", dict(topic="")),
        ("me 08:00 about graph neural networks", dict(me=True, local_time="08:00", topic="graph neural networks")),
        ("me", dict(me=True)),
        ("about the weekly mon 3 papers", dict(topic="the weekly mon 3 papers")),
        ("", dict()),
    ],
)
def test_the_grammar_reads_every_part_in_any_order(text, expected):
    assert subscribe_grammar.parse_spec(text) == subscribe_grammar.SubscribeSpec(**expected)


@pytest.mark.parametrize(
    "text, says",
    [
        ("6 papers", "1 to 5"),
        ("0 papers", "1 to 5"),
        ("3 papers 2 papers", "once"),
        ("25:99", "not a time"),
        ("Mars/Base", "understand"),
        ("09:00 10:00", "one time"),
        ("UTC Europe/Berlin", "one time zone"),
        ("weekly 09:00 me", "right after subscribe"),
        ("reinforcement learning", "about"),
    ],
)
def test_bad_parts_are_explained(text, says):
    with pytest.raises(SubscribeError) as err:
        subscribe_grammar.parse_spec(text)
    assert says in str(err.value)


def test_only_topic_is_recognised():
    assert subscribe_grammar.parse_spec("about x").only_topic
    assert not subscribe_grammar.parse_spec("09:00 about x").only_topic


def test_day_sets_round_trip_and_read_well():
    for days in [(), (0,), (0, 2, 4), (0, 1, 2, 3, 4)]:
        assert subscribe_grammar.parse_days(subscribe_grammar.format_days(days)) == days
    assert subscribe_grammar.describe_days((0,)) == "Mondays"
    assert subscribe_grammar.describe_days((0, 1, 2, 3, 4)) == "weekdays (Mon–Fri)"
    assert subscribe_grammar.describe_days(()) == "every day"


def test_unsubscribe_me_and_saved_are_sub_commands():
    assert parsing.parse_command("unsubscribe me") == parsing.Command("unsubscribe", "me")
    assert parsing.parse_command("saved") == parsing.Command("saved")
    assert parsing.parse_command("saved papers on rl").name == "search"
    assert parsing.parse_command("unsubscribe mechanisms").name == "search"


# ---------------------------------------------------------------- for me / for this channel (issue 22)
@pytest.mark.parametrize(
    "text, me, recommend, topic",
    [
        ("for me", True, True, None),
        ("me for me 08:00", True, True, None),
        ("for this channel about diffusion", False, True, "diffusion"),
        ("weekly mon FOR the channel 3 papers", False, True, None),
        ("for channel", False, True, None),
        ("for everyone", False, False, None),
        ("me for everybody", True, False, None),
        ("09:30", False, None, None),
        ("about papers for me", False, None, "papers for me"),  # after `about`: the topic
    ],
)
def test_for_whom_a_post_is(text, me, recommend, topic):
    spec = subscribe_grammar.parse_spec(text)
    assert (spec.me, spec.recommend, spec.topic) == (me, recommend, topic)


@pytest.mark.parametrize("text", ["for you", "for", "me for this channel", "for me for everyone"])
def test_for_what_cannot_be_meant_is_refused_with_a_sentence(text):
    with pytest.raises(SubscribeError) as e:
        subscribe_grammar.parse_spec(text)
    assert str(e.value).endswith(".") and "for me" in str(e.value)
