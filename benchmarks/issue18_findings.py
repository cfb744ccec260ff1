#!/usr/bin/env python3
"""Issue 18's findings, reproduced: each query, what the product answers, which function decides.

Usage::

    .venv/bin/python benchmarks/issue18_findings.py [DATA_DIR] [--docs 2000] \
        [--out benchmarks/results/issue18_findings.txt]

Index: the 38 seed abstracts plus the first ``--docs`` records of ``DATA_DIR`` (arxiv-000
first), built with the product's loader and ``build_index``. Every query goes through
``SearchIndex.search`` (limit 100) or ``resolve``/``get``/``linked`` — the public API
``/paper search`` and ``/paper show`` use. The DOI and OpenReview cases need records the
sample does not have (no record has a ``doi`` field; none is an OpenReview note), so two
small corpora are made here: one sample record with a ``doi`` field added, and three
OpenReview notes, two of whose ids differ only in letter case. The causes (``CAUSES``)
were read from the code at this commit; the figures are this run's. A few seconds.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

import arxiv_sample as sample
from report import publish

QUERIES = [
    "sparce atention",
    "sparse attention",
    "sparce",
    "ANALYSIS OF SERIAL AND PARALLEL ADDERS",
    "analysis of serial and parallel adders",
    "IT operations",
    "operations in IT",
    "IT",
    "diffusion AND NOT text",
    "diffusion NOT text",
    "diffusion -text",
    "reinforcement learning",
    '"reinforcement learning"',
]

CAUSES = {
    "sparce": "bot/search/spelling.py:suggest picks the most frequent word at the nearest distance, alone: "
    "'space' (in more papers) beats 'sparse'; the other words never count (typo_bench.py).",
    "ANALYSIS": "bot/search/query.py:_Parser.sequence/_operator: an UPPERCASE AND is an operator, so a title "
    "typed in capitals requires SERIAL and PARALLEL (no paper has both) -> 0; lower case 'and' is a stop word. "
    "Fix: in a query mostly in capitals (analysis.mostly_lower False) read AND/OR/NOT as words, or, when an "
    "operator query finds nothing, run it as words with a note.",
    "IT": "bot/search/compile.py:Compiler.compile: caps = analysis.mostly_lower(words) is False for 'IT operations' "
    "(1 of 2 words in capitals is not 'fewer than half'), so 'IT' is the stop word 'it' and is dropped; 'IT' "
    "alone raises 'only very common words'. When the rule does keep it ('operations in IT'), "
    "analysis.PaperAnalyzer.stem gives 'it' — the Porter2 stem of 'its' — so IT matches every abstract with "
    "'its'. Fix: a word in capitals among lower-case words is an acronym whatever the ratio (mostly_lower "
    "only for 3+ words), and index/search a kept stop-word acronym unstemmed under its own term (e.g. 'IT' "
    "-> 'it_' or the capitals) so it never meets 'its'.",
    "AND NOT": "bot/search/query.py:_Parser.sequence: after AND, _operator('NOT', after_op=True) is False, so NOT "
    "is skipped as a stop word and the pending AND is dropped: 'text' becomes an ordinary ranked word (OR). "
    "Fix: accept NOT (and '-') right after AND/OR as the negation of the next clause (AND NOT = ANDNOT).",
    "paragraph": "bot/search/engine.py:SearchIndex.search: words are OR-ed (docs/search.md: ranking orders, "
    "never hides), weigh.weigh keeps 64 groups, and SearchPage.total counts every paper matching any kept "
    "word — nearly the whole index. Fix: for a long text report no count (or the papers matching most groups), "
    "e.g. route pasted prose to SearchIndex.related and say 'best matches'.",
    "reinforcement": "Same OR rule: total counts papers with 'reinforcement' OR 'learning' "
    "(results.rank: len(result.scores)). Fix: count the papers matching all words (matchset, as match_all "
    "does) and say how many more match some.",
    "arXiv DOI": "bot/search/links.py:_ARXIV_RE requires no '.' before the id ((?<![\\w.])), so "
    "'10.48550/arXiv.2503.11731' pins nothing, though bot/corpus/links.py:doi_key maps it (unfurls do). Fix: "
    "allow 'arXiv.' before the id in _ARXIV_RE (or parse DOIs with corpus.links.doi_key).",
    "doi": "bot/corpus/records.py:record_entry keeps a record's doi (sources.first_doi -> Paper.doi), but "
    "bot/search/schema.py:paper_to_document indexes no DOI key and bot/search/links.py:linked_docs knows only "
    "arXiv ids and OpenReview links; a DOI query is searched as words (its number pieces). Fix: index "
    "doi_key(paper.doi) in source_key (or a doi_key field) and recognise 10.NNNN/… and doi.org links in "
    "links.source_ids.",
    "openreview": "bot/corpus/ids.py:normalise_source_id lower-cases the id (OpenReview ids are case-sensitive): "
    "the product id shown is not the OpenReview id, and two notes whose ids differ in case share a base id, "
    "so ids.assign_ids renames both with hash suffixes and get(<either OpenReview id>) finds neither "
    "(engine.SearchIndex.get matches the case-folded key). search/links.linked_docs and source_key are "
    "case-folded too, so a forum link pins both papers. Fix: keep an OpenReview id's case in Paper.id (ids "
    "are typed by copying), compare source ids exactly first and case-folded only when that finds nothing.",
}


def has_word(paper, word: str) -> bool:
    return bool(re.search(rf"\b{word}\b", f"{paper.title} {paper.abstract}", re.I))


def run(index, text: str) -> dict:
    from bot.core.models import QueryError

    try:
        page = index.search(text, limit=100)
    except QueryError as e:
        return {"query": text, "error": str(e)}
    return {
        "query": text,
        "total": page.total,
        "corrected": page.corrected_query,
        "suggestion": page.suggestion,
        "notes": list(page.notes),
        "top": [h.paper.title[:70] for h in page.hits[:2]],
        "top100_with_text": sum(has_word(h.paper, "text") for h in page.hits),
    }


def doi_case(folder: Path, record: dict) -> dict:
    """A sample record with a DOI added: is it kept, and does a DOI query find the paper?"""
    doi = "10.1103/PhysRevD.76.013009"
    papers = sample.load([{**record, "doi": doi}])
    index, _ = sample.build(papers, folder)
    return {
        "doi_kept": papers[0].doi,
        "search_doi": [h.paper.id for h in index.search(doi, limit=3).hits],
        "search_doi_link": [h.paper.id for h in index.search(f"https://doi.org/{doi}", limit=3).hits],
        "resolve_doi": getattr(index.resolve(doi)[0], "id", None),
        "arxiv_doi": [h.paper.id for h in index.search(f"10.48550/arXiv.{record['id']}", limit=1).hits],
    }


def openreview_case(folder: Path) -> dict:
    """Three OpenReview notes, two of whose ids differ only in case."""
    notes = [
        {"id": i, "forum": i, "content": {"title": {"value": t}, "abstract": {"value": a}}}
        for i, t, a in [
            ("HyxY6JHKwr", "Sparse routing", "We study sparse routing in mixtures of experts."),
            ("AbCdEf1234", "Graph pooling", "We propose a pooling layer for graph networks."),
            ("abcdef1234", "Speech tokens", "We propose discrete speech tokens for language models."),
        ]
    ]
    papers = sample.load(notes)
    index, _ = sample.build(papers, folder)
    out = {"ids": {p.source_id: p.id for p in papers}}
    for typed in ("HyxY6JHKwr", "hyxy6jhkwr", "AbCdEf1234", "abcdef1234"):
        got = index.get(typed)
        paper, choices = index.resolve(typed)
        out[typed] = {
            "get": got.id if got else None,
            "resolve": paper.id if paper else None,
            "choices": [p.id for p in choices],
        }
    link = "https://openreview.net/forum?id=AbCdEf1234"
    out["link_pins"] = [h.paper.id for h in index.search(link, limit=3).hits]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, nargs="?", default=sample.DEFAULT_DATA)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    records = sample.first_records(args.data_dir, args.docs + 100)
    papers = sample.load(records[: args.docs], seeds=True)
    # the first record after the indexed ones with 150 words: the pasted paragraph
    unindexed = next(r for r in records[args.docs :] if len(r["abstract"].split()) >= 150)
    paragraph = " ".join(unindexed["abstract"].split()[:150])
    found = {}
    with tempfile.TemporaryDirectory(prefix="paperbot-issue18-") as tmp:
        index, _ = sample.build(papers, Path(tmp) / "main")
        for q in QUERIES:
            found[q] = run(index, q)
        found["paragraph"] = run(index, paragraph)
        both = sum(has_word(p, "reinforcement") and has_word(p, "learning") for p in papers)
        phrase = sum(bool(re.search(r"reinforcement learning", f"{p.title} {p.abstract}", re.I)) for p in papers)
        doi = doi_case(Path(tmp) / "doi", records[0])
        openreview = openreview_case(Path(tmp) / "openreview")
    lines = sample.header(
        "issue 18 findings — queries on the seeds + first arXiv papers",
        args.data_dir,
        f"seeds + first {args.docs} records = {len(papers)} papers",
    )
    for q, r in found.items():
        shown = q if q != "paragraph" else f"pasted paragraph ({len(paragraph.split())} words of {unindexed['id']})"
        if "error" in r:
            lines.append(f"{shown!r}: refused — {r['error']}")
            continue
        extra = f"; corrected to {r['corrected']!r}" if r["corrected"] else ""
        extra += f"; suggestion {r['suggestion']!r}" if r["suggestion"] and not r["corrected"] else ""
        extra += "".join(f"; note: {n!r}" for n in r["notes"])
        lines.append(f"{shown!r}: {r['total']} papers{extra}; top: {r['top'][:1]}")
        if "text" in q:
            lines.append(f"    papers with the word 'text' among its top 100: {r['top100_with_text']}")
    lines += [
        f"    'reinforcement learning': {both} papers have both words, {phrase} the phrase "
        f"(of {len(papers)}); the search counts {found['reinforcement learning']['total']}",
        "",
        f"DOI: the sample has no doi field (its records: {', '.join(sorted(records[0]))}).",
        f"    a record with doi added: Paper.doi = {doi['doi_kept']!r}; search(doi) -> {doi['search_doi']}; "
        f"search(doi.org link) -> {doi['search_doi_link']}; resolve(doi) -> {doi['resolve_doi']}; "
        f"search(arXiv DOI 10.48550/arXiv.<id>) -> {doi['arxiv_doi']}",
        f"OpenReview: ids {openreview['ids']}",
    ]
    for typed in ("HyxY6JHKwr", "hyxy6jhkwr", "AbCdEf1234", "abcdef1234"):
        lines.append(f"    {typed}: {openreview[typed]}")
    lines += [f"    forum link ?id=AbCdEf1234 pins: {openreview['link_pins']}", "", "Causes", "------"]
    for key, text in CAUSES.items():
        lines.append(f"* {key}: {text}")
    publish(lines, args.out, {"docs": args.docs, "queries": found, "doi": doi, "openreview": openreview})


if __name__ == "__main__":
    main()
