"""How a typed word is read: an English word, a word of conversation, a
person's name, an acronym or a paper's name.

The rules (docs/search.md "Words, names and acronyms"):

* **English words.** The English word list is the frequency list shipped
  inside the ``pyspellchecker`` package
  (https://pypi.org/project/pyspellchecker/, built from OpenSubtitles and
  other corpora); it is loaded once, on first use (about 0.2 s, 160,000
  words). Words seen fewer than ``MIN_COUNT`` times in that list are not
  trusted (rare misspellings occur in it). Spelling never replaces an
  English word (``is_english``).
* **Conversation.** Words of chat and requests (``CHAT_WORDS``) are searched
  like any word but say nothing about a paper; greetings without a request
  make a text small talk (``GREETINGS``, ``REQUESTS``).
* **Names.** A word without ``author:`` and outside quotes matches the
  ``authors`` field only when it is a name in this corpus: for each of its
  terms, at least as many papers have it among their authors as in their
  title or abstract ("Wang", "Hinton", "Smith" — not "All", "Pass", "ViT",
  whose papers with the word in the text outnumber those of authors named
  All, Pass or Vít).
* **Acronyms and paper names.** An ordinary English word (``is_english``)
  typed in lower case or Title Case ("all", "All", "find") is the word: it
  gets no acronym expansion from the corpus' definitions ("ALL" = acute
  lymphoblastic leukemia) and does not match a paper named "FIND". Typed
  with a capital after its first letter ("ALL", "MoE", "FIND") in a query
  mostly not in capitals, it is also the acronym or the name.
* **Spelling.** A correction's target is a word of the text, never a name
  (``stegano`` is not corrected to "stefano", in 4 abstracts and among the
  authors of 509 papers of a 102,289-paper arXiv index).
"""

from __future__ import annotations

import json
import threading

from bot.search.index.analysis import fold

#: Least count in the word list for a word to be taken as English.
MIN_COUNT = 10

#: Words of conversation and requests that say nothing about a paper ("find
#: me papers about ..."): searched like any word, but left out of a mention's
#: match confidence (``bot.search.scoring.rank.Ranked.confident``).
CHAT_WORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were"
    " what which who will with about any paper papers you your me i we there please find show"
    " tell know think hi hello hey thanks thank can could would should do does did how why when"
    " where here our us my some one someone anyone somebody anybody".split()
)
#: Greetings and thanks: with at most two content words, a text is small talk ...
GREETINGS = frozenset("hi hello hey thanks thank morning evening night bye cheers yo lol".split())
#: ... unless it also asks for something ("hey, what do you have on chess?").
REQUESTS = frozenset("what which any about find show have got know papers paper anything something".split())

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


def bare(text: str) -> str:
    """A typed word folded, without the punctuation around it ("Hi," -> "hi")."""
    return fold(text).strip(".,;:!?'\"()[]{}")


def about(text: str) -> str:
    """What a conversational request is about: ``text`` without its words of conversation
    (``CHAT_WORDS``) and the sentence's closing punctuation ("can someone find that paper
    on sparce atention with composite tokens?" -> "sparce atention composite tokens"), so
    that neither ranking nor spelling takes "paper" or "find" for the topic. ``text`` as it
    is when it has quotes or brackets (a query's syntax) or fewer than two other words
    ("hello world", "hey, anything on chess?": ranking's match confidence, which discounts
    those words, decides as before). A word typed in capitals stays ("IT", "US": an
    acronym or a name, ``mixed_case``).

    Args:
        text: a mention's or DM's words (links already taken out).
    """
    if any(ch in text for ch in "\"()"):
        return text
    kept = [w for w in text.split() if bare(w) not in CHAT_WORDS or mixed_case(w.strip(".,;:!?'"))]
    if sum(1 for w in kept if bare(w)) < 2:
        return text
    return " ".join(kept).rstrip(".?!,;:")


def mixed_case(word: str) -> bool:
    """True when a letter after the first is a capital ("ALL", "MoE", "ViT",
    "KIStego"); False for "all", "All", "vit"."""
    return any(ch.isupper() for ch in word[1:])


def plain_word(text: str, caps: bool) -> bool:
    """True when ``text`` is an English word read as the word only: typed in
    lower case or Title Case, or in any case when ``caps`` is False (a query
    mostly in capitals says nothing by its case; ``prose.mostly_capitals``).

    Args:
        text: the word as typed.
        caps: whether the query's case means something (False when it is mostly in capitals).
    """
    word = bare(text)
    return word.isalpha() and (not caps or not mixed_case(text.strip(".,;:!?'\"()[]{}"))) and is_english(word)


def is_name(reader, text_field: str, stem, terms) -> bool:
    """True when every one of ``terms`` (author-field terms: folded words) is
    in at least as many papers' ``authors`` as papers' ``text_field`` (the
    term stemmed with ``stem``), and in some paper's authors.

    Args:
        reader: an open Whoosh reader (document frequencies).
        text_field: "all" (or "abstract" in a generation without it).
        stem: the text analyzer's stem function.
        terms: the plain (unstemmed) terms of the word.
    """
    if not terms:
        return False
    for term in terms:
        names = reader.doc_frequency("authors", term)
        if not names or names < reader.doc_frequency(text_field, stem(term)):
            return False
    return True


#: Most papers of one name read to check how the name is written.
_NAME_CHECKS = 20


def paper_name(reader, typed: str, caps: bool) -> bool:
    """May a word equal to some paper's whole name (``name_key``) join a search
    as that name match? Always for a word that is not English; an English word
    only when typed with a capital after its first letter in a query mostly not
    in capitals (``plain_word``) and exactly as some paper's name is written
    (``DEEP`` finds DEEP; "Deep" in a title does not; docs/search.md "Mentions:
    is the best hit the paper meant?" rule 3).

    Args:
        reader: a Whoosh reader of the generation (stored ``doc`` JSON).
        typed: the word as typed.
        caps: whether the query's case says anything (``prose.mostly_capitals``).
    """
    if not is_english(typed):
        return True
    if plain_word(typed, caps):
        return False
    docs = reader.postings("name_key", typed.casefold()).all_ids()
    for i, d in enumerate(docs):
        if i >= _NAME_CHECKS:
            break
        if json.loads(reader.stored_fields(d)["doc"]).get("name") == typed:
            return True
    return False
