"""Examples come from the loaded index (issue 18 point 7): on an arXiv-only index where
the seed papers UniSparse and KIStego do not exist, help (also in a DM), the App Home
how-to, the welcomes, the answer to a hello, the no-match hint and "Which paper?" name
its own papers and topics."""

from __future__ import annotations

import json
import random
import re

import pytest

from bot import corpus, search
from bot.core.models import Context
from bot.render import render
from bot.render.home import home_view
from bot.service.service import Service

CTX = Context("T1", "C1", "U1")
SEED_NAMES = ("UniSparse", "KIStego")
RECORDS = [
    (
        "2506.17728",
        "KAG-Thinker: Interactive Thinking for Knowledge-Grounded Reasoning",
        "We introduce KAG-Thinker, a reasoning framework over knowledge graphs. Knowledge graphs "
        "ground each step. Experiments show that KAG-Thinker outperforms strong baselines by 4.5%.",
    ),
    (
        "2605.13946",
        "Dual AGNs and Dark Matter Halos in Merging Galaxies",
        "Dark matter halos shape galaxy mergers. We study dual AGNs in dark matter halos. "
        "Dark matter simulations show that dual AGNs are common in massive halos.",
    ),
    (
        "2506.11854",
        "FlowGuard: Dark Matter Maps from Weak Lensing with Normalizing Flows",
        "We present FlowGuard, a normalizing flow for dark matter maps. Weak lensing data constrain "
        "dark matter. Our results improve map quality by 12%.",
    ),
    (
        "2505.01431",
        "Texture Cues for Camouflaged Object Segmentation",
        "Camouflaged object segmentation is hard. This paper describes texture cues for camouflaged "
        "object segmentation. Texture cues improve accuracy by 3%.",
    ),
]


def _index(tmp_path, records):
    path = tmp_path / "arxiv.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for rid, title, abstract in records:
            rec = {"id": rid, "title": title, "abstract": abstract, "categories": ["cs.CL"], "source": "arxiv"}
            f.write(json.dumps(rec) + "\n")
    search.build_index(tmp_path / "index", corpus.load_papers([path]) if records else [])
    return search.SearchIndex(tmp_path / "index")


def _messages(service: Service) -> dict[str, str]:
    """Every message that suggests something, rendered, as JSON text."""
    tab = service.home(Context("T1", "", "U1"), lambda _: False)
    replies = {
        "help": service.command("help", CTX),
        "mention help": service.mention("", CTX),
        "welcome user": service.welcome(Context("T1", "D1", "U1"), "user"),
        "welcome channel": service.welcome(CTX, "channel"),
        "no match": service.command("search zzyzxqwv", CTX),
        "which paper": service.command("show", CTX),
        "which similar": service.command("similar", CTX),
        "no words": service.command("search", CTX),
        "dm help": service.mention("help", Context("T1", "D1", "U1")),
        "hello": service.mention("hello", CTX),
        "dm hello": service.mention("hi", Context("T1", "D1", "U1")),
    }
    out = {k: json.dumps(render(r).blocks) + render(r).text for k, r in replies.items()}
    out["home"] = json.dumps(home_view(tab.today, tab.day, tab.channels, None, examples=tab.examples))
    return out


@pytest.fixture
def make_service(store, settings, clock):
    def make(index) -> Service:
        return Service(index, store, settings, now=clock, rng=random.Random(7))

    return make


def test_messages_name_papers_and_topics_of_the_loaded_index(tmp_path, make_service):
    index = _index(tmp_path, RECORDS)
    examples = index.examples()
    assert set(examples.names) == {"KAG-Thinker", "FlowGuard"}
    assert examples.topic() == "dark matter"  # in 2 of the 4 papers' keywords
    assert index.examples() == examples  # the same index gives the same examples
    for kind, text in _messages(make_service(index)).items():
        for seed in SEED_NAMES:
            assert seed not in text, (kind, seed)
        assert "sparse attention" not in text, kind
        if kind not in ("welcome user", "no match", "no words", "hello", "dm hello"):
            assert "KAG-Thinker" in text or "FlowGuard" in text, (kind, text[:300])
        if kind not in ("which paper", "which similar"):
            assert "dark matter" in text, kind


def test_an_empty_index_suggests_no_paper(tmp_path, make_service):
    index = _index(tmp_path, [])
    assert index.examples().paper() is None and index.examples().topic() is None
    for kind, text in _messages(make_service(index)).items():
        assert not re.search(r"[ `_]None[`_]|\{(?:topic|paper|other)\}", text), kind
        for seed in SEED_NAMES:
            assert seed not in text, kind
