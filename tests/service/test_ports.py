"""The ports the service is typed with (``bot.core.store_port``, ``bot.core.index_port``)
match the real store and search index: every method a port names exists on
``bot.store.Store`` / ``bot.search.SearchIndex`` with the same parameters —
names, kinds (positional or keyword-only) and which have defaults."""

from __future__ import annotations

import inspect
from typing import Protocol

import pytest

from bot.core import index_port, store_port
from bot.search import SearchIndex
from bot.store import Store

PORTS = [
    (store_port.SubscriptionRecords, Store),
    (store_port.DailyPicks, Store),
    (store_port.OnceMarks, Store),
    (store_port.KeptQueries, Store),
    (store_port.ReadingLists, Store),
    (store_port.RecommendedPosts, Store),
    (store_port.SignalRecords, Store),
    (store_port.ServiceStore, Store),
    (index_port.ServiceIndex, SearchIndex),
]


def _methods(port: type) -> list[str]:
    """The methods ``port`` declares, its bases' included (not ``Protocol``'s own)."""
    names = set()
    for base in port.__mro__:
        if base in (Protocol, object) or not getattr(base, "_is_protocol", False):
            continue
        names |= {n for n, v in vars(base).items() if inspect.isfunction(v) and not n.startswith("_")}
    return sorted(names)


def _shape(function) -> list[tuple[str, inspect._ParameterKind, bool]]:
    return [
        (p.name, p.kind, p.default is not inspect.Parameter.empty)
        for p in inspect.signature(function).parameters.values()
    ]


def mismatches(port: type, real: type) -> list[str]:
    """Each method of ``port`` that ``real`` lacks or has with other parameters."""
    bad = []
    for name in _methods(port):
        theirs = getattr(real, name, None)
        if theirs is None:
            bad.append(f"{real.__name__} has no {name}")
        elif _shape(getattr(port, name)) != _shape(theirs):
            bad.append(f"{real.__name__}.{name}{inspect.signature(theirs)} ≠ {port.__name__}.{name}")
    return bad


@pytest.mark.parametrize("port,real", PORTS, ids=lambda x: x.__name__)
def test_the_real_object_has_every_method_of_the_port(port: type, real: type) -> None:
    assert _methods(port), f"{port.__name__} declares no method"
    assert mismatches(port, real) == []


def test_the_service_store_is_every_narrow_port() -> None:
    narrow = set().union(*(_methods(p) for p, real in PORTS if real is Store and p is not store_port.ServiceStore))
    assert set(_methods(store_port.ServiceStore)) == narrow


def test_a_changed_signature_is_reported() -> None:
    class Renamed:
        def mark_once(self, kind, name, detail=None, now=None): ...  # ``name`` is ``key`` in the port

        def mark(self, kind, key, extra): ...  # one parameter more

    bad = mismatches(store_port.OnceMarks, Renamed)
    assert len(bad) == 3 and "no unmark" in bad[-1]
