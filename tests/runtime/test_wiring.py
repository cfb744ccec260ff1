"""``bot.runtime.wiring``: the default index without seeds — an existing index is served
as built; seeds are needed only to build one (docs/interfaces.md "Environment variables")."""

from __future__ import annotations

import logging

import pytest

from bot import corpus
from bot.core.config import Settings
from bot.core.models import CONSOLE_TEAM, Context
from bot.core.replies import ResultsReply
from bot.runtime import wiring


def test_an_existing_index_is_served_without_seeds(tmp_path, seed_index_dir, caplog) -> None:
    caplog.set_level(logging.INFO, logger="bot.runtime.wiring")
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'p.db'}", index_dir=seed_index_dir, seeds_dir=tmp_path / "no-seeds-here"
    )
    assert wiring.ensure_default_index(settings) is False
    assert [r.levelname for r in caplog.records] == ["INFO"] and "as built" in caplog.text
    service = wiring.build_service(settings)
    reply = service.command("search image steganography", Context(CONSOLE_TEAM, "C0CONSOLE", "U0CONSOLE"))
    assert isinstance(reply, ResultsReply) and reply.page.hits[0].paper.name == "KIStego"


def test_no_seeds_and_no_index_is_a_clear_error(tmp_path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'p.db'}",
        index_dir=tmp_path / "index",
        seeds_dir=tmp_path / "no-seeds-here",
    )
    with pytest.raises(corpus.CorpusError, match="no-seeds-here"):
        wiring.ensure_default_index(settings)
