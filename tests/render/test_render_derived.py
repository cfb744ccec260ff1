"""A derived title is shown as derived wherever a card shows it (issue 12 point 4)."""

from __future__ import annotations

import json
from datetime import date

from bot.core.models import Hit, SearchPage
from bot.core.replies import PaperReply, ResultsReply, ShareReply
from bot.render import render, render_digest
from bot.render.blocks import DERIVED_TITLE
from bot.render.home import home_view
from tests.render.test_render import paper


def test_a_derived_title_says_so_on_every_card() -> None:
    derived, given = paper(1, title_derived=True), paper(2, title_derived=False)
    page = SearchPage(
        query="q", total=2, offset=0, limit=5, took_ms=1.0, hits=(Hit(derived, 1.0, "a"), Hit(given, 0.5, "b"))
    )
    shown = [
        render(PaperReply(paper=derived)),
        render(ShareReply(paper=derived, sharer="Ann")),
        render_digest(derived, date(2026, 12, 1)),
    ]
    for message in shown:
        assert DERIVED_TITLE in json.dumps(message.blocks)
    assert json.dumps(render(ResultsReply(page=page)).blocks).count("_title derived_") == 1
    assert DERIVED_TITLE in json.dumps(home_view(derived, date(2026, 12, 1), []))
    assert DERIVED_TITLE not in json.dumps(render(PaperReply(paper=given)).blocks)
