"""Per-term posting arrays (numpy) derived from the Whoosh postings at build
time, and a dense scorer that uses them for plain term scoring.

Whoosh stays the index of record (documents, fields, positions for phrases,
spelling); these arrays are a copy of its postings in a form numpy can score
without a Python loop per posting (docs/search.md, "Speed"). A build writes,
beside the Whoosh files of the generation, for each field of ``FIELDS``:

* ``imp-<field>-ids.npy``: int32 docnums (global), term after term;
* ``imp-<field>-tf.npy``: float32 weights (term frequency x field boost, the
  posting weight Whoosh stores);
* ``imp-<field>-terms.json``: term -> ``[start, end)`` in those arrays,
  for terms in at least ``MIN_DF`` papers (rarer terms are a block or two of
  Whoosh postings, cheap to read as they are).

``dense_run`` scores a plan made of words, phrases and groups of them
(``Term``, ``Phrase``, ``AnyOf``, ``AllOf``, ``Plan``, with exclusions and
required groups; no coordination or feedback)
with the same formula (``bot.search.scoring.shared``), in the same order of
additions, as ``postings.Scorer.run``; any other plan returns None and takes the postings
path. ``tests/search/scoring/test_impacts.py`` proves both give the same scores and
order.
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from pathlib import Path

import numpy as np

from bot.search.index.whoosh_internals import leaves, posting_blocks
from bot.search.query.plan import AllOf, AnyOf, Phrase, Plan, Term
from bot.search.scoring.shared import DocScores, Members, PlanScores, Scoring, scored_groups

#: Fields a build writes impact arrays for (``all`` is what a plain word searches).
FIELDS = ("all",)
#: Terms in fewer papers than this are read from the Whoosh postings.
MIN_DF = 128

_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def save_impacts(generation: Path, reader, fields=FIELDS, min_df: int | None = None) -> None:
    """Write the impact arrays of ``fields`` for ``reader`` into ``generation``
    (called by builds after the Whoosh segments are published); terms in fewer
    than ``min_df`` (default ``MIN_DF``) papers are left to the postings.

    Args:
        generation: the generation directory.
        reader: its Whoosh reader.
        fields: the fields written (default ``FIELDS``).
        min_df: the smallest document frequency kept in the arrays.
    """
    min_df = MIN_DF if min_df is None else min_df
    lf = leaves(reader)
    for name in fields:
        if name not in reader.schema:
            continue
        spans, ids_parts, tf_parts, at = {}, [], [], 0
        for tbytes, info in reader.iter_field(name):
            if info.doc_frequency() < min_df:
                continue
            text = tbytes.decode("utf-8") if isinstance(tbytes, bytes) else tbytes
            n0 = at
            for ids, weights in posting_blocks(lf, name, text):
                ids_parts.append(np.asarray(ids, dtype=np.int32))
                tf_parts.append(np.asarray(weights, dtype=np.float32))
                at += len(ids)
            spans[text] = [n0, at]
        empty_i, empty_f = np.zeros(0, np.int32), np.zeros(0, np.float32)
        np.save(generation / f"imp-{name}-ids.npy", np.concatenate(ids_parts) if ids_parts else empty_i)
        np.save(generation / f"imp-{name}-tf.npy", np.concatenate(tf_parts) if tf_parts else empty_f)
        (generation / f"imp-{name}-terms.json").write_text(json.dumps(spans), encoding="utf-8")


def save_impact_parts(generation: Path, parts: list[dict], offsets: list[int], min_df: int | None = None) -> None:
    """``save_impacts`` from the postings the bulk writer kept
    (``SegmentBuilder.kept``) instead of reading the segments back: the same
    files. ``parts[i]`` is segment ``i``'s field -> ``(terms, doc frequencies,
    local docnums, weights)``, ``offsets[i]`` its first global docnum.

    Args:
        generation: the generation directory.
        parts: per segment, its kept postings by field.
        offsets: per segment, its first global docnum.
        min_df: the smallest document frequency kept in the arrays.
    """
    min_df = MIN_DF if min_df is None else min_df
    for name in FIELDS:
        got = [part[name] for part in parts if name in part]
        if len(got) != len(parts):
            continue
        df: dict[str, int] = {}
        for terms, counts, _, _ in got:
            for term, count in zip(terms, counts.tolist()):
                df[term] = df.get(term, 0) + count
        kept = sorted(t for t, n in df.items() if n >= min_df)
        ends = np.cumsum([df[t] for t in kept], dtype=np.int64)
        spans = {t: [e - df[t], e] for t, e in zip(kept, ends.tolist())}
        # each segment's postings of a kept term go to that term's slice, after
        # the earlier segments' (docnums ascending): a scatter, no sort
        at = {t: span[0] for t, span in spans.items()}
        total = int(ends[-1]) if kept else 0
        all_ids, all_tf = np.zeros(total, np.int32), np.zeros(total, np.float32)
        for (terms, counts, docs, tf), offset in zip(got, offsets):
            base = np.array([at.get(t, -1) for t in terms], dtype=np.int64)
            for t, n in zip(terms, counts.tolist()):
                if t in at:
                    at[t] += n
            run_start = np.repeat(np.cumsum(counts) - counts, counts)
            dest = np.repeat(base, counts)
            keep = dest >= 0
            dest = dest[keep] + (np.arange(len(dest)) - run_start)[keep]
            all_ids[dest] = docs[keep] + np.int32(offset)
            all_tf[dest] = tf[keep]
        np.save(generation / f"imp-{name}-ids.npy", all_ids)
        np.save(generation / f"imp-{name}-tf.npy", all_tf)
        (generation / f"imp-{name}-terms.json").write_text(json.dumps(spans), encoding="utf-8")


class Impacts:
    """The impact arrays of one generation (memory-mapped, read on demand).

    Args:
        generation: the generation directory; fields without arrays there
            (an index built before them) are read from the postings.
    """

    def __init__(self, generation: Path | None) -> None:
        self.fields: dict[str, tuple] = {}
        for name in FIELDS if generation else ():
            terms = generation / f"imp-{name}-terms.json"
            if terms.is_file():
                self.fields[name] = (
                    json.loads(terms.read_text(encoding="utf-8")),
                    np.load(generation / f"imp-{name}-ids.npy", mmap_mode="r"),
                    np.load(generation / f"imp-{name}-tf.npy", mmap_mode="r"),
                )

    def postings(self, leaf_list, field: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """``(docnums int32, weights float64)`` of one term, ascending docnums.

        Args:
            leaf_list: ``leaves(reader)``, for a term without arrays.
            field: the field.
            text: the term, as indexed.
        """
        got = self.fields.get(field)
        span = got[0].get(text) if got else None
        if span is not None:
            return got[1][span[0] : span[1]], got[2][span[0] : span[1]].astype(np.float64)
        ids, tfs = [], []
        for block_ids, weights in posting_blocks(leaf_list, field, text):
            ids.extend(block_ids)
            tfs.extend(weights)
        return np.asarray(ids, dtype=np.int64), np.asarray(tfs, dtype=np.float64)


def impacts_of(norms) -> Impacts:
    """The ``Impacts`` of the generation whose ``Norms`` is ``norms`` (cached
    while that generation is open)."""
    got = _cache.get(norms)
    if got is None:
        with _lock:
            got = _cache.get(norms)
            if got is None:
                got = _cache[norms] = Impacts(norms.generation)
    return got


def _plain(node) -> bool:
    """Can this path score ``node``: words, phrases, any-of, all-of and
    groups of them, with their exclusions and required groups?"""
    if isinstance(node, (Term, Phrase)):
        return True
    if isinstance(node, (AnyOf, AllOf)):
        return all(_plain(p) for p in node.parts)
    if isinstance(node, Plan):
        return all(_plain(g) for g, _ in node.groups) and all(_plain(x) for x in node.excluded)
    return False


def dense_run(scorer: Scoring, plan: Plan, exclude: int | None) -> PlanScores | None:
    """``Scorer.run(plan)`` on the impact arrays, or None for a plan this
    path does not handle (see the module docstring).

    Args:
        scorer: the search's state (``Scoring``: reader, norms, ranking, deadline).
        plan: the query plan.
        exclude: a docnum never returned (the paper itself, for ``similar``).
    """
    r = scorer.r
    if (r.coord and len(plan.groups) > 1) or r.prf_docs > 0 or not _plain(plan):
        return None
    n = scorer.reader.doc_count_all()
    got_all = _groups(scorer, impacts_of(scorer.norms), plan, n)
    total, matched = _sum([(d, v) for d, v, _ in sorted(got_all, key=lambda g: -len(g[0]))], n)
    hit = matched > 0
    for d in scorer.norms.deleted(scorer.reader):
        hit[d] = False
    _drop(scorer, impacts_of(scorer.norms), plan, got_all, hit, n)
    if exclude is not None and 0 <= exclude < n:
        hit[exclude] = False
    found = [(node, Members(docs)) for docs, _, node in got_all]
    return PlanScores(
        scores=DocScores(total, hit),
        matched=DocScores(matched, hit),
        groups=len(found),
        found=found,
        timed_out=scorer.timed_out,
    )


def _drop(scorer, imp: "Impacts", plan: Plan, got_all: list, hit: np.ndarray, n: int) -> None:
    """Clear in ``hit`` the documents of ``plan``'s exclusions and those
    missing a required group (``+word``, ``AND``), as ``Scorer._plan`` drops them."""
    for node in plan.excluded:
        hit[_node(scorer, imp, node, n)[0]] = False
    groups = scored_groups(plan)
    for (_, must), (docs, _, _) in zip(groups, got_all):
        if must:
            held = np.zeros(n, dtype=bool)
            held[docs] = True
            hit &= held


def _groups(scorer, imp: "Impacts", plan: Plan, n: int) -> list:
    """``[(docs, scores, group node)]`` of a plan's groups, weighted."""
    out = []
    groups = scored_groups(plan)
    for k, (node, _) in enumerate(groups):
        docs, vals = _node(scorer, imp, node, n)
        w = plan.weights[k] if plan.weights else 1.0
        out.append((docs, vals * w if w != 1.0 else vals, node))
    return out


def _node(scorer, imp: "Impacts", node, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted docnums, scores)`` of one node, adding in ``Scorer._into``'s order."""
    if isinstance(node, Term):
        return _term(scorer, imp, node)
    if isinstance(node, Phrase):  # all its words, then the positions (bot.search.scoring.phrases)
        docs, vals = _node(
            scorer, imp, AllOf(tuple(Term(node.field, t, node.boost) for t in dict.fromkeys(node.terms))), n
        )
        held = scorer.phrase_docs(node, dict(zip(docs.tolist(), vals.tolist())))
        keep = np.isin(docs, np.asarray(held, dtype=np.int64))
        return docs[keep], vals[keep]
    if isinstance(node, AllOf):  # the rarest part first, then only its documents
        parts = sorted(node.parts, key=lambda p: scorer.size(p) or 1 << 60)
        docs, vals = _node(scorer, imp, parts[0], n) if parts else _empty()
        for part in parts[1:]:
            if not len(docs):
                break
            pd, pv = _node(scorer, imp, part, n)
            at = np.minimum(np.searchsorted(pd, docs), max(len(pd) - 1, 0))
            keep = (pd[at] == docs) if len(pd) else np.zeros(len(docs), dtype=bool)
            docs, vals = docs[keep], vals[keep] + pv[at[keep]]
        return docs, vals
    if isinstance(node, AnyOf):  # the longest posting list first
        parts = [_node(scorer, imp, p, n) for p in sorted(node.parts, key=scorer.size, reverse=True)]
    else:  # a group of the query: its groups, biggest first
        got = _groups(scorer, imp, node, n)
        if node.excluded or any(must for _, must in node.groups):
            acc, count = _sum([(d, v) for d, v, _ in sorted(got, key=lambda g: -len(g[0]))], n)
            hit = count > 0
            _drop(scorer, imp, node, got, hit, n)
            docs = np.flatnonzero(hit)
            return docs, acc[docs]
        parts = [(d, v) for d, v, _ in sorted(got, key=lambda g: -len(g[0]))]
    parts = [(d, v) for d, v in parts if len(d)]
    if len(parts) <= 1:
        return parts[0] if parts else _empty()
    size = sum(len(d) for d, _ in parts)
    if size * 16 < n:  # a small union: sort it (bincount adds in input order too)
        docs, where = np.unique(np.concatenate([d for d, _ in parts]), return_inverse=True)
        return docs, np.bincount(where, weights=np.concatenate([v for _, v in parts]), minlength=len(docs))
    acc, count = _sum(parts, n)
    docs = np.flatnonzero(count)
    return docs, acc[docs]


def _sum(parts: list, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per docnum (dense, length ``n``): 0 + the parts' scores in the parts'
    order (``np.bincount`` adds in input order, as ``Scorer`` adds into a
    dict), and how many parts matched it."""
    if not parts:
        return np.zeros(n), np.zeros(n, dtype=np.int64)
    docs = np.concatenate([d for d, _ in parts])
    return (
        np.bincount(docs, weights=np.concatenate([v for _, v in parts]), minlength=n),
        np.bincount(docs, minlength=n),
    )


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0)


def _term(scorer, imp: "Impacts", term: Term) -> tuple[np.ndarray, np.ndarray]:
    """One term's docnums and BM25F scores (``Scorer._term``'s formula)."""
    factors = scorer.term_factors(term)
    if factors is None:
        return _empty()
    c, lengths = factors
    norms = np.frombuffer(lengths, dtype=np.float64)
    docs, tf = imp.postings(scorer.leaves, term.field, term.text)
    scores = c * tf / (tf + norms[docs])
    if time.perf_counter() > scorer.deadline:
        scorer.timed_out = True
    return docs, scores
