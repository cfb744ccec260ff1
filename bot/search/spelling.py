"""Spelling correction of query words that appear nowhere in the corpus.

Corrections come from the generation's unstemmed vocabulary (``Lexicon``):
nearest edit distance first (Levenshtein automaton from ``whoosh.automata``,
skipping through the sorted word list; a swap of neighbouring letters also
counts as one edit), then the most frequent word. Short
words (< ``spell_min_chars``) and words with digits or non-Latin letters are
left alone.
"""
from __future__ import annotations

from bisect import bisect_left

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

from bot import budget
from bot.search.lexicon import Lexicon
from bot.search.query import Clause, ParsedQuery
from bot.search.ranking import Ranking, fold


#: A spelling found in at most this many papers may itself be a typo: it gets
#: a "did you mean" when a word one or two edits away is ``RARE_RATIO`` times
#: as common ("tranformer", in one arXiv abstract, vs "transformer" in 1,500).
RARE_DF = 2
RARE_RATIO = 20


def suggest(lexicon: Lexicon, word: str, r: Ranking) -> str | None:
    """The best correction of one word, or None.

    Args:
        lexicon: the generation's vocabulary.
        word: the word as typed.
        r: spelling limits (``spell_min_chars``, ``spell_prefix``, max edits).
    """
    low = fold(word)
    if len(low) < r.spell_min_chars or not low.isascii() or not low.isalpha():
        return None
    words = lexicon.words
    if not words:
        return None
    for dist in range(1, r.spell_max_edits(low) + 1):
        dfa = levenshtein_automaton(low, dist, r.spell_prefix).to_dfa()
        found = {w for w in find_all_matches(dfa, _Skipper(words)) if w != low}
        if dist == 1:   # a swap of two neighbours is one edit too (Damerau)
            found.update(w for w in transpositions(low) if w in lexicon.df)
        if found:
            return min(found, key=lambda w: (-lexicon.df[w], w))
    return None


def transpositions(word: str) -> set[str]:
    """``word`` with two neighbouring letters swapped, every way ("nueral" ->
    {"unerla", "neural", "nuearl", ...}). Levenshtein distance counts a swap as
    two edits, so without these "nueral" was corrected to "numeral" (one
    insertion) rather than "neural" (a fresh-user finding at 100k papers)."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2:]
            for i in range(len(word) - 1) if word[i] != word[i + 1]}


class _Skipper:
    """Next word >= the automaton's candidate, by bisection in the sorted list."""

    def __init__(self, words: list[str]) -> None:
        self.words = words

    def __call__(self, w: str) -> str | None:
        if budget.exhausted():   # bot.budget: the request's CPU is spent, stop looking
            return None
        i = bisect_left(self.words, w)
        return self.words[i] if i < len(self.words) else None


def correct(lexicon: Lexicon, parsed: ParsedQuery, unknown: list[Clause],
            r: Ranking, unusual: list[Clause] = ()) -> str | None:
    """``parsed.text`` with each unknown word replaced by its correction, and
    each unusual word by the one ``hint`` would suggest ("difusion modles" ->
    "diffusion models": "difusion" shares its stem with "DiFuse", so only
    "modles" is unknown).

    Returns None when no unknown word could be corrected.
    """
    fixes = {}
    for clause in unknown:
        fix = suggest(lexicon, clause.text, r)
        if fix is not None:
            fixes[clause.span] = fix
    if not fixes:
        return None
    for clause in unusual:
        fix = _better_spelling(lexicon, clause, r)
        if fix is not None:
            fixes[clause.span] = fix
    return _replace(parsed.text, fixes)


def hint(lexicon: Lexicon, parsed: ParsedQuery, unusual: list[Clause], r: Ranking) -> str | None:
    """A "did you mean" for words whose stem matched but whose spelling is
    unseen ("distilation" -> "distillation") or rare next to a common one
    ("tranformer" -> "transformer", ``RARE_RATIO``); None when the only
    difference is an ending ("transformers" vs "transformer")."""
    fixes = {}
    for clause in unusual:
        fix = _better_spelling(lexicon, clause, r)
        if fix is not None:
            fixes[clause.span] = fix
    return _replace(parsed.text, fixes) if fixes else None


def _better_spelling(lexicon: Lexicon, clause: Clause, r: Ranking) -> str | None:
    fix = suggest(lexicon, clause.text, r)
    low = fold(clause.text)
    seen = lexicon.df.get(low, 0)
    if fix is not None and not (fix.startswith(low) or low.startswith(fix)) and \
            (not seen or lexicon.df.get(fix, 0) >= RARE_RATIO * seen):
        return fix
    return None


def _replace(text: str, fixes: dict[tuple[int, int], str]) -> str:
    """``text`` with each ``(start, end)`` span replaced, last span first."""
    for (start, end), fix in sorted(fixes.items(), reverse=True):
        text = text[:start] + fix + text[end:]
    return text
