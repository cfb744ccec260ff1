#!/usr/bin/env python3
"""Where a full index build's time goes, and the floor of Whoosh's own writing, beside ``bm25s``.

Usage::

    .venv/bin/python benchmarks/build_floor.py ../shared/data/arxiv-abstracts [--docs N] [--out FILE]

One run, three fresh processes: ``bm25s`` (``bench_engines.child_bm25s_build``: read, tokenise,
index, one process), then the phases of paperbot's build in one process, timed apart (CPU time
of this process and its children, beside wall time):

1. **load**: ``bot.corpus.load_papers`` (JSON, cleaning, keywords, ids; parsed on worker
   processes as ``paperbot index build`` does);
2. **analysis**: ``bulk_documents.bulk_document`` and the lexicon (``LexiconBuilder.add_words``);
3. **accumulate**: ``SegmentBuilder.add`` (term counts, posting lists, and Whoosh's
   per-document writer: stored fields, lengths, the id column);
4. **write**: ``SegmentBuilder.finish`` (postings grouped in numpy, handed to Whoosh block by block);
5. **derived**: length norms and impact arrays from the kept postings.

Then the **floor** — the part that stays Whoosh however the postings are produced: the same
pre-analysed documents and postings replayed into a fresh segment by Whoosh's writers alone
(``W3PerDocWriter`` per document; ``start_term`` / block writes / ``finish_term`` per term), and
the share of that replay that is paperbot's own block fill (``whoosh_internals.write_term_blocks`` into
a stand-in posting writer). The build phases run in one process here (``build_index`` splits
them over two); the target compares with ``bm25s``'s one process (issue 11, point 6).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from bench_engines import iter_records, run_child  # benchmarks/ (scripts run from there)
from report import publish

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _Clock:
    """Wall and CPU seconds per named phase."""

    def __init__(self) -> None:
        self.phases: dict[str, dict] = {}

    def __call__(self, name: str, fn, *args, repeat: int = 1):
        """``fn(*args)``, timed; with ``repeat``, run that many times and keep
        the lowest CPU time (the least disturbed by other jobs)."""
        for _ in range(repeat):
            t, c = time.perf_counter(), _cpu()
            out = fn(*args)
            got = {"wall_s": round(time.perf_counter() - t, 2), "cpu_s": round(_cpu() - c, 2)}
            if name not in self.phases or got["cpu_s"] < self.phases[name]["cpu_s"]:
                self.phases[name] = got
            print(f"[{time.strftime('%H:%M:%S')}] {name}: {got}", file=sys.stderr, flush=True)
        return out


class _NoBlocks:
    """A stand-in posting writer: takes the block ``write_term_blocks`` fills, writes nothing."""

    def _write_block(self, last: bool = False) -> None:
        pass


def child_phases(paths: list[str], work: str, repeat: int = 3) -> dict:
    """The build's phases and the Whoosh floor, in this one process (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from bot.search.index import bulk_segment

    clock, gen = _Clock(), Path(work) / "gen"
    gen.mkdir()
    real_fill = bulk_segment.write_term_blocks
    papers, schema, docs, captured = _build_phases(clock, [Path(p) for p in paths], gen)
    rows = _floor_rows(schema, docs)
    clock("floor: Whoosh per-document writer", _perdoc_floor, gen, rows, repeat=repeat)
    clock(
        "floor: Whoosh term writing (incl. block fill)",
        _postings_floor,
        gen,
        schema,
        captured,
        real_fill,
        repeat=repeat,
    )
    clock("paperbot's block fill alone", _fill_only, captured, real_fill, repeat=repeat)
    return {
        "papers": len(papers),
        "terms": len(captured),
        "postings": sum(len(c[2]) for c in captured),
        "phases": clock.phases,
    }


def _build_phases(clock: _Clock, paths: list[Path], gen: Path) -> tuple:
    """Load, analysis, accumulate, write and derived, each timed by ``clock``
    into generation folder ``gen``; returns ``(papers, schema, documents,
    captured)`` — ``captured`` is every term's block fill as ``write`` handed it
    to Whoosh (field, term, ids, weights, values, lengths), for the floor."""
    from whoosh import index as whoosh_index

    from bot import corpus
    from bot.search.index import bulk_segment
    from bot.search.index.bulk_documents import TextTerms, bulk_document, save_derived
    from bot.search.index.schema import make_schema
    from bot.search.query.lexicon import LexiconBuilder
    from bot.search.scoring.impacts import FIELDS

    papers = clock("load", corpus.load_papers, paths)
    gc.disable()  # as build_index's workers
    schema = whoosh_index.create_in(str(gen), make_schema()).schema
    text, plain = TextTerms(schema["abstract"].analyzer), TextTerms(schema["authors"].analyzer)
    lexicon = LexiconBuilder(text.analyzer.stem)

    def analyse():
        docs = []
        for paper in papers:
            doc, words, compounds = bulk_document(paper, text, plain)
            lexicon.add_words(paper.abstract, words, compounds)
            docs.append(doc)
        return docs

    docs = clock("analysis", analyse)
    builder = bulk_segment.SegmentBuilder(gen, schema, keep=FIELDS)

    def add_all():
        for doc in docs:
            builder.add(doc)

    clock("accumulate", add_all)
    captured: list = []
    real_fill = bulk_segment.write_term_blocks

    def capture(writer, ids, weights, values, lengths):  # what finish hands to Whoosh, kept
        captured.append((writer._fieldname, writer._btext, ids, weights, values, lengths))
        real_fill(writer, ids, weights, values, lengths)

    bulk_segment.write_term_blocks = capture
    segment = clock("write", builder.finish)
    bulk_segment.write_term_blocks = real_fill
    clock("derived", save_derived, gen, [(segment, lexicon.state(), builder.kept, builder.lengths)], len(papers))
    return papers, schema, docs, captured


def _floor_rows(schema, docs: list) -> list:
    """Per document, what Whoosh's per-document writer is given for each
    field: ``(name, field, stored value, length, column value)``."""
    rows = []
    for doc in docs:
        row = []
        for name in sorted(doc):
            value, field = doc[name], schema[name]
            if value is not None:
                row.append((name, field, value if field.stored else None, _length(field, value), _column(field, value)))
        rows.append(row)
    return rows


def _length(field, value) -> int:
    """The field length Whoosh stores for ``value`` (0 for an unscored field)."""
    if not field.scorable:
        return 0
    if hasattr(field.analyzer, "terms"):
        return len(field.analyzer.terms(value))
    return sum(freq for _, freq, _, _ in field.index(value))


def _column(field, value):
    return field.to_column_value(value) if field.column_type else None


def _perdoc_floor(gen: Path, rows: list) -> None:
    """Whoosh's per-document writer alone, fed ``rows`` (``_floor_rows``)."""
    from bot.search.index import whoosh_internals

    _, _, _, perdoc = whoosh_internals.new_segment(gen)
    for docnum, row in enumerate(rows):
        perdoc.start_doc(docnum)
        for name, field, stored, length, column in row:
            perdoc.add_field(name, field, stored, length)
            if field.column_type:
                perdoc.add_column_value(name, field.column_type, column)
        perdoc.finish_doc()
    perdoc.close()


def _postings_floor(gen: Path, schema, captured: list, fill) -> None:
    """Whoosh's term writing, fed the captured block fills (``fill`` included)."""
    from bot.search.index import whoosh_internals

    codec, storage, seg, perdoc = whoosh_internals.new_segment(gen)
    perdoc.close()
    writer, current = codec.field_writer(storage, seg), None
    for name, btext, ids, weights, values, lengths in captured:
        if name != current:
            if current is not None:
                writer.finish_field()
            writer.start_field(name, schema[name])
            current = name
        writer.start_term(btext)
        fill(writer, ids, weights, values, lengths)
        writer.finish_term()
    writer.finish_field()
    writer.close()


def _fill_only(captured: list, fill) -> None:
    """paperbot's block fill alone, into a stand-in posting writer."""
    stand_in = SimpleNamespace(_postwriter=_NoBlocks())
    for _, _, ids, weights, values, lengths in captured:
        fill(stand_in, ids, weights, values, lengths)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, help="folder of arXiv *.jsonl.gz files")
    ap.add_argument("--docs", type=int, default=0, help="only the first N records (default: all)")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    ap.add_argument("--data-label", help="how the report names the data folder")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of bm25s (before and after paperbot) and of each floor replay; the lowest "
        "CPU time of each is reported (default 3)",
    )
    args = ap.parse_args()
    load_start, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with tempfile.TemporaryDirectory(prefix="paperbot-floor-") as tmp:
        paths = sorted(args.data_dir.resolve().glob("*.jsonl.gz"))
        if args.docs:
            sub = Path(tmp) / f"arxiv-first-{args.docs}.jsonl"
            with open(sub, "w", encoding="utf-8") as out:
                for _, rec in zip(range(args.docs), iter_records(paths)):
                    out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            paths = [sub]
        bms = []
        for k in range(args.repeat):  # bm25s before and after paperbot's phases
            if k == 1:
                (Path(tmp) / "pb").mkdir()
                pb = _run_phases(paths, Path(tmp) / "pb", args.repeat)
            (Path(tmp) / f"bm25s{k}").mkdir()
            bms.append(run_child("bm25s-build", Path(tmp) / f"bm25s{k}", paths, 0))
        if args.repeat < 2:
            (Path(tmp) / "pb").mkdir()
            pb = _run_phases(paths, Path(tmp) / "pb", args.repeat)
        bm = min(bms, key=lambda b: b["build_cpu_s"])
    ph = pb["phases"]
    whoosh = (
        ph["floor: Whoosh per-document writer"]["cpu_s"]
        + ph["floor: Whoosh term writing (incl. block fill)"]["cpu_s"]
        - ph["paperbot's block fill alone"]["cpu_s"]
    )
    build = sum(ph[k]["cpu_s"] for k in ("load", "analysis", "accumulate", "write", "derived"))
    lines = [
        "paperbot build: where the time goes, and the floor of Whoosh's writing (one run, beside bm25s)",
        "=" * 96,
        f"started {started}; python {platform.python_version()}, {os.cpu_count()} CPUs, host {platform.node()}; "
        f"load average at start {' / '.join(f'{x:.2f}' for x in load_start)}, at end "
        f"{' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"data: {args.data_label or args.data_dir} — {pb['papers']} papers; {pb['terms']} terms, "
        f"{pb['postings']} postings written",
        "NOTE: the machine is shared; CPU times are given beside wall times, ratios within this run count;",
        f"      bm25s and each floor replay ran {args.repeat} times, the lowest CPU time is shown.",
        "",
        f"bm25s build (read + tokenise + index, one process)   wall {bm['build_s']:7.1f} s   CPU {bm['build_cpu_s']:7.1f} s"
        f"   (lowest CPU of {len(bms)} runs: {', '.join(str(b['build_cpu_s']) for b in bms)})",
        "",
        f"{'paperbot phase (one process)':<50}{'wall s':>9}{'CPU s':>9}{'CPU / bm25s':>13}",
    ]
    for name, got in ph.items():
        lines.append(f"{name:<50}{got['wall_s']:>9.1f}{got['cpu_s']:>9.1f}{got['cpu_s'] / bm['build_cpu_s']:>13.2f}")
    lines += [
        f"{'build phases (load .. derived) together':<50}{'':>9}{build:>9.1f}{build / bm['build_cpu_s']:>13.2f}",
        "",
        f"floor — Whoosh's own writing (per-document writer + term writing - paperbot's block fill): "
        f"{whoosh:.1f} s CPU = {whoosh / bm['build_cpu_s']:.2f} x bm25s's whole build "
        f"({'below' if whoosh <= 2 * bm['build_cpu_s'] else 'above'} the 2 x target on its own)",
    ]
    publish(
        lines,
        args.out,
        {
            "started": started,
            "data": args.data_label or str(args.data_dir),
            "bm25s": bm,
            "bm25s_runs": bms,
            "paperbot": pb,
            "whoosh_floor_cpu_s": round(whoosh, 2),
        },
    )


def _run_phases(paths: list[Path], work: Path, repeat: int) -> dict:
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks"), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, build_floor as b; "
            "print(json.dumps(b.child_phases(json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]))))",
            json.dumps([str(p) for p in paths]),
            str(work),
            str(repeat),
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"phases child failed ({done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
