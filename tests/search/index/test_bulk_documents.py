"""The build's per-token analysis (bot.search.index.bulk_documents) gives what the
analyzer's ``words()``/``terms()`` path gives, and a bulk build's derived files
(length norms, impact arrays, lexicon) equal those read back from Whoosh."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numpy as np
from whoosh import index as whoosh_index

from bot.search import build_index
from bot.search.index.bulk_documents import TextTerms, bulk_document
from bot.search.index.schema import make_schema, paper_to_document
from bot.search.query.lexicon import LexiconBuilder
from bot.search.scoring.impacts import FIELDS as IMPACT_FIELDS
from bot.search.scoring.impacts import save_impacts
from bot.search.scoring.norms import SCORED_FIELDS, save_lengths
from tests.search.searchkit import SMALL

#: Texts that exercise every branch of the tokenizer: hyphen compounds (also
#: with the same joined form spelled two ways, and more parts than a compound
#: keeps), stop words in capitals in mostly lower-case text and in an all
#: capitals title, CJK, accents, C++/C#, dotted numbers, a trailing hyphen.
TRICKY = [
    "IT and US policy in the EU: test-time training, testt-ime, k-means, a-b-c-d-e-f.",
    "THE CASE FOR IT IN US",
    "Schölkopf's naïve café 東京大学の研究 한국어 C++ C# GPT-4 e.g. 2.61 x- -y",
    "NOT NOT x ON OF THE",
    "",
    "state-of-the-art state-of-the-art State-Of-The-Art",
]


def _papers(seed_papers):
    base = seed_papers[0]
    extra = [
        dataclasses.replace(
            base, id=f"tx{i}", title=t, abstract=TRICKY[-i - 1], name=t[:20] or None, authors=("Zoë Ünal", "A. B. C-D")
        )
        for i, t in enumerate(TRICKY)
    ]
    return list(seed_papers) + list(SMALL) + extra


def test_bulk_documents_have_the_analyzer_terms_and_lexicon(seed_papers) -> None:
    schema = make_schema()
    text, plain = schema["abstract"].analyzer, schema["authors"].analyzer
    tables = TextTerms(text), TextTerms(plain)
    want_lex, got_lex = LexiconBuilder(text.stem), LexiconBuilder(text.stem)
    papers = _papers(seed_papers)
    for paper in papers + papers:  # the second pass hits the per-token tables
        want, words = paper_to_document(paper, text)
        want_lex.add(paper.abstract, words)
        got, words, compounds = bulk_document(paper, *tables)
        got_lex.add_words(paper.abstract, words, compounds)
        assert sorted(want) == sorted(got)
        for name, value in want.items():
            if hasattr(schema[name].analyzer, "terms"):
                assert str(got[name]) == str(value)
                assert Counter(got[name].terms) == Counter(schema[name].analyzer.terms(value)), name
            else:
                assert got[name] == value, name
    want_data, got_data = want_lex.finish(), got_lex.finish()
    assert want_data == got_data
    assert list(want_data["compounds"]) == list(got_data["compounds"])  # first spelling first
    assert got_data["compounds"]["testtime"] == "test time"
    assert "IT" in got_data["words"]  # "IT" in a mostly lower-case abstract


def test_build_writes_the_norms_and_impacts_whoosh_reads_back(tmp_path, seed_papers, monkeypatch) -> None:
    """Lengths and impact arrays come from the bulk writers' memory; they must
    equal the files computed from the finished index (with two segments)."""
    monkeypatch.setattr("bot.search.index.build.PARALLEL_MIN", 10)
    monkeypatch.setattr("bot.search.index.fanout.usable_processes", lambda wanted: 2)
    monkeypatch.setattr("bot.search.scoring.impacts.MIN_DF", 3)  # some terms above, most below
    papers = _papers(seed_papers)
    build_index(tmp_path / "ix", papers)
    gen = next((tmp_path / "ix").glob("gen-*"))
    again = tmp_path / "again"
    again.mkdir()
    ix = whoosh_index.open_dir(str(gen))
    with ix.reader() as reader:
        assert len(reader.leaf_readers()) == 2
        save_lengths(again, reader)
        save_impacts(again, reader)
    for name in SCORED_FIELDS:
        assert (gen / f"len-{name}.bin").read_bytes() == (again / f"len-{name}.bin").read_bytes()
    for name in IMPACT_FIELDS:
        spans = json.loads((gen / f"imp-{name}-terms.json").read_text())
        assert spans == json.loads((again / f"imp-{name}-terms.json").read_text())
        assert len(spans) > 10
        for part in ("ids", "tf"):
            got, want = (np.load(d / f"imp-{name}-{part}.npy") for d in (gen, again))
            assert got.dtype == want.dtype and np.array_equal(got, want)
