"""The ack window (``bot.slack.delivery.fair_slots``): a work slot is not granted while a
request is being acknowledged, at most ``yield_s`` per run of acks; a dispatch of the app
counts as an ack for the app's work slots."""

from __future__ import annotations

import threading

from bot.slack.delivery.fair_slots import AckWindow, FairSlots


def _acquire_in_thread(slots: FairSlots, user: str) -> tuple[threading.Thread, threading.Event]:
    granted = threading.Event()

    def take() -> None:
        slots.acquire(user)
        granted.set()

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    return thread, granted


def test_a_slot_waits_for_the_ack_in_flight_and_is_granted_when_it_ends() -> None:
    window = AckWindow(yield_s=60.0)  # far longer than the test: only the ack's end frees it
    slots = FairSlots(2, acks=window)
    with window.acking():
        thread, granted = _acquire_in_thread(slots, "U0WORK")
        assert not granted.wait(0.3)  # a free slot, but an ack is in flight
        assert window.in_flight() == 1
    assert granted.wait(10)  # the ack ended: granted
    thread.join(10)
    slots.release("U0WORK")


def test_the_wait_is_bounded_per_run_of_acks_so_a_stream_of_acks_never_starves_work() -> None:
    window = AckWindow(yield_s=0.05)
    slots = FairSlots(1, acks=window)
    with window.acking():  # an ack that never ends while the slot is asked for
        thread, granted = _acquire_in_thread(slots, "U0WORK")
        assert granted.wait(10)
        assert window.in_flight() == 1
    thread.join(10)
    slots.release("U0WORK")


def test_a_run_of_acks_soon_after_the_last_window_holds_no_work() -> None:
    now = [1000.0]
    window = AckWindow(yield_s=60.0, period_s=3600.0, clock=lambda: now[0])
    slots = FairSlots(1, acks=window)
    with window.acking():  # opens a window at 1000
        pass
    now[0] = 1100.0  # that window ended (60 s), but the period (an hour) has not passed
    with window.acking():  # a new run: no new window, so a slot does not wait for it
        thread, granted = _acquire_in_thread(slots, "U0WORK")
        assert granted.wait(10)  # granted while this ack is still in flight
    thread.join(10)
    slots.release("U0WORK")
    now[0] = 1000.0 + 3600.0  # a period later a run opens a window again
    with window.acking():
        thread, granted = _acquire_in_thread(slots, "U0WORK")
        assert not granted.wait(0.2)
    assert granted.wait(10)
    thread.join(10)
    slots.release("U0WORK")


def test_work_inside_an_ack_waits_for_no_one() -> None:
    window = AckWindow(yield_s=60.0)
    slots = FairSlots(1, acks=window)
    with window.acking():
        assert window.wait_for_acks() == 0.0
        with slots("U0INLINE"):  # a listener run without a work queue, inside its own dispatch
            pass


def test_the_app_counts_its_dispatches_as_acks_of_its_work_slots(fake_slack, tmp_path) -> None:
    from slack_bolt import BoltRequest

    from bot.slack.app import build_app
    from bot.slack.delivery.intake import FORCED
    from tests.slack.slackkit import make_settings

    slots = FairSlots(2)
    seen: list[int] = []

    class NoService:  # the app is built but never asked anything here
        pass

    app = build_app(make_settings(fake_slack, tmp_path), NoService(), slots=slots)
    assert app.acks is slots.acks

    @app.middleware
    def count(next):
        seen.append(slots.acks.in_flight())
        return next()

    body = {"type": "event_callback", "team_id": "T0", "event": {"type": "nothing_we_handle", "user": "U0X"}}
    app.dispatch(BoltRequest(body=body, mode="socket_mode"))
    assert seen == [1]  # counted while Bolt ran its middleware and listeners
    assert slots.acks.in_flight() == 0  # and no longer once dispatch returned
    app.dispatch(BoltRequest(body=body, mode="socket_mode", context={FORCED: True}))
    assert seen == [1, 0]  # the journal's retake: nobody waits for its ack, work need not wait
