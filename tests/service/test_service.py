"""The service over the real seed index and a real SQLite store."""

import json
from datetime import timedelta

import pytest

from bot.core.models import Context
from bot.core.replies import ErrorReply, HelpReply, NoticeReply, PaperReply, ResultsReply, SimilarReply, StatusReply
from bot.daily import rotation
from bot.render import render

CTX = Context(team_id="T1", channel_id="C1", user_id="U1", user_tz="Europe/Berlin")


def test_search_finds_kistego_first(service):
    reply = service.command("search image steganography", CTX)
    assert isinstance(reply, ResultsReply)
    assert reply.page.hits[0].paper.name == "KIStego"
    assert len(reply.page.hits) <= 5 and reply.page.total >= len(reply.page.hits)


def test_bare_words_are_a_search_and_random_forests_too(service):
    assert isinstance(service.command("speculative decoding", CTX), ResultsReply)
    reply = service.command("random forests", CTX)
    assert isinstance(reply, (ResultsReply, ErrorReply))
    assert not isinstance(reply, PaperReply)


def test_help_and_empty(service):
    assert isinstance(service.command("", CTX), HelpReply)
    assert isinstance(service.command("HELP", CTX), HelpReply)


def test_search_without_words_explains(service):
    reply = service.command("search", CTX)
    assert isinstance(reply, ErrorReply) and "search" in reply.example


def test_bad_queries_are_explained_never_raised(service):
    for q in ["NOT NOT x", "x ANDNOT ANDNOT y", "(" * 2000 + "x", "*", "the of", "?", "title:"]:
        reply = service.command(f"search {q}", CTX)
        assert isinstance(reply, (ErrorReply, ResultsReply)), q
        if isinstance(reply, ErrorReply):
            assert reply.message and reply.example


def test_show_by_name_and_id(service, seed_index):
    reply = service.command("show UniSparse", CTX)
    assert isinstance(reply, PaperReply) and reply.paper.name == "UniSparse"
    by_id = service.command(f"show {reply.paper.id.upper()}", CTX)
    assert isinstance(by_id, PaperReply) and by_id.paper.id == reply.paper.id
    assert all(h.paper.id != reply.paper.id for h in reply.others)


def test_show_unknown_is_polite(service):
    reply = service.command("show zzqxv", CTX)
    assert isinstance(reply, (NoticeReply, ErrorReply))


def test_similar_never_returns_the_paper(service):
    reply = service.command("similar KIStego", CTX)
    assert isinstance(reply, SimilarReply) and reply.hits
    assert all(h.paper.id != reply.paper.id for h in reply.hits)


def test_mention_name_anywhere_and_subcommands(service):
    reply = service.mention("what do you think of KIStego?", CTX)
    assert isinstance(reply, PaperReply) and reply.paper.name == "KIStego"
    assert reply.visibility == "in_channel"
    assert isinstance(service.mention("help", CTX), HelpReply)


def test_mention_free_words_best_match_with_others(service):
    reply = service.mention("speculative decoding draft model", CTX)
    assert isinstance(reply, PaperReply)
    assert 1 <= len(reply.others) <= 3 and reply.others_label == "Other matches"


def test_mention_without_confident_match_lists_or_says_so(service):
    reply = service.mention("sourdough bread recipes", CTX)  # some words match: a list
    assert isinstance(reply, ResultsReply) and reply.unsure and not reply.page.confident
    reply = service.mention("zzqqxv wwkkjj", CTX)  # nothing matches: a notice
    assert isinstance(reply, NoticeReply) and "confident" in reply.text


def test_today_is_the_rotation_pick_and_stable(service, seed_index, clock):
    first = service.command("today", CTX)
    again = service.command("today", CTX)
    assert isinstance(first, PaperReply) and first.paper.id == again.paper.id
    assert first.paper.id == rotation.pick(clock.now.date(), seed_index.ids())
    clock.now += timedelta(days=1)
    assert service.command("today", CTX).paper.id != first.paper.id


def test_random_returns_a_paper(service):
    assert isinstance(service.command("random", CTX), PaperReply)


def test_subscribe_posts_visible_confirmation_naming_user(service, poster, store):
    reply = service.command("subscribe 9:30", CTX)
    assert isinstance(reply, NoticeReply) and reply.visibility == "ephemeral"
    sub = store.get_subscription("T1", "C1")
    assert (sub.local_time, sub.tz) == ("09:30", "Europe/Berlin")  # the user's Slack zone
    channel, message, *_ = poster.posts[-1]
    assert channel == "C1" and message.text.startswith("<@U1> ") and message.visibility == "in_channel"
    service.command("subscribe America/New_York 21:00", CTX)
    assert "changed" in poster.posts[-1][1].text and "09:30" in poster.posts[-1][1].text
    status = service.command("status", CTX)
    assert isinstance(status, StatusReply) and status.next_post is not None
    assert status.next_post.tzinfo is not None and status.next_post.strftime("%H:%M") == "21:00"


def test_subscribe_in_private_channel_says_invite_and_keeps_nothing(service, poster, store):
    poster.fail["C1"] = "channel_not_found"
    reply = service.command("subscribe", CTX)
    assert isinstance(reply, ErrorReply) and "/invite @paperbot" in reply.message
    assert store.get_subscription("T1", "C1") is None


def test_subscribe_bad_time_or_zone_shows_the_form(service, store):
    for arg in ("25:99", "Mars/Base"):
        reply = service.command(f"subscribe {arg}", CTX)
        assert isinstance(reply, ErrorReply) and "09:30" in reply.example
    assert store.get_subscription("T1", "C1") is None


def test_unsubscribe_and_status(service):
    assert "no paper of the day" in service.command("unsubscribe", CTX).text
    service.command("subscribe", CTX)
    assert "Unsubscribed" in service.command("unsubscribe", CTX).text
    assert service.command("status", CTX).subscription is None


def test_every_reply_renders(service):
    for text in (
        "search image steganography",
        "show UniSparse",
        "similar UniSparse",
        "today",
        "random",
        "help",
        "status",
        "search NOT NOT x",
    ):
        message = render(service.command(text, CTX))
        assert message.text and message.blocks


def test_subscribe_again_keeps_the_part_left_out(service, store):
    service.command("subscribe 07:00 UTC", CTX)
    service.command("subscribe Europe/Berlin", CTX)
    sub = store.get_subscription("T1", "C1")
    assert (sub.local_time, sub.tz) == ("07:00", "Europe/Berlin")
    service.command("subscribe 21:15", CTX)
    sub = store.get_subscription("T1", "C1")
    assert (sub.local_time, sub.tz) == ("21:15", "Europe/Berlin")


def test_small_talk_and_bad_queries_in_mentions(service):
    # nothing found: no paper and no list
    for text in ("hello world", "<!channel> zzqqx"):
        reply = service.mention(text, CTX)
        assert isinstance(reply, NoticeReply) and "confident" in reply.text, text
    # only a hello or a thank-you: a short answer saying how to start, to the asker only
    for text, start in (("thanks a lot", "You're welcome!"), ("hi, thank you!", "You're welcome!"), ("hey!", "Hi!")):
        reply = service.mention(text, CTX)
        assert isinstance(reply, NoticeReply) and reply.text.startswith(start), text
        assert reply.visibility == "ephemeral" and "`/paper help`" in reply.text
    reply = service.mention("NOT NOT qx", CTX)  # a search for "qx": no confident match
    assert isinstance(reply, NoticeReply) and "confident" in reply.text
    reply = service.mention("(((", CTX)
    assert isinstance(reply, ErrorReply) and reply.example.startswith("@paperbot ")


def test_a_greeting_before_a_request_still_finds_the_paper(service):
    # words before the topic ("hey …, what do you have on …") do not make it small talk
    for text in ("hey what do you have on chess?", "hi, any papers about chess?"):
        reply = service.mention(text, CTX)
        assert isinstance(reply, PaperReply) and "chess" in reply.paper.abstract, text


def test_cut_note_on_every_surface(service):
    long = "sparse attention " * 300  # 5,100 characters
    for reply in (
        service.command(f"search {long}", CTX),
        service.mention(long, CTX),
        service.command(f"similar {long}", CTX),
        service.command("the " * 1300, CTX),
    ):
        text = render(reply).text + " ".join(getattr(getattr(reply, "page", None), "notes", ()) or ())
        assert text.count("cut to 4,000 characters") == 1, (type(reply).__name__, text)
        assert text.count("repeats only") <= 1 and "cut to 4000" not in text  # one note, never two


@pytest.mark.parametrize("text, meant", [("status please", "status"), ("today?", "today")])
def test_a_subcommand_with_filler_asks_did_you_mean(service, text, meant):
    reply = service.command(text, CTX)
    assert isinstance(reply, NoticeReply)
    assert reply.text.startswith(f"Did you mean `/paper {meant}`?")
    assert service.mention(text, CTX).text.startswith(f"Did you mean `@paperbot {meant}`?")
    assert isinstance(service.command("random forests", CTX), ResultsReply)


def test_related_finds_papers_like_a_pasted_text(service):
    reply = service.related(
        "We hide secret messages inside ordinary images <@U0123ABC> without training any model: image steganography."
    )
    assert isinstance(reply, ResultsReply) and reply.page.hits
    assert reply.page.hits[0].paper.name == "KIStego"
    assert isinstance(service.related("<@U0123ABC>"), ErrorReply)


def test_an_identical_repeated_subscribe_tells_the_user_only(service, poster, store):
    service.command("subscribe 09:30 Europe/Berlin", CTX)
    first = store.get_subscription(CTX.team_id, CTX.channel_id)
    announced = len(poster.posts)
    reply = service.command("subscribe 09:30 Europe/Berlin", CTX)
    assert "already subscribed at 09:30 (Europe/Berlin)" in reply.text and reply.visibility == "ephemeral"
    assert len(poster.posts) == announced == 1  # nothing more in the channel
    assert store.get_subscription(CTX.team_id, CTX.channel_id) == first  # nor in the store
    service.command("subscribe 10:00", CTX)  # a real change is announced
    assert len(poster.posts) == 2 and "it was 09:30" in poster.posts[-1][1].text


def test_a_count_typed_after_about_gets_a_hint(service):
    reply = service.command("subscribe 09:30 UTC about language models 3 papers", CTX)
    assert "put `3 papers` before `about`" in (getattr(reply, "text", None) or reply.message)


def test_a_mention_not_confidently_one_paper_lists_the_best_matches(service):
    text = "hey team, do we know anything on sparse attention kernels?"  # not confident
    reply = service.mention(text, CTX)
    assert isinstance(reply, ResultsReply) and reply.unsure and reply.visibility == "in_channel"
    assert not reply.page.confident and 2 <= len(reply.page.hits) <= 5
    assert reply.page.hits == service.command(f"search {text}", CTX).page.hits  # as /paper search
    message = render(reply)
    assert message.text.startswith("Not sure which paper you mean — these match")
    assert "sparse" in reply.page.hits[0].paper.abstract.lower()
    buttons = [e["text"]["text"] for b in message.blocks if b["type"] == "actions" for e in b["elements"]]
    assert "Similar" in " ".join(buttons)


def test_a_mention_with_a_link_or_id_finds_that_paper(linked_index, store, settings, clock):
    from bot.service.service import Service

    svc = Service(linked_index, store, settings, now=clock)
    for text in (
        "have you read 2401.01234?",
        "see 2401.01234v2",
        "arXiv:2401.01234",
        "check out https://arxiv.org/abs/2401.01234v3 it's great",
        "<https://arxiv.org/abs/2401.01234|arxiv.org/abs/2401.01234>",
    ):
        reply = svc.mention(text, CTX)
        assert isinstance(reply, PaperReply) and reply.paper.id == "2401.01234", text
    for text in ("show 2401.01234v2", "show arXiv:2401.01234", "show https://arxiv.org/pdf/2401.01234"):
        assert svc.command(text, CTX).paper.id == "2401.01234", text
    assert "no paper" in svc.command("show https://arxiv.org/abs/2599.00001", CTX).text
    assert "no paper at that link" in svc.mention("https://www.example.com/blog/post", CTX).text


def test_a_two_letter_prefix_is_answered_with_a_note(service):
    reply = service.command("sp*", CTX)
    assert isinstance(reply, ResultsReply)
    shown = json.dumps(list(render(reply).blocks), ensure_ascii=False)
    assert "A prefix needs at least 3 letters before `*`, so “sp*” was searched as the word “sp”." in shown
