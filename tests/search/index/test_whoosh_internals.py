"""The Whoosh-internals room (bot.search.index.whoosh_internals): the version guard and its
fallbacks, the pickled analyzer path, and indexes this code cannot open."""

from __future__ import annotations

import logging
import pickle

import pytest

from bot import corpus
from bot.core.config import Settings
from bot.runtime import wiring
from bot.search import SearchIndex, build_index, opens
from bot.search.index import whoosh_internals
from bot.search.index.analysis import text_analyzer
from bot.search.index.layout import IndexMissing, current_path
from tests.conftest import SEEDS

QUERIES = [
    "sparse attention",
    "steganografy",
    "speculative decoding draft model",
    "MoE",
    "test-time",
    '"sparse attention"',
    "attention -sparse",
    "distill*",
    "title:diffusion",
    "mixture of experts",
    "(sparse OR dense) attention",
    "LLM agents",
    "hello world",
]


def _rankings(index: SearchIndex, papers) -> list:
    out = []
    for q in QUERIES:
        page = index.search(q, limit=20)
        out.append(
            (
                q,
                page.total,
                page.corrected_query,
                page.suggestion,
                [(h.paper.id, h.score, h.snippet) for h in page.hits],
            )
        )
    for p in papers[:10]:
        out.append((p.id, [(h.paper.id, h.score) for h in index.similar(p.id, limit=10)]))
    return out


def test_an_untested_whoosh_uses_the_public_paths_with_identical_rankings(
    tmp_path, seed_papers, seed_index, monkeypatch, caplog
):
    expected = _rankings(seed_index, seed_papers)
    assert whoosh_internals.fast_paths()
    monkeypatch.setattr(whoosh_internals, "VERSION", "2.9.0-faked")
    monkeypatch.setattr(whoosh_internals, "_warned", set())
    used = []
    real_segments = whoosh_internals.new_segment
    monkeypatch.setattr(whoosh_internals, "new_segment", lambda *a, **k: used.append(1) or real_segments(*a, **k))
    with caplog.at_level(logging.WARNING, logger="bot.search.index.whoosh_internals"):
        build_index(tmp_path / "ix", seed_papers)
        got = _rankings(SearchIndex(tmp_path / "ix"), seed_papers)
    assert got == expected
    assert not used  # the bulk writer never ran: Whoosh's SegmentWriter did
    lines = [r for r in caplog.records if r.name == "bot.search.index.whoosh_internals"]
    assert len(lines) == 1 and "2.9.0-faked" in lines[0].getMessage()


def test_the_fast_scorer_path_is_the_one_used_on_the_tested_version(seed_index, monkeypatch):
    calls = []
    real = whoosh_internals.posting_blocks

    def spy(*args):
        for ids, weights in real(*args):
            calls.append(len(ids))
            yield ids, weights

    monkeypatch.setattr("bot.search.scoring.postings.posting_blocks", spy)
    # terms in fewer than impacts.MIN_DF papers (all of the seeds') are read by
    # the impact path from the postings too
    monkeypatch.setattr("bot.search.scoring.impacts.posting_blocks", spy)
    assert seed_index.search("attention").total == sum(calls) > 0


def test_the_analyzer_keeps_its_pickled_import_path():
    data = pickle.dumps(text_analyzer())
    assert b"bot.search.ranking" in data and b"bot.search.index.analysis" not in data
    assert pickle.loads(data) == text_analyzer()


def _break_pickled_schema(index_dir):
    """Rename the analyzer's module inside the generation's pickled TOC, as an
    index written by other code would name it."""
    gen = current_path(index_dir)
    tocs = list(gen.glob("_MAIN_*.toc"))
    assert tocs
    for toc in tocs:
        data = toc.read_bytes()
        assert b"bot.search.ranking" in data
        toc.write_bytes(data.replace(b"bot.search.ranking", b"bot.search.nowhere"))


def test_an_index_that_cannot_be_unpickled_says_rebuild_in_one_line(tmp_path, seed_papers):
    build_index(tmp_path / "ix", seed_papers[:5])
    _break_pickled_schema(tmp_path / "ix")
    assert not opens(tmp_path / "ix")
    with pytest.raises(IndexMissing) as err:
        SearchIndex(tmp_path / "ix").search("attention")
    message = str(err.value)
    assert "\n" not in message and message.endswith("rebuild the index with `paperbot index build`.")


def test_the_default_index_is_rebuilt_when_it_cannot_be_opened(tmp_path):
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite'}", index_dir=tmp_path / "index", seeds_dir=SEEDS
    )
    assert wiring.ensure_default_index(settings) is True
    assert wiring.ensure_default_index(settings) is False  # seeds unchanged, opens
    _break_pickled_schema(settings.index_dir)
    assert wiring.ensure_default_index(settings) is True  # rebuilt by itself
    assert opens(settings.index_dir)
    assert SearchIndex(settings.index_dir).count() == len(corpus.load_papers(wiring.seed_paths(settings)))


def test_term_lookups_answered_from_a_fields_whole_vocabulary_match_whoosh(tmp_path, seed_papers):
    """A reader given the complete author and name vocabularies (``field_terms``)
    answers ``in`` and ``doc_frequency`` as Whoosh does, present and absent terms
    alike, and asks Whoosh nothing about a term its field does not have."""
    from whoosh import index as whoosh_index

    from tests.search.searchkit import SMALL

    build_index(tmp_path / "ix", [*SMALL, *seed_papers])
    ix = whoosh_index.open_dir(str(current_path(tmp_path / "ix")))
    with ix.searcher() as plain, ix.searcher() as memo:
        reader = memo.reader()
        complete = whoosh_internals.field_terms(reader, ("authors", "name_key", "no_such_field"))
        assert set(complete) == {"authors", "name_key"} and complete["authors"] and complete["name_key"]
        whoosh_internals.memo_terms(reader, complete)
        asked = []
        whoosh_class = type(reader).__mro__[1]
        real = whoosh_class.__contains__

        def spy(self, key):
            if self is reader:
                asked.append(key)
            return real(self, key)

        monkey = pytest.MonkeyPatch()
        monkey.setattr(whoosh_class, "__contains__", spy)
        try:
            words = sorted(complete["authors"])[:20] + sorted(complete["name_key"])[:20] + ["attention", "zzzq", "wang"]
            for field in ("authors", "name_key", "all"):
                for word in words:
                    key = (field, word)
                    assert (key in reader, reader.doc_frequency(*key)) == (
                        key in plain.reader(),
                        plain.reader().doc_frequency(*key),
                    ), key
        finally:
            monkey.undo()
        assert asked and not [k for k in asked if k[0] in complete and k[1] not in complete[k[0]]]
