"""JSON Lines, JSON and CSV inputs (gzip too), folders, errors and the real SciFact corpus."""

from __future__ import annotations

import csv
import gzip
import itertools
import json
import os
from pathlib import Path

import pytest

from bot.corpus import CorpusError, LoadStats, iter_records, load_papers, seeds_fingerprint, sentences
from tests.kit import ROOT, SEEDS

#: The shared data sets: ``PAPERBOT_SHARED_DATA``, else ``../shared/data`` beside the repository.
DATA = Path(os.environ.get("PAPERBOT_SHARED_DATA") or ROOT.parent / "shared" / "data")
ABSTRACT = (
    "We propose SparseKV, a cache eviction policy for long-context inference. "
    "Experiments show SparseKV reduces memory by 40% while matching accuracy."
)


def _write_jsonl(path: Path, rows, opener=open) -> Path:
    with opener(path, "wt", encoding="utf-8") as f:
        for row in rows:
            f.write(row if isinstance(row, str) else json.dumps(row))
            f.write("\n")
    return path


def test_jsonl_fields_and_bad_lines(tmp_path):
    path = _write_jsonl(
        tmp_path / "p.jsonl",
        [
            {
                "id": "2503.11731",
                "title": "SparseKV: Evicting $\\mathcal{O}(n)$ Keys",
                "abstract": ABSTRACT,
                "authors": ["Ada Lovelace", "Alan Turing"],
                "categories": "cs.LG cs.CL",
                "venue": "ICML 2026",
            },
            {
                "_id": "17",
                "title": "",
                "text": "Plain text abstract about graphs. We study graphs.",
                "authors": "A. One, B. Two and C. Three",
                "url": "https://example.org/17",
            },
            "{not json",
            "[1, 2]",
            {"id": "18", "title": "No abstract", "abstract": "   "},
            "",
            {"id": "19", "title": "Semicolons", "abstract": ABSTRACT, "authors": "X Y; Z W"},
        ],
    )
    stats = LoadStats()
    papers = load_papers([path], stats=stats)
    assert [p.id for p in papers] == ["2503.11731", "17", "19"]
    first, second, third = papers
    assert first.title == "SparseKV: Evicting O(n) Keys" and not first.title_derived
    assert first.name == "SparseKV"
    assert first.authors == ("Ada Lovelace", "Alan Turing")
    assert first.categories == ("cs.LG", "cs.CL")
    assert first.venue == "ICML 2026"
    assert first.url == "https://arxiv.org/abs/2503.11731"
    assert first.source == "p.jsonl#1" and first.source_id == "2503.11731"
    assert second.title_derived and second.title
    assert second.authors == ("A. One", "B. Two", "C. Three")
    assert second.url == "https://example.org/17" and second.source_id == "17"
    assert third.authors == ("X Y", "Z W")
    assert (stats.bad_lines, stats.skipped_no_abstract, stats.files) == (2, 1, 1)
    assert stats.notes == ["p.jsonl: skipped 1 without abstract, 2 unreadable"]


def test_gzip_csv_and_json_array(tmp_path):
    _write_jsonl(tmp_path / "a.jsonl.gz", [{"id": "a1", "title": "T", "abstract": ABSTRACT}], opener=gzip.open)
    with open(tmp_path / "b.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["ID", "Title", "Abstract", "Authors", "Categories"])
        w.writerow(["b1", "A CSV paper", ABSTRACT.replace("40%", "50%"), "P Q and R S", "cs.AI"])
        w.writerow(["b2", "Empty", "", "", ""])
    with gzip.open(tmp_path / "c.csv.gz", "wt", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["_id", "text"], ["c1", "Gzipped CSV abstract. It is short."]])
    (tmp_path / "d.json").write_text(
        json.dumps([{"id": "d1", "abstract": "Array abstract one."}, "junk"]), encoding="utf-8"
    )
    (tmp_path / "README.md").write_text("not a paper file")
    stats = LoadStats()
    papers = load_papers([tmp_path], stats=stats)
    assert [p.id for p in papers] == ["a1", "b1", "c1", "d1"]
    assert papers[1].authors == ("P Q", "R S") and papers[1].categories == ("cs.AI",)
    assert papers[1].title == "A CSV paper"
    assert papers[2].title_derived
    assert (stats.skipped_no_abstract, stats.bad_lines, stats.skipped_files) == (1, 1, 1)


def test_iter_records_streams_in_order(tmp_path):
    rows = [{"id": f"r{i}", "title": f"Paper {i}", "abstract": f"Abstract number {i}. It is fine."} for i in range(300)]
    path = _write_jsonl(tmp_path / "many.jsonl", rows)
    stream = iter_records(path)
    assert next(stream).id == "r0"
    assert [p.id for p in stream] == [f"r{i}" for i in range(1, 300)]


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("x.pdf", b"%PDF", "unsupported file type"),
        ("x.jsonl.gz", b"not gzip at all", "cannot read"),
        ("x.json", b"[{\"id\": 1,", "not valid JSON"),
        ("x.txt", b"ICML 2026\n\n\xff\xfe bad bytes", "not UTF-8"),
    ],
)
def test_unreadable_input_raises_corpus_error(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        load_papers([tmp_path / name])


def test_missing_and_empty_inputs(tmp_path):
    with pytest.raises(CorpusError, match="no such file or folder"):
        load_papers([tmp_path / "nope"])
    os.mkfifo(tmp_path / "a-pipe")
    for special in ("/dev/null", tmp_path / "a-pipe"):  # they exist: not "no such file"
        with pytest.raises(CorpusError, match=f"^{special}: not a regular file or folder"):
            load_papers([special])
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="no paper files"):
        load_papers([tmp_path / "empty"])
    (tmp_path / "only-header.txt").write_text("ICML 2026 Papers\n")
    with pytest.raises(CorpusError, match="no papers found"):
        load_papers([tmp_path / "only-header.txt"])


def test_duplicate_inputs_load_once(tmp_path):
    stats = LoadStats()
    papers = load_papers([SEEDS, *sorted(SEEDS.glob("*.txt"))], stats=stats)
    assert len(papers) == 38 and stats.duplicates == 38


def test_seeds_fingerprint(tmp_path):
    files = sorted(SEEDS.glob("*.txt"))
    fp = seeds_fingerprint([SEEDS])
    assert len(fp) == 64 and int(fp, 16) >= 0
    assert fp == seeds_fingerprint(files[::-1]) == seeds_fingerprint(files)
    copy = tmp_path / "seeds"
    copy.mkdir()
    for f in files:
        (copy / f.name).write_bytes(f.read_bytes())
    assert seeds_fingerprint([copy]) == fp
    (copy / files[0].name).write_bytes(files[0].read_bytes() + b"\n")
    assert seeds_fingerprint([copy]) != fp
    with pytest.raises(CorpusError):
        seeds_fingerprint([tmp_path / "missing"])


@pytest.mark.skipif(
    not (DATA / "scifact" / "corpus.jsonl").exists(),
    reason=f"SciFact not present at {DATA}/scifact (set PAPERBOT_SHARED_DATA)",
)
def test_real_scifact_slice(tmp_path):
    with open(DATA / "scifact" / "corpus.jsonl", "rb") as f:
        lines = list(itertools.islice(f, 300))
    path = tmp_path / "scifact.jsonl"
    path.write_bytes(b"".join(lines))
    raw = [json.loads(line) for line in lines]
    stats = LoadStats()
    papers = load_papers([path], stats=stats)
    with_text = [r for r in raw if r["text"].strip()]
    assert len(papers) == len(with_text) and stats.skipped_no_abstract == len(raw) - len(with_text)
    assert [p.source_id for p in papers] == [r["_id"] for r in with_text]
    assert [p.id for p in papers] == [r["_id"] for r in with_text]
    assert papers[0].id == "4983"
    assert papers[0].title.startswith("Microstructural development of human newborn cerebral white matter")
    assert not any(p.title_derived for p in papers)
    for p in papers:
        assert 0 < len(p.tldr) <= 300
        # extractive: each sentence is the abstract's own, but a leading connective
        # ("However, we …") may have been dropped and the next word capitalised
        assert all(
            part in p.abstract or part[0].lower() + part[1:] in p.abstract for part in sentences(p.tldr.rstrip("…"))
        )
        assert 1 <= len(p.keywords) <= 6


def test_hostile_text_is_made_safe_and_odd_records_never_stop_a_file(tmp_path, monkeypatch):
    """One-letter abstracts crashed keyword extraction; a lone surrogate ("\\ud800"
    in JSON) could not be hashed, indexed or printed; NUL bytes survived."""
    rows = [{"id": "one", "abstract": letter} for letter in ("Œ", "é", "_", "Ω")]
    rows += [
        '{"id": "sur\\ud800", "title": "T\\udfff", "abstract": "Lone \\ud800 surrogate.", "authors": ["A\\ud800"]}',
        {"id": "nul", "title": "nul\u0000title\u202e", "abstract": "Has a NUL\u0000 byte."},
        {"id": "ok", "abstract": ABSTRACT},
    ]
    papers = load_papers([_write_jsonl(tmp_path / "h.jsonl", rows)])
    assert len(papers) == 7
    for p in papers:
        for text in (p.id, p.title, p.abstract, p.tldr, *p.authors, *p.keywords):
            text.encode("utf-8")  # no lone surrogate anywhere
            assert "\x00" not in text
    by_source = {p.source_id: p for p in papers}
    assert by_source["nul"].title == "nul title" and by_source["sur\ufffd"].authors == ("A\ufffd",)

    import bot.corpus.records as records

    def broken(rec, source):
        if rec.get("id") == "ok":
            raise RuntimeError("a bug in one record's parsing")
        return real(rec, source)

    real = records.record_entry
    monkeypatch.setattr(records, "record_entry", broken)
    stats = LoadStats()
    papers = load_papers([tmp_path / "h.jsonl"], stats=stats)
    assert len(papers) == 6 and stats.bad_lines == 1
