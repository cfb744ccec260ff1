"""Issue 22's service side (``bot.service.recommendations``) over the real seed index, the real
model (``bot.runtime.recommending.IndexRecommender`` → ``bot.recommend``) and a real store on
SQLite and PostgreSQL: ``/paper foryou`` with too few and with enough positives, the why, the
subscriptions ``for me`` / ``for this channel`` over several dates (never the same paper twice,
the fallback said once, a topic kept)."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

import pytest

from bot.core.models import Context
from bot.core.replies import ErrorReply, ForYouReply, NoticeReply, PaperReply
from bot.render import render, to_text
from bot.runtime.recommending import IndexRecommender
from bot.service.service import Service
from bot.store import Store

TEAM = "T0TEAM"
ALICE = Context(TEAM, "D0ALICE", "U0ALICE")
GENERAL = Context(TEAM, "C0GENERAL", "U0ALICE")


@pytest.fixture
def db_store(db_url):
    store = Store(db_url)
    yield store
    store.close()


@pytest.fixture
def svc(seed_index, db_store, settings, clock) -> Service:
    return Service(
        seed_index, db_store, settings, now=clock, rng=random.Random(7), recommender=IndexRecommender(seed_index)
    )


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _save(svc: Service, ctx: Context, ids) -> None:
    for pid in ids:
        svc.reading_list.save(pid, ctx)


def _attention_ids(seed_index, n: int = 3) -> list[str]:
    return [h.paper.id for h in seed_index.search("attention tokens", limit=n).hits]


def test_foryou_with_too_few_positives_says_so_and_shows_a_paper_of_the_index(svc, seed_index):
    _save(svc, ALICE, _attention_ids(seed_index, 2))
    reply = svc.command("foryou", ALICE)
    assert isinstance(reply, ForYouReply) and reply.picks == ()
    assert (reply.have, reply.needed) == (2, 3)
    assert reply.example is not None and seed_index.get(reply.example.id) is not None
    text = to_text(render(reply))
    assert "you have 2 so far" in text and reply.example.title[:40] in text


def test_foryou_picks_say_why_with_words_of_the_paper_and_a_saved_title(svc, seed_index):
    saved = _attention_ids(seed_index)
    _save(svc, ALICE, saved)
    reply = svc.command("for you", ALICE)
    assert isinstance(reply, ForYouReply) and len(reply.picks) == 5
    assert not {r.paper.id for r in reply.picks} & set(saved)
    for rec in reply.picks:
        assert 3 <= len(rec.terms) <= 5
        paper_words = _words(f"{rec.paper.title} {rec.paper.abstract}")
        for term in rec.terms:
            assert _words(term) <= paper_words, (term, rec.paper.id)
        assert rec.like is not None and rec.like.id in saved and rec.because == "you saved"
    text = to_text(render(reply))
    first = reply.picks[0]
    assert f"Why: because you saved *{first.like.title[:30]}" in text
    assert "More like this" in text and "Not for me" in text


def test_not_for_me_and_more_like_this_change_the_next_page(svc, seed_index):
    _save(svc, ALICE, _attention_ids(seed_index))
    first = svc.recommendations.for_you(ALICE)
    top, second = first.picks[0].paper.id, first.picks[1].paper.id
    svc.record_signal(TEAM, ALICE.user_id, top, "not_for_me")
    svc.record_signal(TEAM, ALICE.user_id, second, "more")
    again = svc.recommendations.for_you(ALICE)
    assert top not in {r.paper.id for r in again.picks} and second not in {r.paper.id for r in again.picks}
    liked = [r for r in again.picks if r.like is not None and r.like.id == second]
    assert all(r.because == "you liked" for r in liked)  # "more" is not a save


def test_foryou_never_offers_a_paper_of_the_reading_list(svc, seed_index):
    """After ``/paper forget`` the saves are no positives any more, but the papers are still in the
    reading list: picks learned from new positives leave them out."""
    ids = _attention_ids(seed_index, 6)
    _save(svc, ALICE, ids[:3])
    svc.command("forget", ALICE)
    for pid in ids[3:]:
        svc.record_signal(TEAM, ALICE.user_id, pid, "more")
    picks = {r.paper.id for r in svc.recommendations.for_you(ALICE, 0, 10).picks}
    assert len(picks) == 10 and not picks & set(ids[:3])


def test_the_second_page_follows_the_first(svc, seed_index):
    _save(svc, ALICE, _attention_ids(seed_index))
    one, two = svc.recommendations.for_you(ALICE, 0), svc.recommendations.for_you(ALICE, 5)
    assert one.has_more and two.offset == 5
    assert not {r.paper.id for r in one.picks} & {r.paper.id for r in two.picks}


def test_a_personal_feed_for_me_posts_each_paper_once_over_many_dates(svc, seed_index):
    done = svc.command("subscribe for me 08:00", GENERAL)
    assert isinstance(done, NoticeReply) and "0 of the 3 liked papers" in done.text
    feed = svc.store.get_subscription(TEAM, "U0ALICE")
    assert feed.recommend and feed.personal
    start = date(2026, 12, 1)
    first = svc.recommendations.post(feed, start)  # too few positives: the rotation, said once
    assert [r.how for r in first.picks] == ["fallback"] and "Not enough to learn from yet" in first.note
    second = svc.recommendations.post(feed, start + timedelta(days=1))
    assert second.picks[0].how == "fallback" and second.note is None
    assert svc.recommendations.post(feed, start).note is not None  # the same date reads the same
    _save(svc, ALICE, _attention_ids(seed_index))
    seen = [first.picks[0].paper.id, second.picks[0].paper.id]
    for n in range(2, 12):
        post = svc.recommendations.post(feed, start + timedelta(days=n))
        (pick,) = post.picks
        assert pick.how == "pick" and pick.terms and post.note is None
        seen.append(pick.paper.id)
    assert len(seen) == len(set(seen)), seen
    assert svc.recommendations.post(feed, start + timedelta(days=5)).picks[0].paper.id == seen[5]  # kept


def test_a_channel_for_this_channel_learns_from_the_channel_only_and_keeps_its_topic(svc, seed_index):
    _save(svc, ALICE, _attention_ids(seed_index))  # Alice's saves never shape the channel
    svc.command("subscribe for this channel 2 papers about language", GENERAL)
    sub = svc.store.get_subscription(TEAM, "C0GENERAL")
    assert sub.recommend and not sub.personal and sub.topic == "language"
    day = date(2026, 12, 1)
    post = svc.recommendations.post(sub, day)
    matches = set(seed_index.match_all("language"))
    assert [r.how for r in post.picks] == ["fallback", "fallback"] and "This channel" in post.note
    assert {r.paper.id for r in post.picks} <= matches
    for pid in _attention_ids(seed_index, 4)[1:4]:
        svc.record_signal(TEAM, "C0GENERAL", pid, "shared")
    seen = {r.paper.id for r in post.picks}
    for n in range(1, 5):
        later = svc.recommendations.post(sub, day + timedelta(days=n))
        assert later.picks and {r.paper.id for r in later.picks} <= matches
        assert not seen & {r.paper.id for r in later.picks}
        seen |= {r.paper.id for r in later.picks}
        assert any(r.how == "pick" for r in later.picks)
        assert all(r.because == "shared here" for r in later.picks if r.how == "pick")


def test_today_shows_the_papers_the_feed_posts(svc, seed_index):
    _save(svc, ALICE, _attention_ids(seed_index))
    svc.command("subscribe for me", ALICE)
    today = svc.command("today", ALICE)
    assert isinstance(today, PaperReply) and "picked for you" in today.headline
    feed = svc.store.get_subscription(TEAM, "U0ALICE")
    assert svc.recommendations.post(feed, svc.now().date()).picks[0].paper.id == today.paper.id


def test_the_grammar_refuses_what_it_cannot_mean(svc):
    for text in ("subscribe for you", "subscribe me for this channel", "subscribe for me for everyone"):
        assert isinstance(svc.command(text, GENERAL), ErrorReply), text
    svc.command("subscribe for this channel", GENERAL)
    svc.command("subscribe for everyone", GENERAL)
    assert not svc.store.get_subscription(TEAM, "C0GENERAL").recommend


def test_without_a_model_foryou_says_it_is_unavailable(seed_index, db_store, settings, clock):
    plain = Service(seed_index, db_store, settings, now=clock)
    reply = plain.command("foryou", ALICE)
    assert isinstance(reply, ForYouReply) and reply.unavailable
    assert "not available" in to_text(render(reply))


def test_why_names_the_strongest_thing_the_reader_did_to_the_paper_it_is_like(svc, seed_index):
    """A channel's paper only shared there is "shared here" (not "liked"), a 👍 makes it "liked";
    a person's share is "you shared", a 👍 "you liked", a save "you saved" (the strongest)."""
    ids = _attention_ids(seed_index, 3)
    svc.command("subscribe for this channel", GENERAL)
    sub, day = svc.store.get_subscription(TEAM, "C0GENERAL"), date(2026, 12, 1)
    for pid in ids:
        svc.signal_log.shared(Context(TEAM, "C0GENERAL", "U0BOB"), pid)
    (pick,) = svc.recommendations.post(sub, day).picks
    assert pick.like.id in ids and pick.because == "shared here"
    text = to_text(render(ForYouReply(picks=(pick,))))
    assert f"because *{pick.like.title[:30]}" in text and "was shared here" in text and "liked" not in text
    svc.record_signal(TEAM, "C0GENERAL", pick.like.id, "up", by="U0ALICE")
    assert svc.recommendations.post(sub, day).picks[0].because == "this channel liked"
    bob = Context(TEAM, "D0BOB", "U0BOB")
    first = svc.recommendations.for_you(bob).picks[0]
    assert first.because == "you shared"
    like = first.like.id

    def because() -> set[str]:
        return {r.because for r in svc.recommendations.for_you(bob, 0, 10).picks if r.like.id == like}

    svc.record_signal(TEAM, "U0BOB", like, "up")
    assert because() == {"you liked"}
    svc.reading_list.save(like, bob)
    assert because() == {"you saved"}
