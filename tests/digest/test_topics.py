"""Topic subscriptions over the real seed index, on SQLite and PostgreSQL with an
injected clock: the subscribe grammar through the service, ``/paper status``,
the channel's own rotation (every match once before repeats, agreed with
``/paper today``), and a corpus rebuild in the middle of a rotation.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

import pytest

from bot import search
from bot.core.config import Settings
from bot.core.models import Context
from bot.core.replies import ErrorReply, NoticeReply, PaperReply, StatusReply
from bot.digest import run_due
from bot.render import render
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.service.topics import Topics
from bot.store import Store
from tests.digest.digestkit import marker_of
from tests.kit import Clock, RecordingPoster

UTC = timezone.utc
START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
CTX = Context(team_id="T1", channel_id="C1", user_id="U1", user_tz="Europe/Berlin")


@pytest.fixture
def world(db_url, seed_index, seed_index_dir, tmp_path):
    store = Store(db_url)
    clock, poster = Clock(START), RecordingPoster()
    clock.now = START
    settings = Settings(database_url=db_url, index_dir=seed_index_dir, default_time="09:00", default_tz="UTC")
    service = Service(seed_index, store, settings, announcer=PostingAnnouncer(poster), now=clock, rng=random.Random(3))
    yield service, store, clock, poster
    store.close()


def text_of(reply) -> str:
    return render(reply).text


def test_subscribe_with_a_topic_stores_it_and_status_shows_the_count(world, seed_index):
    service, store, clock, poster = world
    reply = service.command("subscribe 09:30 Europe/Berlin about reinforcement learning", CTX)
    assert isinstance(reply, NoticeReply), reply
    sub = store.get_subscription("T1", "C1")
    assert (sub.topic, sub.local_time, sub.tz, sub.days, sub.papers) == (
        "reinforcement learning",
        "09:30",
        "Europe/Berlin",
        (),
        1,
    )
    wanted = len(seed_index.match_all("reinforcement learning"))
    assert wanted and "reinforcement learning" in poster.posts[-1][1].text  # the confirmation
    status = service.command("status", CTX)
    assert isinstance(status, StatusReply) and status.match_count == wanted
    assert "reinforcement learning" in text_of(status) and f"{wanted} matching" in text_of(status)
    assert "Next post:" in text_of(status) and "Set up by <@U1>" in text_of(status)
    # "about …" alone changes only the topic
    assert isinstance(service.command("subscribe about reasoning", CTX), NoticeReply)
    sub = store.get_subscription("T1", "C1")
    assert (sub.topic, sub.local_time, sub.tz) == ("reasoning", "09:30", "Europe/Berlin")
    # "about" with nothing after it, or "everything", goes back to the whole corpus
    for words in ("about", "about everything"):
        service.command("subscribe about reasoning", CTX)
        service.command(f"subscribe {words}", CTX)
        assert store.get_subscription("T1", "C1").topic is None
    assert "about" not in text_of(service.command("status", CTX)).split("gets")[1]


def test_a_topic_without_matches_is_refused_with_an_example(world):
    service, store, clock, poster = world
    reply = service.command("subscribe about zzqxv quantum basket weaving", CTX)
    assert isinstance(reply, ErrorReply) and "No paper matches" in reply.message
    assert reply.example.startswith("/paper subscribe about ")
    assert store.get_subscription("T1", "C1") is None and poster.posts == []


def test_a_small_topic_says_how_many_days_it_lasts(world, seed_index):
    service, store, clock, poster = world
    topic = "sparse attention"
    n = len(seed_index.match_all(topic))
    assert 0 < n < 7
    reply = service.command(f"subscribe about {topic}", CTX)
    assert isinstance(reply, NoticeReply)
    assert f"lasts {n} posting day" in reply.text


def test_a_topic_rotation_posts_only_matches_and_all_before_repeating(world, seed_index):
    service, store, clock, poster = world
    matches = set(seed_index.match_all("reasoning"))
    assert len(matches) >= 7
    clock.now = START - timedelta(days=1)
    service.command("subscribe 09:00 UTC about reasoning", CTX)
    posted, today = [], []
    for d in range(2 * len(matches) + 1):
        clock.now = START + timedelta(days=d, hours=2)
        run_due(store, seed_index, poster, clock.now)
        today.append(service.command("today", CTX).paper.id)
    for _, message, _ in poster.parents:
        if marker_of(message):  # not the subscribe confirmation
            posted.append(marker_of(message)[1])
    n = len(matches)
    assert len(posted) == 2 * n + 1 and set(posted) <= matches
    assert set(posted[:n]) == matches and set(posted[n : 2 * n]) == matches
    assert today == posted  # /paper today in the channel agrees with the digest
    # another channel with the same topic has its own order
    other = Context(team_id="T1", channel_id="C2", user_id="U1")
    service.command("subscribe about reasoning", other)
    assert isinstance(service.command("today", other), PaperReply)


def _rebuild(index_dir, papers):
    search.build_index(index_dir, papers)


def test_a_rebuild_mid_rotation_posts_new_papers_before_repeats_and_never_a_removed_one(db_url, seed_papers, tmp_path):
    index_dir = tmp_path / "ix"
    _rebuild(index_dir, seed_papers)
    index = search.SearchIndex(index_dir)
    matches = index.match_all("reasoning")
    first_half, later = set(matches[: len(matches) // 2]), set(matches[len(matches) // 2 :])
    start_papers = [p for p in seed_papers if p.id not in later]
    _rebuild(index_dir, start_papers)
    assert set(index.match_all("reasoning")) == first_half
    store, poster = Store(db_url), RecordingPoster()
    store.upsert_subscription("T1", "C1", "09:00", "UTC", "U1", START - timedelta(days=1), topic="reasoning")
    days = iter(range(100))

    def run_day():
        now = START + timedelta(days=next(days), hours=2)
        run_due(store, index, poster, now)
        return marker_of(poster.parents[-1][1])[1]

    got = [run_day() for _ in range(2)]
    day_two, day_three = START + timedelta(days=1), (START + timedelta(days=2)).date()
    removed_posted = got[0]
    sub = store.get_subscription("T1", "C1")
    (removed_unposted,) = Topics(index, store).paper_ids(sub, day_three)  # picked, not yet posted
    gone = {removed_posted, removed_unposted}
    # today's pick is persisted; the rebuild (adds `later`, removes two) does not change it
    _rebuild(index_dir, [p for p in seed_papers if p.id not in gone])
    assert store.channel_picks("T1", "C1", day_two.date(), "reasoning") == [got[1]]
    unseen = (first_half | later) - set(got) - gone
    after = [run_day() for _ in range(len(unseen))]
    # day three's pick was made again (every paper of it had left) and posted
    assert store.get_delivery("T1", "C1", day_three).state == "posted"
    assert store.channel_picks("T1", "C1", day_three, "reasoning") == [after[0]] != [removed_unposted]
    assert set(after) == unseen  # every new and not-yet-posted paper before any repeat
    more = [run_day() for _ in range(len(unseen) + 1)]
    assert not (set(after) | set(more)) & {removed_unposted} and removed_posted not in after + more
    assert set(more) <= (first_half | later) - gone
    store.close()


def test_today_in_a_weekly_channel_shows_the_posting_days_papers_and_uses_none_up(world, seed_index):
    service, store, clock, poster = world
    clock.now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)  # a Tuesday
    service.command("subscribe weekly mon 10:00 UTC 3 papers about reasoning", CTX)
    before = service.command("today", CTX)
    assert isinstance(before, PaperReply) and "2026-12-07" in before.headline  # next Monday's
    assert "1 of 3" in before.headline
    assert store.channel_picks("T1", "C1", date(2026, 12, 1), "reasoning") == []
    clock.now = datetime(2026, 12, 7, 10, 1, tzinfo=UTC)
    run_due(store, seed_index, poster, clock.now)
    (posted,) = [m for _, m, _ in poster.parents if marker_of(m)]
    assert marker_of(posted) == ("2026-12-07", before.paper.id)
    clock.now = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)  # Thursday: still that week's papers
    assert service.command("today", CTX).paper.id == before.paper.id


def test_n_papers_without_a_topic_rotate_over_the_whole_corpus(world, seed_index):
    service, store, clock, poster = world
    clock.now = START - timedelta(days=1)
    service.command("subscribe 09:00 UTC 2 papers", CTX)
    assert store.get_subscription("T1", "C1").topic is None
    seen = []
    for d in range(len(seed_index.ids()) // 2):
        clock.now = START + timedelta(days=d, hours=2)
        run_due(store, seed_index, poster, clock.now)
        seen += store.channel_picks("T1", "C1", clock.now.date(), None)
    assert len(seen) == len(set(seen)) == 2 * (len(seed_index.ids()) // 2)  # no repeats yet
    assert "1 of 2" in service.command("today", CTX).headline


def test_a_mistyped_topic_is_refused_with_the_spelling_that_matches(world):
    service, store, clock, poster = world
    reply = service.command("subscribe about sparce atention", CTX)
    assert isinstance(reply, ErrorReply) and "Did you mean “sparse attention”?" in reply.message
    assert reply.example == "/paper subscribe about sparse attention"
    assert store.get_subscription("T1", "C1") is None
