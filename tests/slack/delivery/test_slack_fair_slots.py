"""Fair work slots (``bot.slack.delivery.fair_slots``): another user's request is served before
the rest of one user's flood, and a Web API call made while holding a slot
gives it back while Slack answers (docs/architecture.md "Work slots and the CPU budget")."""

from __future__ import annotations

import threading
import time

from bot.core.ports import Message
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.poster import SlackPoster


def _wait_until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.01)


def _start_requests(slots: FairSlots, users: list[str], order: list[str]) -> list[threading.Thread]:
    """One thread per user, each queued for a slot before the next starts."""

    def request(user: str) -> None:
        with slots(user):
            order.append(user)

    threads = []
    for n, user in enumerate(users, start=1):
        threads.append(threading.Thread(target=request, args=(user,)))
        threads[-1].start()
        _wait_until(lambda n=n: slots.waiting() == n)
    return threads


def test_another_user_goes_before_the_rest_of_a_flood() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    slots.acquire("flood")  # the flood's first query is running
    threads = _start_requests(slots, ["flood"] * 5 + ["other"], order)
    slots.release("flood")
    for t in threads:
        t.join(10)
    assert order == ["other"] + ["flood"] * 5


def test_users_are_served_in_turn() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    slots.acquire("a")
    threads = _start_requests(slots, ["a", "a", "a", "b", "b", "c"], order)
    slots.release("a")
    for t in threads:
        t.join(10)
    assert order == ["b", "c", "a", "b", "a", "a"]


class _SlowClient:
    """A Web API client whose chat.postMessage blocks until released."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def chat_postMessage(self, **kwargs):
        self.entered.set()
        assert self.release.wait(10)
        return {"ok": True, "ts": "1765000000.000100"}


def test_a_slow_post_gives_its_slot_back_while_slack_answers() -> None:
    slots, client = FairSlots(1), _SlowClient()
    poster = SlackPoster(client, slots=slots)
    posted: list[str] = []

    def confirmation() -> None:  # the subscribe confirmation, inside the service's slot
        with slots("U1"):
            posted.append(poster.post("C1", Message(text="subscribed")))

    first = threading.Thread(target=confirmation)
    first.start()
    assert client.entered.wait(10)
    searched = threading.Event()
    second = threading.Thread(target=lambda: (slots.acquire("U2"), searched.set(), slots.release("U2")))
    second.start()
    second.join(10)
    assert searched.is_set() and posted == []  # U2 ran while U1's post was still waiting on Slack
    client.release.set()
    first.join(10)
    assert posted == ["1765000000.000100"] and slots.waiting() == 0


def test_one_user_never_holds_the_last_free_slot() -> None:
    slots = FairSlots(2)
    order: list[str] = []
    slots.acquire("flood")  # one of the flood's queries is running
    threads = _start_requests(slots, ["flood"] * 3, order)
    assert order == []  # the second slot stays free ...
    other = threading.Thread(target=lambda: (slots.acquire("other"), order.append("other")))
    other.start()
    other.join(10)
    assert order == ["other"]  # ... so another user starts at once
    slots.release("other")
    slots.release("flood")
    for t in threads:
        t.join(10)
    assert order == ["other"] + ["flood"] * 3 and slots.waiting() == 0


def test_per_user_can_allow_every_slot() -> None:
    slots = FairSlots(2, per_user=2)
    slots.acquire("flood")
    second = threading.Thread(target=slots.acquire, args=("flood",))
    second.start()
    second.join(10)
    assert not second.is_alive() and slots.waiting() == 0


def test_a_quick_request_goes_before_slow_ones_of_users_never_served() -> None:
    slots = FairSlots(1)
    order: list[str] = []

    def request(user: str, fast: bool) -> None:
        with slots(user, fast):
            order.append(user)

    slots.acquire("running")
    threads = []
    for n, (user, fast) in enumerate([("slow1", False), ("slow2", False), ("probe", True)], start=1):
        threads.append(threading.Thread(target=request, args=(user, fast)))
        threads[-1].start()
        _wait_until(lambda n=n: slots.waiting() == n)
    slots.release("running")
    for t in threads:
        t.join(10)
    assert order == ["probe", "slow1", "slow2"]


def test_quick_is_a_few_plain_words() -> None:
    from bot.slack.delivery.fair_slots import quick

    assert quick("search attention") and quick("show p7k2")
    assert not quick("search att* aug*") and not quick("search a OR b")
    assert not quick("search " + "x" * 300) and not quick("search one two three four five")
