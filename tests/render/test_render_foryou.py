"""The picks' rendering (``bot.render.foryou``): why in words, and every message within Slack's
limits and the strict fake's Block Kit rules — a full ``/paper foryou`` page of the longest seed
papers and a five-paper learned post (``tests.strict.surfaces.check_message``)."""

from __future__ import annotations

from datetime import date

from bot.core.replies import ForYouReply, Recommended
from bot.render import render, render_learned
from bot.render.foryou import ACTION_FORYOU_PAGE, ACTION_MORE, why_text
from tests.strict.surfaces import check_message


def _longest(seed_papers, n: int = 5):
    return sorted(seed_papers, key=lambda p: -(len(p.title) + len(p.tldr) + len(" ".join(p.authors))))[:n]


def _picks(seed_papers) -> tuple[Recommended, ...]:
    like = seed_papers[0]
    return tuple(
        Recommended(paper=p, terms=("sparse attention", "kv cache", "tokens < & >"), like=like)
        for p in _longest(seed_papers)
    )


def _text(message) -> str:
    return " ".join(str(b) for b in message.blocks)


def test_why_names_the_liked_paper_and_the_words_escaped(seed_papers):
    rec = _picks(seed_papers)[0]
    assert why_text(rec).startswith("Why: because you saved *")
    assert why_text(rec).endswith("*; words: *sparse attention*, *kv cache*, *tokens &lt; &amp; &gt;*")
    assert why_text(Recommended(paper=rec.paper, how="fallback")) == ""  # the rotation's paper: no why


def test_a_full_page_of_picks_fits_and_keeps_its_paging(seed_papers):
    message = render(ForYouReply(picks=_picks(seed_papers), has_more=True))
    assert check_message({"blocks": list(message.blocks), "text": message.text}) is None
    assert "Shortened" not in _text(message) and ACTION_FORYOU_PAGE in _text(message)
    assert _text(message).count(ACTION_MORE) == 5


def test_a_five_paper_learned_post_fits_with_why_and_buttons(seed_papers):
    picks = _picks(seed_papers)
    message = render_learned(list(picks), date(2027, 1, 4), "5 papers of the day picked for you · 2027-01-04", "note")
    assert check_message({"blocks": list(message.blocks), "text": message.text}) is None
    assert "Shortened" not in _text(message)
    assert _text(message).count("Why: because you saved") == 5 and _text(message).count(ACTION_MORE) == 5
