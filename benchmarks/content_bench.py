#!/usr/bin/env python3
"""TL;DRs and keywords of arXiv papers (issue 18, "Content of titled papers").

Usage::

    pip install '.[bench]'   # lemminflect (a POS word list shipped in the package)
    .venv/bin/python benchmarks/content_bench.py [DATA_DIR] [--papers 500] [--seed 20261201] \
        [--handcheck benchmarks/results/content_handcheck.tsv] [--out benchmarks/results/content_bench.txt]

``--papers`` records of one seeded draw of the arXiv sample (``arxiv_sample.drawn_records``)
are loaded by the product (``bot.corpus.load_papers``: a titled record gets
``derive.tldr`` and ``keywords.title_keywords``); the same abstracts without their titles
are loaded too (a derived title, ``keywords.keywords``), the path seed abstracts take.

TL;DR, against the abstract split by ``bot.corpus.sentences``: a TL;DR sentence *repeats*
an abstract sentence when, lower-cased with whitespace collapsed, it equals it, or is its
tail of at least 60 % of it (``derive.tldr`` drops a leading connective), or, cut with
"…", is its beginning. Reported: TL;DRs repeating the abstract's first sentence, and
Details cards (``bot.render.blocks.paper_blocks``, rendered) whose TL;DR section repeats any
sentence of the part of the abstract the card shows right below it (the abstract cut to
``ABSTRACT_MAX`` = 2,800 characters).

Keywords: a one-word keyword is *a single adjective or verb* when lemminflect's word list
(``getAllLemmas``) gives it no NOUN reading but an ADJ or VERB one (ADV only: an adverb,
counted apart) — with these documented rules
first: a word with a digit or a capital after its first letter (an acronym, a name) and a
word ending in "-ing" (a gerund, "Reasoning") are nouns; a hyphenated word takes the
reading of its last part, and a last part in ``ADJ_TAILS`` ("training-free",
"real-world") makes it an adjective; a word lemminflect does not know is an adjective
when it ends in an adjective suffix (-able, -ible, -al, -ic, -ive, -ous, -ful, -less),
a verb when it ends in "-ed", else a noun. A longer keyword is *not a noun phrase* when
its last word (before a parenthesis) is not a noun by the same rules, or its first word
is a bare verb (VERB only, not -ing/-ed). ``--handcheck`` (a TSV of 100 keywords drawn
with the seed, the column ``hand`` filled by a person: noun / adjective / verb / other)
is compared with these rules.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from pathlib import Path

import arxiv_sample as sample
from report import publish

ABSTRACT_MAX = 2800  # bot.render.blocks.ABSTRACT_MAX (the Details card's abstract section)
ADJ_SUFFIXES = ("able", "ible", "al", "ic", "ive", "ous", "ful", "less")
ADJ_TAILS = frozenset(
    "free based aware driven art world end scale term shot level grained specific agnostic wise like"
    " efficient guided oriented centric time".split()
)
HANDCHECK_SIZE = 100
#: derive._WE_VERB restated: a first sentence that is the contribution sentence ("We propose ...").
_WE_VERB = re.compile(
    r"\bwe\s+(?:\w+ly\s+|first\s+|further\s+|also\s+|then\s+|now\s+|here\s+)?(?:propose|introduce|present|"
    r"design|develop|establish|study|investigate|analy[sz]e|examine|explore|quantify|characterize|identify|revisit)\s"
)
#: A TL;DR ending in an initial ("The Vera C."): a sentence cut inside a name.
_INITIAL = re.compile(r"\b[A-Z]\.$")

WHY = """\
Where they come from (read from the code at this commit)
---------------------------------------------------------
* TL;DR: bot/corpus/assemble.py:make_entry -> bot/corpus/derive.py:tldr -> _tldr. Never
  sentence 0: the lead is the contribution sentence when it is not the first, else the
  first later sentence about the work itself ("We ...", "Our ...", "This paper ...");
  beside it the sentence with the most result cues; neither -> the object of a
  first-sentence "we propose X" restated as a phrase, else the last sentence; "" for a
  one-sentence abstract. strip_connective (bot/corpus/wordlists.py) drops a leading
  "However," / "Here,".
* Details card: bot/render/blocks.py:paper_blocks -> bot/render/tldr.py:tldr_parts. A TL;DR
  made of sentences the card's abstract shows (after a dropped connective, or cut with
  "...") is not repeated above the abstract: its sentences are bold inside it. A source's
  own TL;DR (OpenReview) and cards without the abstract keep the TL;DR section.
* Keywords: bot/corpus/keywords.py:_Picks.take accepts only wordlists.is_noun_keyword
  phrases (is_noun_phrase, the last word can_be_noun: lemminflect's lemma lists with the
  same documented rules as this benchmark's readings(), so the single-word figure is 0 by
  construction; the hand-check is the independent check).
* bot/corpus/sentences.py: no boundary after an initial inside a name ("Karl G. Jansky",
  "Vera C. Rubin"), nor after "Phys." / "Rev." in a citation.
"""


def norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(" .")


def repeats(sentence: str, source: str) -> bool:
    """Does TL;DR ``sentence`` repeat abstract sentence ``source`` (see the module docstring)?"""
    t, a = norm(sentence), norm(source)
    if not t or not a:
        return False
    if t.endswith("…"):
        return a.startswith(t[:-1].rstrip())
    return t == a or (a.endswith(t) and len(t) >= 0.6 * len(a))


def card_tldr(paper) -> str:
    """The TL;DR section the Details card (``bot.render.blocks.paper_blocks``) shows above
    the abstract, unescaped; "" when it shows none."""
    import html

    from bot.render.blocks import paper_blocks

    for block in paper_blocks(paper):
        text = block.get("text", {}).get("text", "") if block["type"] == "section" else ""
        if text.startswith("*TL;DR* "):
            return html.unescape(text[len("*TL;DR* ") :])
    return ""


def tldr_figures(papers: list) -> dict:
    """Counts of TL;DRs repeating the first / any shown abstract sentence."""
    from bot import corpus

    first = we_first = shown = whole = empty = initial = 0
    examples = []
    for p in papers:
        if not p.tldr:
            empty += 1
            continue
        initial += bool(_INITIAL.search(p.tldr))
        sents = corpus.sentences(p.abstract)
        visible = corpus.sentences(p.abstract[:ABSTRACT_MAX])
        parts = corpus.sentences(p.tldr) or [p.tldr]
        rep_first = any(repeats(t, sents[0]) for t in parts) if sents else False
        above = card_tldr(p)  # what the Details card shows above the abstract
        rep = [t for t in (corpus.sentences(above) or [above]) if above and any(repeats(t, a) for a in visible)]
        first += rep_first
        we_first += rep_first and bool(_WE_VERB.search(sents[0].lower()))
        shown += bool(rep)
        whole += len(rep) == len(parts)
        if (rep_first or _INITIAL.search(p.tldr)) and len(examples) < 8:
            examples.append((p.id, p.tldr[:160]))
    n = len(papers)
    return {
        "papers": n,
        "empty": empty,
        "repeats_first_sentence": first,
        "repeats_first_share": first / n,
        "first_is_we_sentence": we_first,
        "repeats_shown_sentence": shown,
        "repeats_shown_share": shown / n,
        "entirely_copied": whole,
        "cut_at_initial": initial,
        "examples": examples,
    }


def readings(word: str) -> set[str]:
    """POS readings of one word by the module docstring's rules: {"NOUN", "ADJ", "VERB", "ADV"}."""
    import lemminflect

    w = word.replace("–", "-").replace("—", "-").strip("()[]\"'.,;:-")
    if not w or any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]):
        return {"NOUN"}
    low = w.lower()
    if "-" in low:
        tail = low.rsplit("-", 1)[1]
        return {"ADJ"} if tail in ADJ_TAILS or not tail else readings(tail)
    if low.endswith("ing") and len(low) > 5:
        return {"NOUN", "VERB"}
    found = set(lemminflect.getAllLemmas(low))
    if found:
        return found
    if low.endswith(ADJ_SUFFIXES):
        return {"ADJ"}
    return {"VERB"} if low.endswith("ed") else {"NOUN"}


def keyword_label(keyword: str) -> str:
    """ "noun" (a noun phrase), "adjective", "verb", "adverb" (one word that is only that), or "not NP"."""
    words = keyword.split("(")[0].split() or keyword.split()
    if len(words) == 1:
        r = readings(words[0])
        if "NOUN" in r or "PROPN" in r:
            return "noun"
        return "adjective" if "ADJ" in r else "verb" if "VERB" in r else "adverb"
    head, first = readings(words[-1]), words[0].lower()
    bare_verb = readings(first) == {"VERB"} and not first.endswith(("ing", "ed"))
    return "noun" if ("NOUN" in head or "PROPN" in head) and not bare_verb else "not NP"


def keyword_figures(papers: list) -> dict:
    labels = Counter()
    singles = bad = 0
    examples: dict[str, list[str]] = {"adjective": [], "verb": [], "adverb": [], "not NP": []}
    for p in papers:
        for k in p.keywords:
            label = keyword_label(k)
            labels[label] += 1
            single = len(k.split("(")[0].split()) == 1
            singles += single
            if label != "noun":
                bad += label in ("adjective", "verb")
                if len(examples[label]) < 15:
                    examples[label].append(k)
    total = sum(labels.values())
    return {
        "keywords": total,
        "per_paper": total / max(1, len(papers)),
        "single_word": singles,
        "labels": dict(labels),
        "single_adjective_or_verb": bad,
        "single_adjective_or_verb_share": bad / max(1, total),
        "not_noun_phrase_share": labels["not NP"] / max(1, total - singles),
        "examples": examples,
    }


def handcheck(papers: list, path: Path | None, seed: int) -> tuple[list[str], dict]:
    """Compare the rules with a person's labels of ``HANDCHECK_SIZE`` keywords drawn with ``seed``;
    write the draw to ``path`` (column ``hand`` empty) when the file does not exist yet."""
    pool = [(p.id, k) for p in papers for k in p.keywords]
    drawn = random.Random(seed).sample(pool, min(HANDCHECK_SIZE, len(pool)))
    if path is None:
        return [], {}
    if not path.exists():
        rows = ["paper\tkeyword\trules\thand"] + [f"{pid}\t{k}\t{keyword_label(k)}\t" for pid, k in drawn]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return [f"hand-check: {path} written; fill its column `hand` and run again"], {}
    hand = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        pid, keyword, _, label = (line.split("\t") + [""] * 4)[:4]
        hand[pid, keyword] = label.strip()
    pairs = [(keyword_label(k), hand.get((pid, k), "")) for pid, k in drawn if hand.get((pid, k))]

    def bad(label: str) -> bool:
        return label in ("adjective", "verb")

    agree = sum(a == b or (a == "not NP" and b == "other") for a, b in pairs)
    tp = sum(bad(a) and bad(b) for a, b in pairs)
    stats = {
        "labelled": len(pairs),
        "agree": agree,
        "hand_single_adjective_or_verb": sum(bad(b) for _, b in pairs),
        "rules_single_adjective_or_verb": sum(bad(a) for a, _ in pairs),
        "both": tp,
        "hand_labels": dict(Counter(b for _, b in pairs)),
    }
    lines = [
        f"hand-check ({path.name}): {len(pairs)} keywords labelled by hand; the rules agree on {agree}",
        f"  single adjective/verb by hand {stats['hand_single_adjective_or_verb']}, by the rules "
        f"{stats['rules_single_adjective_or_verb']}, both {tp}; hand labels {stats['hand_labels']}",
    ]
    return lines, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path, nargs="?", default=sample.DEFAULT_DATA)
    ap.add_argument("--papers", type=int, default=500)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--handcheck", type=Path, help="TSV of hand labels (written with an empty column when absent)")
    ap.add_argument("--out", type=Path, help="also write the report here (and FILE with .json)")
    args = ap.parse_args()
    records = sample.drawn_records(args.data_dir, args.papers, args.seed)
    titled = sample.load(records)
    untitled = sample.load([{**r, "title": ""} for r in records])
    figures = {
        "titled": {"tldr": tldr_figures(titled), "keywords": keyword_figures(titled)},
        "untitled": {"tldr": tldr_figures(untitled), "keywords": keyword_figures(untitled)},
    }
    lines = sample.header(
        "paperbot content benchmark — TL;DRs and keywords of arXiv papers",
        args.data_dir,
        f"{len(titled)} papers drawn with seed {args.seed}, loaded with their titles and again without",
    )
    for name, label in (("titled", "as given (title: derive.tldr + title_keywords)"), ("untitled", "without titles")):
        t, k = figures[name]["tldr"], figures[name]["keywords"]
        lines += [
            f"{label}:",
            f"  TL;DR repeats the abstract's first sentence: {t['repeats_first_sentence']} of {t['papers']} "
            f"({t['repeats_first_share']:.1%}); of them, the first sentence is the \"we propose/study\" one: "
            f"{t['first_is_we_sentence']}, the fallback (no such sentence): {t['repeats_first_sentence'] - t['first_is_we_sentence']}",
            f"  the Details card's TL;DR section repeats a sentence of the abstract shown right below it "
            f"(first {ABSTRACT_MAX} characters): "
            f"{t['repeats_shown_sentence']} ({t['repeats_shown_share']:.1%}); entirely copied: {t['entirely_copied']}",
            f"  TL;DR cut at an initial (a sentence split inside a name, 'The Vera C.'): {t['cut_at_initial']}",
            f"  keywords: {k['keywords']} ({k['per_paper']:.1f} a paper), {k['single_word']} of one word; "
            f"labels {k['labels']}",
            f"  single adjective or verb: {k['single_adjective_or_verb']} ({k['single_adjective_or_verb_share']:.1%} "
            f"of all keywords; target 0); longer keywords that are not noun phrases: {k['not_noun_phrase_share']:.1%}",
        ]
        for kind, found in k["examples"].items():
            if found:
                lines.append(f"    {kind}: " + ", ".join(found[:15]))
        lines += [f"    TL;DR e.g. {pid}: {text!r}" for pid, text in t["examples"][:6]]
        lines.append("")
    check_lines, check = handcheck(titled, args.handcheck, args.seed)
    lines += check_lines + ["", WHY]
    publish(lines, args.out, {"papers": len(titled), "seed": args.seed, **figures, "handcheck": check})


if __name__ == "__main__":
    main()
