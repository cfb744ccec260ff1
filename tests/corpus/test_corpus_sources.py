"""OpenReview notes (API 1, API 2, the API's {"notes": [...]} answer) and the arXiv metadata
snapshot, read through ``load_papers`` and ``paperbot index build --source … --accepted-only``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.corpus import CorpusError, LoadStats, load_papers, not_accepted_summary
from bot.corpus.sources import STATUSES, normalise_record, note_status
from tests.clikit import run

FIXTURES = Path(__file__).resolve().parent / "fixtures"
API2 = FIXTURES / "openreview-api2.json"
API1 = FIXTURES / "openreview-api1.jsonl"
RESPONSE = FIXTURES / "openreview-notes-response.json"
ARXIV = FIXTURES / "arxiv-snapshot.jsonl"


def _load(path: Path, **kw):
    stats = LoadStats()
    papers = load_papers([path], stats=stats, workers=0, **kw)
    return {p.source_id: p for p in papers}, stats


def test_api2_notes_keep_their_own_title_authors_tldr_keywords_venue_and_forum_link():
    papers, stats = _load(API2)
    assert len(papers) == 6 and stats.skipped_no_abstract == 1  # the note without an abstract
    p = papers["aB3xQ9pLm2"]
    assert p.id == "aB3xQ9pLm2" and not p.title_derived  # the OpenReview id as written
    assert p.title == "Lattice Adapters for Frozen Speech Encoders"
    assert p.authors == ("Mira Okafor", "Tomas Lindqvist")
    assert p.tldr == "Small lattice-shaped adapters let a frozen speech encoder learn new accents."
    assert p.keywords == ("speech recognition", "parameter-efficient fine-tuning", "adapters")
    assert p.venue == "ICLR 2024 poster"
    assert p.url == "https://openreview.net/forum?id=aB3xQ9pLm2"
    assert p.abstract.startswith("We present lattice adapters")


def test_api2_variants_tldr_spelled_tl_dr_author_dicts_and_latex():
    papers, _ = _load(API2)
    p = papers["Zq7RtY0kWe"]
    assert p.authors == ("Ines Carvalho", "Dev Patel")  # {"fullname": …} and a plain name
    assert p.tldr.startswith("A graph neural operator forecasts") and "$" not in p.tldr
    assert "10×" in p.tldr  # "$10\\times$" cleaned
    assert papers["Rj2Pd8sVn1"].venue == "Submitted to ICLR 2024"  # never shown as if accepted


def test_api1_notes_plain_values_tl_dr_and_keyword_string():
    papers, _ = _load(API1)
    p = papers["HkxQ1a2b3C"]
    assert p.title == "Rotation-Equivariant Kernels for Sea-Ice Imagery"
    assert p.tldr == "Rotation-equivariant kernels classify sea-ice radar images with fewer labels."
    assert p.keywords == ("equivariance", "remote sensing", "sea ice")
    assert p.url == "https://openreview.net/forum?id=HkxQ1a2b3C" and p.venue == "ICLR 2019 Poster"


@pytest.mark.parametrize(
    "path, kept, left_out",
    [
        (API2, {"aB3xQ9pLm2", "Zq7RtY0kWe"}, {"rejected": 1, "withdrawn": 1, "desk_rejected": 1, "submitted": 1}),
        (API1, {"HkxQ1a2b3C"}, {"withdrawn": 1, "unknown": 1}),
        (RESPONSE, {"Tm4Cq2Lx8P"}, {"submitted": 1}),
    ],
)
def test_accepted_only_keeps_accepted_notes_and_counts_the_rest(path, kept, left_out):
    papers, stats = _load(path, accepted_only=True)
    assert set(papers) == kept
    assert stats.not_accepted == left_out
    everything, _ = _load(path)
    assert len(everything) == len(kept) + sum(left_out.values())


def test_accepted_only_leaves_sources_without_decisions_alone():
    papers, stats = _load(ARXIV, accepted_only=True)
    assert len(papers) == 3 and stats.not_accepted == {}


def test_accepted_only_with_nothing_accepted_says_what_was_left_out(tmp_path):
    only_rejected = [n for n in json.loads(API2.read_text()) if n["id"] == "Rj2Pd8sVn1"]
    path = tmp_path / "rejected.json"
    path.write_text(json.dumps(only_rejected))
    with pytest.raises(CorpusError, match="no accepted papers .*1 rejected"):
        load_papers([path], accepted_only=True, workers=0)


def test_the_api_answer_shape_with_a_notes_list_is_read():
    papers, _ = _load(RESPONSE)
    assert set(papers) == {"Tm4Cq2Lx8P", "Gh7Ew1Rs3Y"}
    assert papers["Tm4Cq2Lx8P"].venue == "NeurIPS 2025 spotlight"


@pytest.mark.parametrize(
    "content, invitation, status",
    [
        ({"venueid": {"value": "ICLR.cc/2024/Conference"}}, None, "accepted"),
        ({"venueid": "ICLR.cc/2024/Conference/Rejected_Submission"}, None, "rejected"),
        ({"venueid": {"value": "ICLR.cc/2024/Conference/Withdrawn_Submission"}}, None, "withdrawn"),
        ({"venueid": {"value": "ICLR.cc/2024/Conference/Desk_Rejected_Submission"}}, None, "desk_rejected"),
        ({"venueid": {"value": "ICLR.cc/2024/Conference/Submission"}}, None, "submitted"),
        ({"venueid": {"value": "TMLR"}}, None, "accepted"),
        ({"venue": {"value": "Submitted to ICLR 2024"}}, None, "submitted"),
        ({"venue": "ICLR 2019 Conference Blind Submission"}, None, "submitted"),
        ({"venue": "ICML 2023 Oral"}, None, "accepted"),
        ({}, "ICLR.cc/2019/Conference/-/Withdrawn_Submission", "withdrawn"),
        ({}, ["ICLR.cc/2019/Conference/-/Desk_Rejected_Submission"], "desk_rejected"),
        ({}, "ICLR.cc/2019/Conference/-/Blind_Submission", "unknown"),
        ({}, None, "unknown"),
    ],
)
def test_note_status(content, invitation, status):
    assert note_status(content, invitation) == status
    assert status in STATUSES


def test_arxiv_snapshot_authors_parsed_links_doi_and_old_ids():
    papers, _ = _load(ARXIV)
    p = papers["0704.0001"]
    assert p.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan")
    assert p.title == "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    assert p.url == "https://arxiv.org/abs/0704.0001" and p.doi == "10.1103/PhysRevD.76.013009"
    assert p.categories == ("hep-ph",) and p.abstract.startswith("A fully differential calculation")
    old = papers["hep-th/9901001"]
    assert old.id == "hep-th-9901001" and old.url == "https://arxiv.org/abs/hep-th/9901001"
    assert old.authors == ("A. Writer", "B. Reader Jr") and old.doi is None
    plain = papers["2403.01234"]  # no authors_parsed: the string
    assert plain.authors == ("Lin Zhou", "Maya Cohen", "Aki Tanaka")
    assert plain.code_urls == ("https://github.com/example-lab/draft-trees",)


def test_other_records_are_not_reshaped():
    rec = {"id": "1", "title": "T", "abstract": "A", "content": "not a dict"}
    assert normalise_record(rec) is rec


def test_not_accepted_summary_lists_most_first():
    stats = LoadStats(not_accepted={"withdrawn": 2, "rejected": 5, "desk_rejected": 2})
    assert not_accepted_summary(stats) == "5 rejected, 2 desk-rejected, 2 withdrawn"
    assert not_accepted_summary(LoadStats()) == ""


def test_cli_builds_an_accepted_list_and_search_shows_the_forum_link(tmp_path):
    index = str(tmp_path / "iclr")
    built = run(
        ["index", "build", "--source", str(API2), "--source", str(API1), "--accepted-only", "--index", index], tmp_path
    )
    assert built.returncode == 0, built.stderr
    assert "indexed 3 papers" in built.stdout
    assert "left out as not accepted: 2 withdrawn, 1 desk-rejected, 1 rejected, 1 submitted, 1 unknown" in built.stdout
    found = run(["search", "--index", index, "--json", "glacier velocity"], tmp_path)
    assert found.returncode == 0, found.stderr
    top = json.loads(found.stdout)["results"][0]
    assert top["url"] == "https://openreview.net/forum?id=Zq7RtY0kWe" and top["venue"] == "ICLR 2024 oral"
    assert top["source_id"] == "Zq7RtY0kWe" and top["authors"] == ["Ines Carvalho", "Dev Patel"]
    gone = run(["search", "--index", index, "--json", "curriculum dropout"], tmp_path)
    assert gone.returncode == 0 and "Rj2Pd8sVn1" not in gone.stdout


def test_cli_index_add_accepted_only_adds_the_accepted_notes(tmp_path):
    index = str(tmp_path / "idx")
    first = run(["index", "add", "--source", str(RESPONSE), "--accepted-only", "--index", index], tmp_path)
    assert first.returncode == 0, first.stderr
    assert "created one with 1 paper (left out as not accepted: 1 submitted)" in first.stdout
    more = run(["index", "add", "--source", str(API1), "--accepted-only", "--index", index], tmp_path)
    assert "added or updated 1 paper in" in more.stdout and "1 unknown, 1 withdrawn" in more.stdout
    found = run(["search", "--index", index, "--json", "sea ice radar"], tmp_path)
    ids = [r["source_id"] for r in json.loads(found.stdout)["results"]]
    assert ids[0] == "HkxQ1a2b3C" and "Gh7Ew1Rs3Y" not in ids


def test_a_plain_record_keeps_its_first_doi_and_ignores_junk(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "x1",
                "title": "T",
                "abstract": "Some abstract text here.",
                "doi": "10.1016/j.x.2020.1 10.1016/j.y.2021.2",
            }
        )
        + "\n"
        + json.dumps({"id": "x2", "title": "U", "abstract": "Other abstract text here.", "doi": ["not", "a", "doi"]})
        + "\n"
    )
    papers, _ = _load(path)
    assert papers["x1"].doi == "10.1016/j.x.2020.1" and papers["x2"].doi is None
