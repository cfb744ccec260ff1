"""Is a word a correctly spelled English word? (spelling never replaces one)

The English word list is the frequency list shipped inside the
``pyspellchecker`` package (https://pypi.org/project/pyspellchecker/, built
from OpenSubtitles and other corpora); it is loaded once, on first use
(about 0.2 s, 160,000 words). Words seen fewer than ``MIN_COUNT`` times in
that list are not trusted (rare misspellings occur in it).
"""

from __future__ import annotations

import threading

#: Least count in the word list for a word to be taken as English.
MIN_COUNT = 10

_lock = threading.Lock()
_words: frozenset[str] | None = None


def _load() -> frozenset[str]:
    global _words
    with _lock:
        if _words is None:
            from spellchecker import SpellChecker  # only here: the word list's package

            counts = SpellChecker(language="en").word_frequency.dictionary
            _words = frozenset(w for w, n in counts.items() if n >= MIN_COUNT)
    return _words


def is_english(word: str) -> bool:
    """True when ``word`` (any case) is in the English word list."""
    words = _words if _words is not None else _load()
    return word.lower() in words
