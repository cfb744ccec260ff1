"""``paperbot console``: a pasted paper link shows the preview Slack would unfurl."""

from __future__ import annotations

from bot.cli.console import NO_PREVIEW, Console
from bot.service.service import Service


def test_a_pasted_link_shows_its_card_and_an_unknown_one_says_so(linked_index, store, settings) -> None:
    console = Console(Service(linked_index, store, settings))
    out = console.handle("look at this https://arxiv.org/abs/2401.01234v2 and https://example.org/x")
    assert out.startswith("(link preview: https://arxiv.org/abs/2401.01234v2)")
    assert "Sparse Mixture Routing for Long-Context Retrieval" in out and "ICLR 2026" in out
    assert "[Details: /paper show" in out
    assert console.handle("https://arxiv.org/abs/9999.99999") == NO_PREVIEW
    assert "match" in console.handle("/paper search sparse routing")  # commands are unchanged


def test_related_answers_like_the_message_shortcut(seed_index, store, settings) -> None:
    console = Console(Service(seed_index, store, settings))
    out = console.handle(
        "related Could we hide secret messages inside ordinary generated images without training any model?"
    )
    assert out.startswith("(Find related papers)")
    (kistego,) = seed_index.by_name("KIStego")
    first = [line for line in out.splitlines() if line.startswith("*1.")][0]
    assert kistego.title[:30] in first
    assert "has no text to read" in console.handle("related  ")
