"""The whole-query spelling corrector issue 18 asks for, as a prototype (``context_correct``),
and the plain "most frequent candidate" it is measured against (``most_frequent_query``).

Used by ``typo_bench.py``. Both work on a ``Vocabulary`` of the indexed papers — unstemmed
words of title + abstract with their document frequency and postings, adjacent-word
bigrams, author-name words — rebuilt from the papers as ``bot.search.lexicon`` collects its
words, since the public API does not expose the lexicon. "English" is pyspellchecker's list
at count >= 10, the rule of ``bot.search.english`` restated. Candidates within two edits
come from rapidfuzz (optimal string alignment: a swap of neighbours is one edit).

``context_correct``: each word to correct (``candidates``) gets its candidates one edit
away, else two (never a name); of every combination of candidates with the other words,
the one whose adjacent pairs occur as bigrams in the most papers — else whose words occur
together in the most papers — is the correction when it has support and at least
``MARGIN`` times the runner-up's; otherwise it is only a "did you mean" hint.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections import Counter, defaultdict

MIN_TYPED = 5  # Ranking.spell_min_chars: shorter words are never corrected by the product
MARGIN = 2.0  # the context corrector's "clearly better": support >= MARGIN x the runner-up's
MAX_CANDIDATES = 20
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def fold(text: str) -> str:
    """Lower case without accents (``bot.search.analysis.fold``'s rule)."""
    text = text.lower()
    return text if text.isascii() else "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii())


class Vocabulary:
    """Document frequencies, postings and bigrams of the indexed papers' titles + abstracts."""

    def __init__(self, papers: list) -> None:
        self.df: Counter = Counter()
        self.postings: dict[str, set[int]] = defaultdict(set)
        self.bigrams: Counter = Counter()
        self.authors: Counter = Counter()
        for d, p in enumerate(papers):
            tokens = _WORD.findall(fold(f"{p.title} . {p.abstract}"))
            words = [part for t in tokens for part in t.split("-")]
            distinct = set(words) | {t.replace("-", "") for t in tokens if "-" in t}
            self.df.update(distinct)
            for w in distinct:
                self.postings[w].add(d)
            self.bigrams.update({f"{a} {b}" for a, b in zip(words, words[1:])})
            self.authors.update({w for a in p.authors for w in _WORD.findall(fold(a))})
        self.words = sorted(self.df)
        self._near: dict[str, dict[int, list[str]]] = {}

    def is_name(self, word: str) -> bool:
        """An author-name word at least as often as a text word (``readings.is_name``'s rule)."""
        return self.authors.get(word, 0) >= max(1, self.df.get(word, 0))

    def near(self, word: str) -> dict[int, list[str]]:
        """Vocabulary words 1 and 2 edits from ``word`` (optimal string alignment), by distance."""
        if word not in self._near:
            from rapidfuzz import process
            from rapidfuzz.distance import OSA

            found: dict[int, list[str]] = {1: [], 2: []}
            for w, dist, _ in process.extract(word, self.words, scorer=OSA.distance, score_cutoff=2, limit=None):
                if dist:
                    found[int(dist)].append(w)
            self._near[word] = found
        return self._near[word]

    def together(self, words: list[str]) -> int:
        """Papers holding every one of ``words``."""
        sets = sorted((self.postings.get(w, set()) for w in words), key=len)
        return len(set.intersection(*sets)) if sets else 0


@functools.lru_cache(maxsize=1)
def spellchecker():
    """pyspellchecker's English ``SpellChecker`` (made once)."""
    from spellchecker import SpellChecker

    return SpellChecker(language="en")


@functools.lru_cache(maxsize=1)
def _english() -> frozenset:
    return frozenset(w for w, n in spellchecker().word_frequency.dictionary.items() if n >= 10)


def is_english(word: str) -> bool:
    """pyspellchecker's English list, words seen >= 10 times (``bot.search.english``'s rule)."""
    return word in _english()


def candidates(vocab: Vocabulary, word: str, rules: str = "open") -> list[str] | None:
    """Corrections to consider for ``word``, most frequent first; None when it is kept.

    Args:
        vocab: the corpus vocabulary.
        word: one typed word, lower case.
        rules: "plain" — any word not in the corpus, candidates 1 edit away else 2;
            "open" — the same, but English words and words under 4 letters are kept and
            names are never a candidate; "product" — ``spelling.suggest``'s rules restated:
            5+ letters, English kept, no name, the typo's first letter, 1 edit up to 7
            letters else up to 2, nearest distance first.
    """
    if word in vocab.df or not word.isalpha():
        return None
    near = vocab.near(word)
    if rules == "plain":
        return sorted(near[1] or near[2], key=lambda c: (-vocab.df[c], c))[:MAX_CANDIDATES]
    if is_english(word) or len(word) < (MIN_TYPED if rules == "product" else 4):
        return None
    for dist in (1, 2) if rules == "open" or len(word) > 7 else (1,):
        pool = [c for c in near[dist] if not vocab.is_name(c) and (rules == "open" or c[0] == word[0])]
        if pool:
            return sorted(pool, key=lambda c: (-vocab.df[c], c))[:MAX_CANDIDATES]
    return []


def most_frequent_query(vocab: Vocabulary, typed: str, rules: str = "plain") -> str:
    """Each word to correct (``candidates``) replaced by its most frequent candidate."""
    return " ".join((candidates(vocab, w, rules) or [w])[0] for w in typed.split())


def context_correct(
    vocab: Vocabulary, typed: str, *, signal: str = "both", margin: float = MARGIN, rules: str = "open"
) -> tuple[str, str]:
    """The prototype: ``(query, "unchanged" | "corrected" | "hint")``.

    Args:
        vocab: the corpus vocabulary.
        typed: the query, lower case, words separated by spaces.
        signal: "both" (bigram papers, then papers with all the words), "bigram" or "cooccur".
        margin: the best combination's support must be at least this times the runner-up's.
        rules: which words are corrected and their candidates (``candidates``); "product"
            tells the product's candidate rules' cost from the context's gain.
    """
    words = typed.split()
    slots, open_slots = [], []
    for k, w in enumerate(words):
        pool = candidates(vocab, w, rules)
        slots.append(pool or [w])
        open_slots += [k] if pool else []
    if not open_slots:
        return typed, "unchanged"
    scored = []
    for combo in itertools.islice(itertools.product(*slots), 400):
        pairs = [(k, k + 1) for k in range(len(combo) - 1) if k in open_slots or k + 1 in open_slots]
        bigram = sum(vocab.bigrams.get(f"{combo[a]} {combo[b]}", 0) for a, b in pairs)
        together = vocab.together([c for c in combo if c in vocab.df])
        df = sum(vocab.df.get(combo[k], 0) for k in open_slots)
        support = {"both": (bigram, together), "bigram": (bigram,), "cooccur": (together,)}[signal]
        scored.append((support, df, combo))
    scored.sort(key=lambda s: (tuple(-x for x in s[0]), -s[1], s[2]))
    best = " ".join(scored[0][2])
    if len(scored) == 1:
        return best, "corrected"
    (s1, _, _), (s2, _, _) = scored[0], scored[1]
    k = 0 if s1[0] > 0 or len(s1) == 1 else 1  # the bigram count decides when any bigram occurs
    if s1[k] > 0 and s1[k] >= margin * s2[k]:
        return best, "corrected"
    return best, "hint"
