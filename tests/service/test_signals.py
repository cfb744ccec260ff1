"""The signal rules of ``bot.service.signals`` over a real store and the seed index
(docs/interfaces.md "Signals"): who a signal counts for, how a paper with signals of
both signs counts, reactions, ``/paper forget``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core.models import Context
from bot.service.signals import is_channel, reaction_kind


def test_reaction_names_and_conversations():
    assert [reaction_kind(n) for n in ("+1", "thumbsup", "thumbsup::skin-tone-6", "-1", "thumbsdown::skin-tone-2")] == [
        "up",
        "up",
        "up",
        "down",
        "down",
    ]
    assert [reaction_kind(n) for n in ("heart", "", "::+1", None, 3, "+1:")] == [None] * 6
    assert [is_channel(c) for c in ("C0GEN", "G0PRIV", "D0DM", "U0ALICE", "", None)] == [True, True] + [False] * 4


def test_a_paper_counts_as_the_sign_most_of_its_signals_have_and_a_tie_as_the_newest(service, clock):
    log = service.signal_log
    log.record("T1", "U1", "p1", "saved")
    clock.now += timedelta(minutes=1)
    log.record("T1", "U1", "p1", "down")
    assert service.signals("T1", "U1").negatives == ("p1",)  # one each: the newest
    clock.now += timedelta(minutes=1)
    log.record("T1", "U1", "p1", "more")
    log.record("T1", "U1", "p2", "not_for_me")
    assert (service.signals("T1", "U1").positives, service.signals("T1", "U1").negatives) == (("p1",), ("p2",))
    service.remove_signal("T1", "U1", "p1", "more")
    assert service.signals("T1", "U1").negatives == ("p2", "p1")  # most recent first
    with pytest.raises(ValueError):
        service.record_signal("T1", "U1", "p1", "love")


def test_a_save_never_counts_for_the_channel_it_was_made_in(service, seed_index):
    pid = seed_index.ids()[0]
    ctx = Context("T1", "C0GEN", "U1")
    service.reading_list.save(pid, ctx)
    assert service.signals("T1", "U1").positives == (pid,)
    assert service.signals("T1", "C0GEN").positives == ()
    service.reading_list.remove(pid, ctx)
    assert service.signals("T1", "U1").positives == ()
    service.signal_log.shared(ctx, pid, ts="1765000000.000100")
    assert service.signals("T1", "C0GEN").positives == (pid,)  # a share does


def test_a_reaction_in_a_dm_counts_for_the_user_only_and_unknown_posts_for_nobody(service, store):
    store.record_post("T1", "D0ALICE", "1.000100", "p1")
    ctx = Context("T1", "D0ALICE", "U0ALICE")
    assert service.signal_log.reaction(ctx, "1.000100", "thumbsup", added=True) == "p1"
    assert service.signals("T1", "U0ALICE").positives == ("p1",)
    assert service.signals("T1", "D0ALICE").positives == ()
    assert service.signal_log.reaction(ctx, "2.000100", "thumbsup", added=True) is None
    assert service.signal_log.reaction(ctx, "1.000100", "tada", added=True) is None
    assert service.signal_log.reaction(Context("T1", "D0ALICE", ""), "1.000100", "+1", added=True) is None


def test_forget_answers_with_counts_to_the_asker_only(service, seed_index):
    ctx = Context("T1", "C0GEN", "U1")
    service.reading_list.save(seed_index.ids()[0], ctx)
    reply = service.command("forget", ctx)
    assert reply.visibility == "ephemeral" and "forgot 1 signal of yours: 1 save." in reply.text
    assert service.store.reading_list_count("T1", "U1") == 1
    reply = service.command("FORGET everything", ctx)
    assert "no signals of yours" in reply.text and "removed 1 paper from your reading list" in reply.text
    assert service.forget("T1", "U1", reading_list=True) == 0
    assert service.command("forget me now", ctx).__class__.__name__ == "ResultsReply"  # a search


def test_forget_counts_each_thing_the_user_did_once_and_names_the_kinds(service, store, seed_index):
    """The outside tester's eight actions (4 saves, *Not for me*, *More like this*, 👍 on a channel's
    post, 👎 on their DM's) are eight, though the 👍 is stored for the user and the channel."""
    ids = seed_index.ids()[:8]
    channel, dm = Context("T1", "C0GEN", "U1"), Context("T1", "D0U1", "U1")
    for pid in ids[:4]:
        service.reading_list.save(pid, channel)
    service.record_signal("T1", "U1", ids[4], "not_for_me")
    service.record_signal("T1", "U1", ids[5], "more")
    store.record_post("T1", "C0GEN", "1.000100", ids[6])
    store.record_post("T1", "D0U1", "2.000100", ids[7])
    assert service.signal_log.reaction(channel, "1.000100", "+1", added=True) == ids[6]
    assert service.signal_log.reaction(dm, "2.000100", "-1", added=True) == ids[7]
    service.signal_log.shared(channel, ids[0])  # a share of a saved paper into the channel: one more
    service.record_signal("T1", "U2", ids[6], "up", by="U2")  # someone else's: kept
    reply = service.command("forget", channel)
    assert (
        "I forgot 9 signals of yours: 4 saves, 1 share, 1 *More like this*, 1 👍, 1 *Not for me* and 1 👎."
        in reply.text
    ), reply.text
    assert service.signals("T1", "C0GEN") == service.signals("T1", "U1") == type(service.signals("T1", "U1"))((), ())
    assert service.signals("T1", "U2").positives == (ids[6],)
