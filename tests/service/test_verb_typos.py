"""A mistyped sub-command is asked about ("Did you mean …?"), never searched; a word of the
corpus near a sub-command stays a search (rule: bot/service/verb_typos.py)."""

import pytest

from bot.core.models import Context
from bot.core.replies import NoticeReply, ResultsReply
from bot.service.verb_typos import edits, nearest_verb

CTX = Context(team_id="T1", channel_id="C1", user_id="U1", user_tz="Europe/Berlin")


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("subscibe 09:30 Europe/Berlin", "subscribe 09:30 Europe/Berlin"),
        ("serch difusion modles", "search difusion modles"),
        ("stauts", "status"),
        ("Stauts?", "status"),
        ("tody please", "today"),
        ("unsubscibe me", "unsubscribe me"),
        ("simliar KIStego", "similar KIStego"),
        ("hlep", "help"),
        ("subscrbie about chess", "subscribe about chess"),
    ],
)
def test_a_mistyped_subcommand_asks_did_you_mean(service, store, typed, meant):
    reply = service.command(typed, CTX)
    assert isinstance(reply, NoticeReply), reply
    assert reply.text.startswith(f"Did you mean `/paper {meant}`?")
    assert f"`/paper search {typed}`" in reply.text  # the way to search the words after all
    mention = service.mention(typed, CTX)
    assert isinstance(mention, NoticeReply) and mention.text.startswith(f"Did you mean `@paperbot {meant}`?")
    assert store.get_subscription("T1", "C1") is None  # nothing was done


@pytest.mark.parametrize(
    "typed",
    [
        "states",  # a word of the seeds, one edit from "status"
        "states please",
        "status of the field",  # the sub-command itself, with words: a search
        "stauts of the field",  # the rest is no status argument
        "subscibe at noon",  # the rest is no subscribe argument
        "serch",  # search with nothing to search
        "shot noise",  # a 4-letter verb ("show") takes only a swap
        "chess",
    ],
)
def test_corpus_words_and_misfits_stay_searches(service, typed):
    reply = service.command(typed, CTX)
    assert not (isinstance(reply, NoticeReply) and reply.text.startswith("Did you mean")), reply
    if typed == "states":
        assert isinstance(reply, ResultsReply) and reply.page.total > 0


def test_a_passage_is_never_read_as_a_command(service):
    reply = service.command("serch " + "chess engines " * 30, CTX)
    assert not (isinstance(reply, NoticeReply) and reply.text.startswith("Did you mean"))


def test_edit_distance_and_the_nearest_verb():
    assert edits("stauts", "status") == 1  # a swap is one edit
    assert edits("subscibe", "subscribe") == 1 and edits("sbuscibe", "subscribe") == 2
    assert nearest_verb("subscibe") == "subscribe" and nearest_verb("sbuscibe") == "subscribe"
    assert nearest_verb("unsubscibe") == "unsubscribe"
    assert nearest_verb("stats") == "status" and nearest_verb("serch") == "search"
    assert nearest_verb("shwo") == "show" and nearest_verb("shot") is None and nearest_verb("attention") is None
