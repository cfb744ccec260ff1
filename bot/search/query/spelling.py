"""Spelling correction of query words that appear nowhere in the corpus.

Corrections come from the generation's unstemmed vocabulary (``Lexicon``):
nearest edit distance first (a Levenshtein automaton,
``bot.search.index.whoosh_internals.edit_matches``; a swap of neighbouring letters also
counts as one edit), then the most frequent word; never a name
(``names``: ``bot.search.query.word_readings.is_name``). A word that begins corpus words
is searched as that prefix instead ("stegano" -> ``stegano*``) when their
most frequent one is at least as common as the nearest edit. Short words
(< ``spell_min_chars``) and words with digits or non-Latin letters are left
alone (docs/search.md "Ranking rules, and why").
"""

from __future__ import annotations

from typing import Callable

from bot.search.index.analysis import fold
from bot.search.index.whoosh_internals import edit_matches
from bot.search.query.lexicon import Lexicon
from bot.search.query.parser import Clause, ParsedQuery
from bot.search.query.word_readings import is_english
from bot.search.scoring.knobs import Ranking

#: A spelling found in at most this many papers may itself be a typo: it gets
#: a "did you mean" when a word one or two edits away is ``RARE_RATIO`` times
#: as common ("tranformer", in one arXiv abstract, vs "transformer" in 1,500).
RARE_DF = 2
RARE_RATIO = 20


def suggest(lexicon: Lexicon, word: str, r: Ranking, names: Callable[[str], bool] | None = None) -> str | None:
    """The best correction of one word, or None.

    Args:
        lexicon: the generation's vocabulary.
        word: the word as typed.
        r: spelling limits (``spell_min_chars``, ``spell_prefix``, max edits).
        names: True for a vocabulary word that is a name in the corpus
            (never a target: "stegano" is not "stefano").
    """
    low = fold(word)
    if not _correctable(low, r):
        return None
    words = lexicon.words
    if not words:
        return None
    for dist in range(1, r.spell_max_edits(low) + 1):
        found = edit_matches(low, dist, r.spell_prefix, words) - {low}
        if dist == 1:  # a swap of two neighbours is one edit too (Damerau)
            found.update(w for w in transpositions(low) if w in lexicon.df)
        if names is not None:
            found = {w for w in found if not names(w)}
        if found:
            return min(found, key=lambda w: (-lexicon.df[w], w))
    return None


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
    if not _correctable(low, r):
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
) -> str | None:
    """``parsed.text`` with each unknown word replaced by its correction (or
    its ``completion``), and each unusual word by the one ``hint`` would
    suggest ("difusion modles" -> "diffusion models": "difusion" shares its
    stem with "DiFuse", so only "modles" is unknown). ``names``: see
    ``suggest``.

    Returns None when no unknown word could be corrected.

    Args:
        lexicon: the generation's vocabulary.
        parsed: the query as parsed.
        unknown: its words no field knows (``Compiled.unknown``).
        r: spelling limits.
        unusual: its words of an unseen or rare spelling (``Compiled.unusual``).
        names: as in ``suggest``.
    """
    fixes = {}
    for clause in unknown:
        if real_word(lexicon, clause.text):
            continue
        edit = suggest(lexicon, clause.text, r, names)
        fix = completion(lexicon, clause.text, r, edit, names) or edit
        if fix is not None:
            fixes[clause.span] = fix
    if not fixes:
        return None
    for clause in unusual:
        fix = _better_spelling(lexicon, clause, r, names)
        if fix is not None:
            fixes[clause.span] = fix
    return _replace(parsed.text, fixes)


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


def real_word(lexicon: Lexicon, word: str) -> bool:
    """A word spelling never replaces: an English word (``bot.search.query.word_readings``),
    a word typed in capitals (an acronym: "TCOLL"), or an acronym the corpus
    defines ("MoE"). Such a word is searched as typed (docs/search.md).

    Args:
        lexicon: the generation's vocabulary (its acronyms).
        word: the word as typed.
    """
    if len(word) > 1 and word.isupper():
        return True
    low = fold(word)
    return low in lexicon.acronyms or is_english(low)


def _better_spelling(lexicon: Lexicon, clause: Clause, r: Ranking, names=None) -> str | None:
    if real_word(lexicon, clause.text):
        return None
    fix = suggest(lexicon, clause.text, r, names)
    low = fold(clause.text)
    seen = lexicon.df.get(low, 0)
    if (
        fix is not None
        and not (fix.startswith(low) or low.startswith(fix))
        and (not seen or lexicon.df.get(fix, 0) >= RARE_RATIO * seen)
    ):
        return fix
    return None


def _replace(text: str, fixes: dict[tuple[int, int], str]) -> str:
    """``text`` with each ``(start, end)`` span replaced, last span first."""
    for (start, end), fix in sorted(fixes.items(), reverse=True):
        text = text[:start] + fix + text[end:]
    return text
