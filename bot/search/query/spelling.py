"""Spelling correction of query words that appear nowhere in the corpus.

Corrections come from the generation's unstemmed vocabulary (``Lexicon``):
nearest edit distance first (a Levenshtein automaton,
``bot.search.index.whoosh_internals.edit_matches``; a swap of neighbouring letters also
counts as one edit), never a name (``names``:
``bot.search.query.word_readings.is_name``); of those candidates, the one that fits
the query's other words (``bot.search.query.fit``: a pair of the corpus, else
papers holding all the words) — a correction when clearly best, else only a
"did you mean" (issue 18; docs/search.md "Ranking rules, and why"). A word that begins corpus words
is searched as that prefix instead ("stegano" -> ``stegano*``) when their
most frequent one is at least as common as the nearest edit. Short words
(< ``spell_min_chars``) and words with digits or non-Latin letters are left
alone (docs/search.md "Ranking rules, and why").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

from bot.search.index.analysis import fold
from bot.search.index.whoosh_internals import edit_matches
from bot.search.query.fit import QueryFit
from bot.search.query.lexicon import Lexicon
from bot.search.query.parser import Clause, ParsedQuery, leaves
from bot.search.query.prose import mostly_capitals
from bot.search.query.word_readings import is_english
from bot.search.scoring.knobs import Ranking

#: A spelling found in at most this many papers may itself be a typo: it gets
#: a "did you mean" when a word one or two edits away is ``RARE_RATIO`` times
#: as common ("tranformer", in one arXiv abstract, vs "transformer" in 1,500).
RARE_DF = 2
RARE_RATIO = 20
#: Shortest typed word completed as a prefix ("stak" is no start of "stakeholder").
COMPLETION_MIN_CHARS = 5
#: Corrections of one word weighed against the rest of the query, at most.
MAX_CANDIDATES = 20
#: Combinations of candidates weighed, at most (several unknown words).
MAX_COMBINATIONS = 100
#: Combinations whose adjacent pairs are read from the stored text, at most
#: (those with the most papers holding all their words).
PAIR_CHECKS = 8
#: The best combination is a correction when the papers holding all its words
#: are at least this many times the runner-up's; else only a "did you mean"
#: (benchmarks/results/typo_bench_*.txt, docs/search.md "Ranking rules, and why").
MARGIN = 2.0


@dataclass(frozen=True)
class Correction:
    """A query's spelling correction.

    Attributes:
        text: the corrected query.
        sure: True when it runs instead of the typed query; False when it is
            only offered ("Did you mean …"): no candidate fits the other words
            clearly better than the next (``MARGIN``).
    """

    text: str
    sure: bool


def candidates(lexicon: Lexicon, word: str, r: Ranking, names: Callable[[str], bool] | None = None) -> list[str]:
    """Every correction of one word at the nearest distance, most frequent
    first (at most ``MAX_CANDIDATES``); ``[]`` when none or not correctable.

    One edit first — any letter, the first included ("ramework" ->
    "framework"; a swap of neighbours is one edit, ``transpositions``) — then,
    when one finds nothing, two edits sharing the first letter
    (``Ranking.spell_prefix``: two edits anywhere cost 70-200 ms on a 58,000-word
    vocabulary, one edit anywhere 1-8 ms). Names are never a target.

    Args:
        lexicon: the generation's vocabulary.
        word: the word as typed.
        r: spelling limits (``spell_min_chars``, ``spell_prefix``, max edits).
        names: True for a vocabulary word that is a name in the corpus
            (never a target: "stegano" is not "stefano").
    """
    low = fold(word)
    if not _correctable(low, r) or not lexicon.words:
        return []
    for dist in range(1, r.spell_max_edits(low) + 1):
        found = edit_matches(low, dist, 0 if dist == 1 else r.spell_prefix, lexicon.words) - {low}
        if dist == 1:  # a swap of two neighbours is one edit too (Damerau)
            found.update(w for w in transpositions(low) if w in lexicon.df)
        found = {w for w in found if w.islower() and (names is None or not names(w))}
        if found:
            return sorted(found, key=lambda w: (-lexicon.df[w], w))[:MAX_CANDIDATES]
    return []


def suggest(lexicon: Lexicon, word: str, r: Ranking, names: Callable[[str], bool] | None = None) -> str | None:
    """The most frequent of ``candidates``, or None (the word alone, no context).

    Args:
        lexicon: the generation's vocabulary.
        word: the word as typed.
        r: spelling limits.
        names: as in ``candidates``.
    """
    found = candidates(lexicon, word, r, names)
    return found[0] if found else None


def completion(
    lexicon: Lexicon, word: str, r: Ranking, edit: str | None, names: Callable[[str], bool] | None = None
) -> str | None:
    """``word*`` when ``word`` begins corpus words (not names) and the most
    frequent of them is in at least as many papers as ``edit``, the nearest
    edit's word ("stegano" -> "stegano*": "steganography" is in 34 arXiv
    papers); else None.

    Args:
        lexicon: the generation's vocabulary.
        word: the word as typed.
        r: spelling limits (``spell_min_chars``, ``prefix_max_terms``).
        edit: the nearest edit's correction (``suggest``), or None.
        names: as in ``suggest``.
    """
    low = fold(word)
    if not _correctable(low, r) or len(low) < COMPLETION_MIN_CHARS:
        return None
    found = [w for w in lexicon.prefix(low, r.prefix_max_terms) if w != low and (names is None or not names(w))]
    if not found or (edit is not None and lexicon.df[found[0]] < lexicon.df.get(edit, 0)):
        return None
    return low + "*"


def _correctable(low: str, r: Ranking) -> bool:
    return len(low) >= r.spell_min_chars and low.isascii() and low.isalpha()


def transpositions(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped, every way ("nueral" ->
    {"unerla", "neural", "nuearl", ...}). Levenshtein distance counts a swap as
    two edits, so without these "nueral" was corrected to "numeral" (one
    insertion) rather than "neural" (a fresh-user finding at 100k papers)."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1) if word[i] != word[i + 1]}


def correct(
    lexicon: Lexicon,
    parsed: ParsedQuery,
    unknown: list[Clause],
    r: Ranking,
    unusual: list[Clause] = (),
    names: Callable[[str], bool] | None = None,
    fit: QueryFit | None = None,
) -> Correction | None:
    """``parsed.text`` with each unknown word replaced by the correction that
    fits the other words (or its ``completion``), and each unusual word by the
    one ``hint`` would suggest ("difusion modles" -> "diffusion models":
    "difusion" shares its stem with "DiFuse", so only "modles" is unknown).

    The whole query chooses: of every combination of the unknown words'
    ``candidates`` with the query's other words, the one whose adjacent words
    are side by side in the most papers wins, else the one whose words are
    together in the most papers (``fit``) — "sparce atention" is "sparse
    attention", though "space" is in more papers than "sparse" — and is
    ``sure`` when that count is not 0 and at least ``MARGIN`` times the
    runner-up's; a word with one candidate is sure.

    Returns None when no unknown word could be corrected.

    Args:
        lexicon: the generation's vocabulary.
        parsed: the query as parsed.
        unknown: its words no field knows (``Compiled.unknown``).
        r: spelling limits.
        unusual: its words of an unseen or rare spelling (``Compiled.unusual``).
        names: as in ``candidates``.
        fit: the corpus signals (``bot.search.query.fit.QueryFit``: papers with
            an adjacent pair, papers with all the words); None weighs each word
            alone by its document frequency.
    """
    slots: dict[tuple[int, int], list[str]] = {}
    shouting = mostly_capitals(parsed.text)
    for clause in unknown:
        if real_word(lexicon, clause.text, shouting):
            continue
        found = candidates(lexicon, clause.text, r, names)
        prefix = completion(lexicon, clause.text, r, found[0] if found else None, names)
        if prefix or found:
            slots[clause.span] = [prefix] if prefix else found
    if not slots:
        return None
    for clause in unusual:  # a known stem of a rare spelling: its better spellings are candidates too
        found = _better_spellings(lexicon, clause, r, names)
        if found:
            slots[clause.span] = found
    fixes, sure = _choose(lexicon, parsed, slots, fit)
    return Correction(text=_replace(parsed.text, fixes), sure=sure)


def _choose(lexicon: Lexicon, parsed: ParsedQuery, slots: dict, fit) -> tuple[dict, bool]:
    """``(span -> fix, sure)``: the combination of ``slots``' candidates that
    fits the query's other words best (``correct``). Pairs are read for the
    ``PAIR_CHECKS`` combinations with the most papers holding all their words."""
    spans = sorted(slots)
    if all(len(slots[s]) == 1 for s in spans):
        return {s: slots[s][0] for s in spans}, True
    words = [c for c in leaves(parsed.clauses) if c.kind == "word" and c.occur != "not"]
    combos = []
    for combo in itertools.islice(itertools.product(*(slots[s] for s in spans)), MAX_COMBINATIONS):
        fixes = dict(zip(spans, combo))
        seq = [(fixes.get(c.span, c.text), c.span in fixes) for c in words]
        plain = [w for w, _ in seq if not w.endswith("*")]
        pairs = [(a, b) for (a, fa), (b, fb) in zip(seq, seq[1:]) if (fa or fb) and "*" not in a + b]
        df = sum(lexicon.df.get(w, 0) for w in combo)
        together = fit.together(plain) if fit is not None else df
        combos.append([0, together, df, combo, plain, pairs])
    combos.sort(key=lambda c: (-c[1], -c[2], c[3]))
    if fit is not None:
        for c in combos[:PAIR_CHECKS]:
            c[0] = fit.pairs(c[4], c[5])
    combos.sort(key=lambda c: (-c[0], -c[1], -c[2], c[3]))
    first, second = combos[0], combos[1]
    k = 0 if first[0] > 0 else 1  # a pair of the corpus decides when any occurs, else papers with all the words
    return dict(zip(spans, first[3])), first[k] > 0 and first[k] >= MARGIN * second[k]


def hint(
    lexicon: Lexicon, parsed: ParsedQuery, unusual: list[Clause], r: Ranking, names: Callable[[str], bool] | None = None
) -> str | None:
    """A "did you mean" for words whose stem matched but whose spelling is
    unseen ("distilation" -> "distillation") or rare next to a common one
    ("tranformer" -> "transformer", ``RARE_RATIO``); None when the only
    difference is an ending ("transformers" vs "transformer").

    Args:
        lexicon: the generation's vocabulary.
        parsed: the query as parsed.
        unusual: its words of an unseen or rare spelling (``Compiled.unusual``).
        r: spelling limits.
        names: as in ``suggest``.
    """
    fixes = {}
    for clause in unusual:
        fix = _better_spelling(lexicon, clause, r, names)
        if fix is not None:
            fixes[clause.span] = fix
    return _replace(parsed.text, fixes) if fixes else None


def real_word(lexicon: Lexicon, word: str, shouting: bool = False) -> bool:
    """A word spelling never replaces: an English word (``bot.search.query.word_readings``),
    a word typed in capitals (an acronym: "TCOLL") unless the whole query is
    (``shouting``), or an acronym the corpus defines ("MoE"). Such a word is
    searched as typed (docs/search.md).

    Args:
        lexicon: the generation's vocabulary (its acronyms).
        word: the word as typed.
        shouting: the query is written mostly in capitals (``prose.mostly_capitals``).
    """
    if len(word) > 1 and word.isupper() and not shouting:
        return True
    low = fold(word)
    return low in lexicon.acronyms or is_english(low)


def _better_spelling(lexicon: Lexicon, clause: Clause, r: Ranking, names=None) -> str | None:
    found = _better_spellings(lexicon, clause, r, names)
    return found[0] if found else None


def _better_spellings(lexicon: Lexicon, clause: Clause, r: Ranking, names=None) -> list[str]:
    """The ``candidates`` of an unusual word that are no mere ending of it and,
    when some paper writes it so, ``RARE_RATIO`` times as common; most frequent first."""
    if real_word(lexicon, clause.text):
        return []
    low = fold(clause.text)
    seen = lexicon.df.get(low, 0)
    found = [w for w in candidates(lexicon, clause.text, r, names) if not (w.startswith(low) or low.startswith(w))]
    return [fix for fix in found if not seen or lexicon.df.get(fix, 0) >= RARE_RATIO * seen]


def _replace(text: str, fixes: dict[tuple[int, int], str]) -> str:
    """``text`` with each ``(start, end)`` span replaced, last span first."""
    for (start, end), fix in sorted(fixes.items(), reverse=True):
        text = text[:start] + fix + text[end:]
    return text
