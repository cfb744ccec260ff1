"""Every paper in every list links to its page (issue 19 point 5): the title is a Slack
link ``<url|title>`` to the arXiv abstract, the OpenReview forum, the DOI or the record's
``url`` — in search results, the search modal, similar and related lists, the papers under
a card, pick lists, the reading list, the App Home and a multi-paper digest — and a paper
without any page (the seeds) says nothing extra. Rendered from a real service over a real
index of the seeds plus ``tests/data/pages.jsonl``; every message and view passes the
strict fake's Block Kit rules (``tests.strict.surfaces``).
"""

from __future__ import annotations

import json
import random
import re
from datetime import date

import pytest

from bot.core.models import Paper, ReadingListEntry, Subscription
from bot.core.replies import PaperReply, PickListReply, ReadingListReply, SimilarReply
from bot.render import mrkdwn as md
from bot.render import render, render_digest, render_digest_many
from bot.render.home import home_view, search_modal
from bot.render.reading_list import reading_list_message
from bot.render.related import related_message, related_modal
from bot.service.reading_list import snapshot
from bot.service.service import Service
from tests.strict.surfaces import check_message, check_view

#: The pages of tests/data/pages.jsonl (its README): arXiv, arXiv with a DOI, OpenReview, DOI only, a plain url.
PAGES = {
    "2503.98765": "https://arxiv.org/abs/2503.98765",
    "2406.97531": "https://arxiv.org/abs/2406.97531",
    "GlacNet0rv": "https://openreview.net/forum?id=GlacNet0rv",
    "chi-glacier-1": "https://doi.org/10.1145/3613904.3699999",
    "pmlr-glacier": "https://proceedings.mlr.press/v235/kame24a.html",
}
LINK = re.compile(r"<(https?://[^|<>]+)\|([^<>]*)>")
DAY = date(2026, 12, 1)


@pytest.fixture
def service(pages_index, store, settings) -> Service:
    return Service(pages_index, store, settings, announcer=None, rng=random.Random(1))


def texts(blocks: list[dict]) -> list[str]:
    """Every mrkdwn text a person reads in ``blocks`` (sections, their fields, contexts)."""
    out = []
    for b in blocks:
        for t in [b.get("text"), *(b.get("fields") or []), *(b.get("elements") or [])]:
            if isinstance(t, dict) and t.get("type") == "mrkdwn":
                out.append(t["text"])
    return out


def message_blocks(message) -> list[dict]:
    body = {"text": message.text, "blocks": list(message.blocks)}
    assert check_message(body) is None, check_message(body)
    return body["blocks"]


def view_blocks(view: dict, method: str = "views.open") -> list[dict]:
    assert check_view(view, method=method) is None, check_view(view, method=method)
    return view["blocks"]


def links(blocks: list[dict]) -> list[tuple[str, str]]:
    return [m.groups() for t in texts(blocks) for m in LINK.finditer(t)]


def assert_titles_link_to_pages(blocks: list[dict], papers: list[Paper]) -> None:
    """Each paper of ``papers`` shown in ``blocks`` (its id is there) has its title linked
    to its page; at least one is shown."""
    shown = " ".join(texts(blocks)) + json.dumps(blocks)
    found = links(blocks)
    checked = 0
    for p in papers:
        if p.id not in shown:
            continue
        checked += 1
        label = md.escape(p.title)[:30]
        assert (PAGES[p.id], label) in [(u, lab[:30]) for u, lab in found], (p.id, found)
    assert checked, "no paper with a page was shown"


@pytest.fixture
def glaciers(pages_index) -> list[Paper]:
    return [pages_index.get(i) for i in PAGES]


def test_page_url_is_the_url_else_the_doi_else_nothing(glaciers) -> None:
    from bot.core.pages import page_url

    assert {p.id: page_url(p) for p in glaciers} == PAGES
    bare = Paper(id="x1", title="T", abstract="A")
    assert page_url(bare) is None
    assert page_url(Paper(id="x2", title="T", abstract="A", url="javascript:alert(1)", doi="10.1/a<b>")) == (
        "https://doi.org/10.1/a%3Cb%3E"
    )
    assert page_url(Paper(id="x3", title="T", abstract="A", url="ftp://example.org/p")) is None


def test_search_results_link_each_title_to_its_page(service, glaciers) -> None:
    reply = service.search("glacier", limit=5)
    blocks = message_blocks(render(reply))
    assert_titles_link_to_pages(blocks, glaciers)
    assert sum(p.id in json.dumps(blocks) for p in glaciers) == 5


def test_the_search_modal_links_each_title(pages_index, glaciers) -> None:
    view = search_modal("glacier", page=pages_index.search("glacier", limit=10))
    assert_titles_link_to_pages(view_blocks(view), glaciers)


def test_similar_related_pick_and_card_lists_link_each_title(service, pages_index, glaciers) -> None:
    first = glaciers[0]
    similar = tuple(pages_index.similar(first.id, limit=5))
    assert_titles_link_to_pages(message_blocks(render(SimilarReply(paper=first, hits=similar))), glaciers[1:])
    card = render(PaperReply(paper=first, others=similar, others_label="Similar papers"))
    assert_titles_link_to_pages(message_blocks(card), glaciers[1:])
    related = pages_index.related("tracing glacier calving fronts in radar images", limit=8)
    assert_titles_link_to_pages(message_blocks(related_message(related)), glaciers)
    assert_titles_link_to_pages(view_blocks(related_modal(related)), glaciers)
    pick = render(PickListReply(query="glacier", papers=tuple(glaciers)))
    assert_titles_link_to_pages(message_blocks(pick), glaciers)


def reading_list(papers: list[Paper]) -> ReadingListReply:
    entries = tuple(snapshot(p) for p in papers)
    return ReadingListReply(entries=entries, total=len(entries), limit=len(entries))


def test_the_reading_list_and_the_app_home_link_each_title(glaciers) -> None:
    listed = reading_list(glaciers)
    assert_titles_link_to_pages(message_blocks(reading_list_message(listed)), glaciers)
    home = home_view(glaciers[3], DAY, [], reading_list(glaciers[:4]))
    blocks = view_blocks(home, "views.publish")
    assert_titles_link_to_pages(blocks, glaciers)
    today = next(t for t in texts(blocks) if md.escape(glaciers[3].title)[:20] in t)
    assert f"<{PAGES['chi-glacier-1']}|" in today  # today's paper, DOI only


def test_digests_link_each_paper(glaciers) -> None:
    assert_titles_link_to_pages(message_blocks(render_digest_many(glaciers, DAY)), glaciers)
    one = message_blocks(render_digest(glaciers[2], DAY))  # one paper: a header, and "Paper:" its page
    assert any(url == PAGES["GlacNet0rv"] for url, _ in links(one))


def test_a_title_with_mrkdwn_characters_is_escaped_inside_its_link(service, glaciers) -> None:
    blocks = message_blocks(render(service.search("calving fronts radar", limit=5)))
    label = next(lab for url, lab in links(blocks) if url == PAGES["2503.98765"])
    assert label.startswith("Glacier Calving Fronts &amp; &lt;Ice&gt; Mélange")
    assert "<Ice>" not in json.dumps(blocks)


def test_papers_without_a_page_say_nothing_extra(service, pages_index) -> None:
    reply = service.search("attention", limit=5)
    seeds = [h.paper for h in reply.page.hits]
    assert seeds and all(p.url is None and p.doi is None for p in seeds)
    blocks = message_blocks(render(reply))
    labels = [lab for _, lab in links(blocks)]
    for p in seeds:
        assert not any(lab.startswith(md.escape(p.title)[:20]) for lab in labels)
        card = " ".join(texts(message_blocks(render(PaperReply(paper=p)))))
        assert "Paper:" not in card and "None" not in card
    entry = ReadingListEntry(paper_id=seeds[0].id, title=seeds[0].title)
    listed = " ".join(texts(message_blocks(reading_list_message(ReadingListReply(entries=(entry,), total=1)))))
    assert "<http" not in listed and "None" not in listed


def spoken(blocks: list[dict]) -> list[tuple[dict, str]]:
    """(value, accessibility_label) of every button that acts on one paper."""
    out = []
    for b in blocks:
        for e in [*(b.get("elements") or []), b.get("accessory") or {}]:
            if e.get("type") == "button" and "id" in json.loads(e.get("value") or "{}"):
                out.append((json.loads(e["value"]), e.get("accessibility_label", "")))
    return out


def test_every_paper_button_of_the_reading_list_names_its_paper(glaciers) -> None:
    by_id = {p.id: p for p in glaciers}
    for blocks in (
        message_blocks(reading_list_message(reading_list(glaciers))),
        view_blocks(home_view(None, DAY, [], reading_list(glaciers)), "views.publish"),
        message_blocks(render_digest_many(glaciers, DAY)),
    ):
        buttons = spoken(blocks)
        assert len(buttons) >= 2 * len(glaciers)
        for value, label in buttons:
            assert by_id[value["id"]].title[:15] in label, (value, label)


def test_the_app_home_says_days_and_papers_and_has_one_primary_button(glaciers) -> None:
    weekly = Subscription(
        team_id="T1", channel_id="C1", local_time="10:00", tz="Europe/London", days=(0,), papers=3, topic="glacier"
    )
    daily = Subscription(team_id="T1", channel_id="C2", local_time="09:00", tz="UTC")
    view = home_view(glaciers[0], DAY, [(weekly, None), (daily, None)], reading_list(glaciers))
    blocks = view_blocks(view, "views.publish")
    assert "*Your subscriptions*" in texts(blocks)  # not "a paper of the day": this one is weekly
    lines = [t for t in texts(blocks) if t.startswith("<#C")]
    assert "3 papers about “glacier” on Mondays at 10:00 (Europe/London)" in lines[0]
    assert "a paper of the day every day at 09:00 (UTC)" in lines[1]
    primary = [e for b in blocks for e in b.get("elements") or [] if e.get("style") == "primary"]
    assert [e["text"]["text"] for e in primary] == ["Search papers"]
