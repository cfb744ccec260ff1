#!/usr/bin/env python3
"""Typo benchmark without judgments (issue 18, "Spelling corrected by the whole query").

Usage::

    .venv/bin/python benchmarks/typo_bench.py [DATA_DIR] [--docs 2000] [--phrases 500] \
        [--seed 20261218] [--out benchmarks/results/typo_bench_2k.txt]

Index: the 38 seed abstracts (``seeds/``) plus the first ``--docs`` arXiv records of
``DATA_DIR`` (default ../shared/data/arxiv-abstracts beside the checkout), built with the product's loader
and ``build_index``. Phrases: 2- and 3-word runs of those arXiv titles (half each, drawn
with ``--seed``): words of 3+ ASCII letters, no stop word, no capital after the first
letter (acronyms and names such as "NeRF" are not typed words), lower-cased. One word of
5+ letters (``Ranking.spell_min_chars``) gets one edit — deletion, insertion, substitution
or transposition, position and letter drawn with the same seed. Each typed query is
"restored" when a corrector's query equals the original phrase.

Correctors:

* product — ``SearchIndex.search(typo)``: its query is ``SearchPage.corrected_query``
  (the correction the results are for) or else the typo as typed; ``suggestion`` without
  ``corrected_query`` is a "did you mean" hint, counted apart;
* pyspellchecker alone — each word its English dictionary does not know replaced by
  ``SpellChecker.correction`` (two edits, most frequent English word);
* most frequent — each word not in the corpus vocabulary replaced by the most frequent
  corpus word one edit away (optimal string alignment: a swap is one edit), else two;
* context (``context_correct``, the prototype issue 18 asks for) — candidates one edit
  away, else two, from the corpus vocabulary (never a name); the combination whose
  adjacent pairs occur as bigrams in the most papers, else whose words occur together in
  the most papers, is the correction when it has support and at least ``MARGIN`` times
  the runner-up's; otherwise the best is only a "did you mean" hint.

The last two, and the corpus vocabulary they use (rebuilt from the same papers: the public
API does not expose the lexicon), are in ``context_spelling.py``. The clean phrases are run
too: a corrector that changes a correct query is counted. The product's misses are sorted
by cause (``classify``). About 3 minutes at 2,000 papers, 5 at 10,000.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import re
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import arxiv_sample as sample
from context_spelling import (
    MARGIN,
    MIN_TYPED,
    Vocabulary,
    context_correct,
    is_english,
    most_frequent_query,
    spellchecker,
)
from report import publish

STOP = frozenset(
    "a an and are as at be by can do does for from has have in into is it its not of on or over than the"
    " their this to under using via what when where which while with without towards toward through vs".split()
)
KINDS = ("deletion", "insertion", "substitution", "transposition")
LETTERS = "abcdefghijklmnopqrstuvwxyz"

WHY = """\
Why the product chooses what it does (read from the code at this commit)
-------------------------------------------------------------------------
* engine.py:SearchIndex._find corrects only when the compiled query has an *unknown* word
  (query/compile.py:Compiler._word_forms/_known: stem in no text field, no author word, no
  paper name). A typo whose Porter2 stem exists ("assiste" -> "assist") or that is an
  author's name word is known: a hint at most (spelling.hint: a spelling in <= RARE_DF=2
  papers, 20x rarer than the fix), corrected only beside an unknown word.
* query/spelling.py:correct: real_word (English, capitals unless the query is in capitals,
  corpus acronyms) is kept; else candidates (4+ letters: one edit with any first letter,
  a swap counting as one, else two edits keeping the first letter; no name; 20 most
  frequent), or the completion word* (5+ letters).
* query/spelling.py:_choose: every combination of the candidates with the query's other
  words; the one whose adjacent pairs stand side by side in the most papers
  (query/fit.py:QueryFit.pairs, read from the stored text of at most 100 papers holding all
  the words, for the 8 combinations with the most such papers), else whose words are
  together in the most papers (QueryFit.together), wins. It runs instead of the typed
  query when that count is not 0 and >= MARGIN (2) x the runner-up's; otherwise it is a
  "did you mean" (SearchPage.suggestion) and the typed query runs.
"""


def title_phrases(papers: list, count: int, seed: int) -> list[str]:
    """``count`` distinct phrases (half 2-word, half 3-word) of the arXiv papers' titles."""
    found: dict[int, set[str]] = {2: set(), 3: set()}
    for p in papers:
        if p.source_id is None:  # a seed abstract: its title is derived, not typed by anyone
            continue
        for chunk in re.split(r"[^A-Za-z ]+", p.title):
            words = chunk.split()
            for n in (2, 3):
                for i in range(len(words) - n + 1):
                    run = words[i : i + n]
                    if all(len(w) >= 3 and w[1:].islower() and w.lower() not in STOP for w in run) and any(
                        len(w) >= MIN_TYPED for w in run
                    ):
                        found[n].add(" ".join(run).lower())
    rng = random.Random(seed)
    half = count // 2
    return rng.sample(sorted(found[2]), half) + rng.sample(sorted(found[3]), count - half)


def with_typo(phrase: str, rng: random.Random) -> tuple[str, int, str, int]:
    """``(typed query, word index, edit kind, position)``: one edit in one word of 5+ letters."""
    words = phrase.split()
    i = rng.choice([k for k, w in enumerate(words) if len(w) >= MIN_TYPED])
    word = words[i]
    while True:
        kind = rng.choice(KINDS)
        pos = rng.randrange(len(word) - (1 if kind == "transposition" else 0))
        if kind == "deletion":
            typo = word[:pos] + word[pos + 1 :]
        elif kind == "insertion":
            typo = word[:pos] + rng.choice(LETTERS) + word[pos:]
        elif kind == "substitution":
            typo = word[:pos] + rng.choice(LETTERS.replace(word[pos], "")) + word[pos + 1 :]
        else:
            typo = word[:pos] + word[pos + 1] + word[pos] + word[pos + 2 :]
        if typo != word:
            return " ".join(words[:i] + [typo] + words[i + 1 :]), i, kind, pos


def product_query(index, typed: str) -> tuple[str, str | None]:
    """``(the query the product's results are for, its hint or None)``."""
    from bot.core.models import QueryError

    try:
        page = index.search(typed, limit=1)
    except QueryError:
        return typed, None
    if page.corrected_query:
        return page.corrected_query, None
    return typed, page.suggestion


@functools.lru_cache(maxsize=None)
def _pyspell(word: str) -> str:
    """``SpellChecker.correction`` with its ties broken alphabetically (it takes ``max`` over a
    set, whose order changes with the process's hash seed)."""
    spell = spellchecker()
    if word in spell:
        return word
    found = spell.candidates(word)
    return max(sorted(found), key=spell.__getitem__) if found else word


def pyspell_query(typed: str) -> str:
    """pyspellchecker alone: every word its dictionary does not know, corrected
    (``SpellChecker.correction``, its default distance 2; memoised per word)."""
    return " ".join(_pyspell(w) for w in typed.split())


def classify(index, vocab: Vocabulary, case: dict) -> str:
    """Why the product did not restore ``case`` (first matching reason)."""
    from bot.core.models import QueryError

    typo = case["typo_word"]
    if case["product"] != case["typed"]:
        return "corrected to a completion (word*)" if "*" in case["product"] else "corrected to the wrong word"
    if is_english(typo):
        return "typo is an English word (never corrected, by design)"
    if len(typo) < 4:
        return "typo shorter than 4 letters (spell_min_chars)"
    if typo in vocab.df:
        return "typo is a spelling some paper uses (known word)"
    try:
        alone = index.search(typo, limit=1, correct=False).total
        author = index.search(f"author:{typo}", limit=1, correct=False).total
    except QueryError:
        alone = author = 0
    if author:
        return "typo is an author-name word (known word)"
    if alone:
        return "typo's stem matches papers (known word)"
    if case["product_hint"]:
        return "only a hint: no candidate clearly fits better"
    return "unknown word left uncorrected (no candidate within the edits)"


def same_search(query: str, phrase: str) -> bool:
    """``query`` searches what ``phrase`` does: each word equal, of the same Snowball
    stem (the product's Porter2), or a completion ``x*`` of it."""
    import Stemmer

    stem = Stemmer.Stemmer("english").stemWord
    pairs = list(itertools.zip_longest(query.split(), phrase.split(), fillvalue=""))
    return all(
        q == o or stem(q) == stem(o) or (q.endswith("*") and len(q) > 1 and o.startswith(q[:-1])) for q, o in pairs
    )


def rates(cases: list[dict], key: str) -> dict:
    """Restored, same-search, hint and wrong-fix counts of the corrector ``key``."""
    n = len(cases)
    fixable = [c for c in cases if not is_english(c["typo_word"])]
    restored = sum(c[key] == c["phrase"] for c in cases)
    hints = [c for c in cases if c[f"{key}_hint"]]
    hints_right = sum(c[f"{key}_hint"] == c["phrase"] for c in hints)
    return {
        "restored": restored,
        "restored_share": restored / n,
        "restored_excluding_english": sum(c[key] == c["phrase"] for c in fixable) / max(1, len(fixable)),
        "same_search_share": sum(same_search(c[key], c["phrase"]) for c in cases) / n,
        "hints": len(hints),
        "hints_right": hints_right,
        "restored_or_hinted": (restored + hints_right) / n,
        "wrong": sum(c[key] not in (c["phrase"], c["typed"]) for c in cases),
    }


def correctors(index, vocab: Vocabulary) -> dict:
    """name -> (label, corrector): a corrector maps a query to (the query searched, a hint or None)."""

    def context(**kw):
        def run(typed: str) -> tuple[str, str | None]:
            out, how = context_correct(vocab, typed, **kw)
            return (out, None) if how == "corrected" else (typed, out if how == "hint" else None)

        return run

    return {
        "product": ("product (corrected_query)", lambda q: product_query(index, q)),
        "pyspellchecker": ("pyspellchecker alone", lambda q: (pyspell_query(q), None)),
        "most_frequent": ("most frequent within 1-2 edits", lambda q: (most_frequent_query(vocab, q), None)),
        "most_frequent_product_rules": (
            "  most frequent, product's rules",
            lambda q: (most_frequent_query(vocab, q, "product"), None),
        ),
        "context": (f"context prototype (margin {MARGIN:g})", context()),
        "context_bigram_only": ("  context, bigram signal only", context(signal="bigram")),
        "context_cooccur_only": ("  context, co-occurrence only", context(signal="cooccur")),
        "context_product_rules": ("  context, product's rules", context(rules="product")),
    }


LEGEND = """\
restored: the query equals the phrase; excl. English: among typos that are no English word; same
search: word by word equal, of the same Snowball stem (the product's Porter2) or a completion x*;
wrong fix: neither the phrase nor the typo. Rules (context_spelling.candidates): "most frequent" and "context" take
any first letter, 4+ letters ("most frequent": any word not in the corpus), 1 edit else 2; "product's
rules" restates the rules before issue 18 (5+ letters, the first letter, 1 edit up to 7 letters, no name).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, nargs="?", default=sample.DEFAULT_DATA)
    ap.add_argument("--docs", type=int, default=2000, help="first N arXiv records indexed (beside the seeds)")
    ap.add_argument("--phrases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=20261218)
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    papers = sample.load(sample.first_records(args.data_dir, args.docs), seeds=True)
    vocab = Vocabulary(papers)
    phrases = title_phrases(papers, args.phrases, args.seed)
    rng = random.Random(args.seed)
    cases, clean_changed = [], defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="paperbot-typo-") as tmp:
        index, build_s = sample.build(papers, Path(tmp))
        table = correctors(index, vocab)
        for phrase in phrases:
            typed, i, kind, pos = with_typo(phrase, rng)
            case = {"phrase": phrase, "typed": typed, "typo_word": typed.split()[i], "typo_index": i}
            case.update(edit=kind, position=pos)
            for name, (_, fix) in table.items():
                case[name], case[f"{name}_hint"] = fix(typed)
                if fix(phrase) != (phrase, None):
                    clean_changed[name].append((phrase, *fix(phrase)))
            case["why"] = None if case["product"] == phrase else classify(index, vocab, case)
            if case["product"] == typed:  # left as typed: would the word alone be corrected?
                case["alone"] = product_query(index, case["typo_word"])[0]
            cases.append(case)
        sparce = {name: fix("sparce atention") for name, (_, fix) in table.items()}
    n = len(cases)
    results = {name: rates(cases, name) for name in table}
    why = Counter(c["why"] for c in cases if c["why"])
    english = sum(is_english(c["typo_word"]) for c in cases)
    lines = sample.header(
        "paperbot typo benchmark — title phrases with one edit",
        args.data_dir,
        f"seeds + first {args.docs} arXiv records = {len(papers)} papers (build {build_s:.1f} s); "
        f"{n} phrases ({n // 2} of 2 words, {n - n // 2} of 3), seed {args.seed}",
    )
    lines += [
        f"edits: {dict(Counter(c['edit'] for c in cases))}; typo is an English word (by design never "
        f"corrected): {english} ({english / n:.1%})",
        "",
        f"{'corrector':<34} {'restored':>9} {'excl. English':>14} {'same search':>12} {'hints':>6} "
        f"{'hint right':>11} {'wrong fix':>10} {'clean changed':>14}",
    ]
    for name, (label, _) in table.items():
        r = results[name]
        lines.append(
            f"{label:<34} {r['restored_share']:>9.1%} {r['restored_excluding_english']:>14.1%} "
            f"{r['same_search_share']:>12.1%} {r['hints']:>6} {r['hints_right']:>11} {r['wrong']:>10} "
            f"{len(clean_changed[name]):>14}"
        )
    lines += [
        "",
        f"product restored or hinted right: {results['product']['restored_or_hinted']:.1%}; "
        f"context prototype restored or hinted right: {results['context']['restored_or_hinted']:.1%}",
        f"`sparce atention`: product -> {sparce['product'][0]!r}; most frequent -> "
        f"{sparce['most_frequent'][0]!r}; context prototype -> {sparce['context'][0]!r}",
        "",
        f"product misses by cause ({sum(why.values())}):",
    ]
    lines += [f"  {count:>4}  {reason}" for reason, count in why.most_common()]
    left = [c for c in cases if "alone" in c and c["why"]]
    lines.append(
        f"of the {len(left)} typos left as typed, {sum(c['alone'] == c['typo_word'] for c in left)} are left "
        "as typed when searched alone too: the other words play no part in the product's choice"
    )
    shown = {
        "product misses the context prototype restores": [
            f"{c['typed']!r}: product {c['product']!r} -> context {c['context']!r}"
            for c in cases
            if c["why"] and c["context"] == c["phrase"]
        ],
        "restored by the product, not by the context prototype": [
            f"{c['typed']!r}: context {c['context']!r} (hint {c['context_hint']!r})"
            for c in cases
            if c["product"] == c["phrase"] and c["context"] != c["phrase"]
        ],
        "product corrections that are not the phrase (same search: same stems or a completion)": [
            f"{c['typed']!r} -> {c['product']!r} (same search: {'yes' if same_search(c['product'], c['phrase']) else 'no'})"
            for c in cases
            if c["why"] and c["why"].startswith("corrected")
        ],
    }
    for title, rows in shown.items():
        lines += ["", f"{title}: {len(rows)} (first 12)"] + [f"  {row}" for row in rows[:12]]
    lines += ["", LEGEND, WHY]
    data = {"docs": args.docs, "papers": len(papers), "seed": args.seed, "phrases": n, "english_typos": english}
    data.update(results=results, clean_changed=dict(clean_changed), product_misses=dict(why), cases=cases)
    publish(lines, args.out, data)


if __name__ == "__main__":
    main()
