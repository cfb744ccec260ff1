"""Buttons as a screen reader and a glance see them (issue 12 point 4): every
button names what it acts on (``accessibility_label``), at most one primary
button per message or view, and a "Similar papers" list under a card is clickable."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bot.core.replies import PaperReply
from bot.render import ACTION_ANOTHER, ACTION_DETAILS, render
from bot.render.home import home_view
from tests.render.test_render import ALL, page, paper


def buttons(blocks) -> list[dict]:
    """Every button in ``blocks``: in actions blocks and as section accessories."""
    out = []
    for b in blocks:
        if b.get("type") == "actions":
            out += [e for e in b["elements"] if e.get("type") == "button"]
        accessory = b.get("accessory") or {}
        if accessory.get("type") == "button":
            out.append(accessory)
    return out


@pytest.mark.parametrize("reply", ALL, ids=lambda r: type(r).__name__)
def test_every_button_has_an_accessibility_label_and_one_primary_at_most(reply) -> None:
    shown = buttons(render(reply).blocks)
    assert sum(b.get("style") == "primary" for b in shown) <= 1
    for b in shown:
        label = b.get("accessibility_label", "")
        assert 0 < len(label) <= 75
        value = json.loads(b["value"])
        if "id" in value and b["action_id"] != ACTION_ANOTHER:  # a paper's button names it
            title = next(p.title for p in [paper(i) for i in range(20)] if p.id == value["id"])
            assert title[:8].replace("<", "‹") in label


def test_the_home_tab_has_one_primary_button() -> None:
    view = home_view(paper(), date(2026, 12, 1), [])
    assert sum(b.get("style") == "primary" for b in buttons(view["blocks"])) == 1


def test_similar_papers_under_a_card_are_clickable() -> None:
    others = page().hits[:3]
    message = render(PaperReply(paper=paper(), others=tuple(others), visibility="in_channel"))
    clickable = [json.loads(b["value"])["id"] for b in buttons(message.blocks) if b["action_id"] == ACTION_DETAILS]
    assert clickable == [h.paper.id for h in others]


def test_views_and_new_surfaces_follow_the_same_button_rules() -> None:
    from bot.core.replies import ShareReply
    from bot.render.cards import share_message, share_modal
    from bot.render.home import search_modal
    from bot.render.related import related_message, related_modal

    results = page(n=5, total=12)
    surfaces = [
        search_modal("q", page=results)["blocks"],
        related_modal(page=results)["blocks"],
        list(related_message(results).blocks),
        share_modal(paper(), 2)["blocks"],
        list(share_message(ShareReply(paper=paper(), sharer="Ann")).blocks),
    ]
    for blocks in surfaces:
        shown = buttons(blocks)
        assert sum(b.get("style") == "primary" for b in shown) <= 1
        assert all(0 < len(b.get("accessibility_label", "")) <= 75 for b in shown)
    assert len(buttons(surfaces[0])) == 5 * 4 + 1  # Details, Similar, Save (issue 13), Share to… + Next
