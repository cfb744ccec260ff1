"""Derived fields for papers whose source gives only an abstract: title and TL;DR.

Titles (≤ 120 characters, no trailing punctuation):

* a named paper with an appositive — "we present KIStego, a training-free
  framework substituting …" → "KIStego: Training-free framework substituting …";
* a named paper without one → "<name>: <topic>" ("FG-TTL: Future-Gain Guided
  Test-Time Learning for LLMs" when the name is "Long Form (ACR)");
* otherwise the topic: the object of the first "we propose/introduce/present/
  design/develop/establish …" sentence ("Data-free, online test-time framework
  that …"), or of a "we study/investigate/…" sentence as a gerund phrase
  ("Studying sparse training in data-constrained regimes …"; "we study how …"
  → "How …"); sentences whose object points back ("this assumption") are
  skipped; last resort, the first sentence.

Long phrases are cut at the last clause boundary (", which", ":", "—", then
"that", "by", "for" …) that fits. TL;DR: the contribution sentence plus the
sentence with the strongest result cues, ≤ 300 characters, extractive, never the
abstract's first sentence (``tldr``).
"""

from __future__ import annotations

import re

from bot.corpus.names import NameInfo
from bot.corpus.sentences import Doc
from bot.corpus.wordlists import strip_connective

TITLE_MAX = 120
TLDR_MAX = 300
_CREATE = ("propose", "introduce", "present", "design", "develop", "establish")
_INQUIRE = (
    "study",
    "investigate",
    "analyze",
    "analyse",
    "examine",
    "explore",
    "quantify",
    "characterize",
    "identify",
    "revisit",
)
_WE_VERB = re.compile(
    r"we\s+(?:(first|further|also|then|additionally|now|here|"
    r"systematically|formally|empirically|theoretically)\s+)?(" + "|".join(_CREATE + _INQUIRE) + r")\s+"
)
_SECONDARY = ("further", "also", "then", "additionally")
_ANAPHORA = re.compile(r"\b(?:this|these|such|those|it|them|they|its)\b", re.IGNORECASE)
_PAREN = re.compile(r"\s*\([^()]*\)")
_LEAD = re.compile(
    r"^(?:(?:however|moreover|furthermore|in addition|in this (?:paper|work)|here|"
    r"recently|to this end|in particular|specifically|first|second|third|finally|"
    r"instead|overall|thus|therefore|as such),\s+|it is \w+ (?:\w+ )?that\s+)+",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+(?:(?:novel|new|pioneering)\s+)?", re.IGNORECASE)
_STRONG = re.compile(r",\s+(?:which|where|while|whereas|and|but|yet|a|an|\w+ing)\s|;|:|\s—|—|\s–\s")
_CLAUSE = re.compile(
    r"\s(?:that|which|where|when|while|whereas|by|through|via|using|based on|"
    r"without)\s"
)
_PREPOSITION = re.compile(r"\s(?:for|with|to|in|on|from|across|under|over|as|at|of|into)\s")
_DANGLING = re.compile(
    r"(?:\s+(?:and|or|of|the|a|an|to|for|with|in|on|by|via|from|that|which|"
    r"while|as|at|its|their))+$",
    re.IGNORECASE,
)
_RESULT_STEMS = (
    "outperform",
    "achiev",
    "improv",
    "reduc",
    "surpass",
    "faster",
    "speedup",
    "state-of-the-art",
    "gain",
    "better",
)
_EVIDENCE_STEMS = ("experiment", "result", "demonstrat", "show")
_FIGURE = re.compile(r"\d(?:\.\d+)?\s*(?:%|×|x\b|times\b|points\b)")


def fit(text: str, limit: int, minimum: int = 45) -> str:
    """Shorten ``text`` to ≤ ``limit`` characters at the best clause boundary.

    Args:
        text: a phrase, e.g. a title candidate.
        limit: maximum length in characters.
        minimum: a cut shorter than this is not considered (unless nothing else fits).

    Returns:
        ``text`` without trailing punctuation when it fits; else the longest
        prefix ending at a strong boundary (", which", ", a", ", using", ";",
        ":", "—"), else before a clause word ("that", "when", "by" …), else
        before a preposition ("for", "with", "of" …), else at a space;
        dangling small words and unbalanced parentheses are removed.
    """
    text = text.strip().rstrip(".,;: ")
    if len(text) <= limit:
        return text
    window = text[: limit + 16]  # room for the boundary word itself (", which ")
    for pattern in (_STRONG, _CLAUSE, _PREPOSITION):
        cuts = [m.start() for m in pattern.finditer(window) if minimum <= m.start() <= limit]
        if cuts:
            return _tidy(text[: cuts[-1]])
    space = text.rfind(" ", 0, limit)
    return _tidy(text[: space if space > 0 else limit])


def _tidy(text: str) -> str:
    text = text.rstrip(".,;:–— ")
    if text.count("(") > text.count(")"):
        text = text[: text.rfind("(")]
    previous = None
    while previous != text:
        previous = text
        text = _DANGLING.sub("", text).rstrip(".,;:–— ")
    return text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def we_clauses(doc: Doc) -> list[tuple[int, str, str, str]]:
    """Every "we [adverb] <verb> <object>" clause, in text order.

    Args:
        doc: the abstract.

    Returns:
        ``[(sentence index, adverb or "", verb, object), …]`` for the verbs in
        ``_CREATE`` and ``_INQUIRE``; the object runs to the sentence's end,
        without parentheticals or final period. Found by ``str.find`` of "we "
        plus an anchored match, so plain sentences cost next to nothing.
    """
    out = []
    lower, pos = doc.lower, doc.lower.find("we ")
    while pos >= 0:
        if pos == 0 or not lower[pos - 1].isalnum():
            m = _WE_VERB.match(lower, pos)
            if m:
                i = doc.index_of(pos)
                obj = doc.text[m.end() : doc.spans[i][1]]
                out.append((i, m.group(1) or "", m.group(2), _PAREN.sub("", obj).strip().rstrip(".")))
        pos = lower.find("we ", pos + 3)
    return out


def topic(doc: Doc, budget: int = TITLE_MAX) -> tuple[str, int | None]:
    """A title-like phrase for an unnamed (or appositive-less) paper.

    Args:
        doc: the abstract.
        budget: characters available for the phrase.

    Returns:
        ``(phrase, sentence index)``; index None when the first sentence was
        used as the fallback. The phrase is capitalised and fitted to ``budget``.
    """
    for i, adverb, verb, obj in we_clauses(doc):
        if adverb in _SECONDARY:
            continue
        if verb in _CREATE:
            phrase = _ARTICLE.sub("", obj)
        elif re.match(r"(?:how|why|what|whether|when|which)\b", obj):
            phrase = obj
        else:
            phrase = (verb[:-1] if verb.endswith("e") else verb) + "ing " + obj
        phrase = fit(phrase, budget)
        if len(phrase.split()) >= 3 and not _ANAPHORA.search(phrase):
            return _cap(phrase), i
    first = _PAREN.sub("", _LEAD.sub("", doc.sents[0] if doc.sents else "")).strip()
    return _cap(fit(first, budget)), None


def derive_title(doc: Doc, info: NameInfo | None) -> tuple[str, int | None]:
    """A useful title for a paper that has none (see module docstring).

    Args:
        doc: the abstract.
        info: the name found by ``bot.corpus.names.find_name``, or None.

    Returns:
        ``(title, contribution sentence index or None)``; title ≤ 120
        characters, "" only for an empty abstract.
    """
    if info is None:
        return topic(doc)
    prefix = f"{info.name}: "
    budget = TITLE_MAX - len(prefix)
    rest = info.rest.strip()
    lead = rest.lstrip(", ") if rest.startswith(",") else ""
    if re.match(r"(?:a|an|the|one)\s", lead, re.IGNORECASE):
        desc = fit(_ARTICLE.sub("", lead), budget, minimum=30)
        if len(desc.split()) >= 2:
            return prefix + _cap(desc), info.sentence
    if info.long_form:
        tail = " " + re.split(r"[,;.]", rest, maxsplit=1)[0] if not rest.startswith(",") else ""
        return prefix + fit(info.long_form + tail, budget, minimum=20), info.sentence
    phrase, index = topic(doc, budget)
    if not phrase:
        return info.name, info.sentence
    return prefix + phrase, info.sentence if info.sentence is not None else index


def contribution_index(doc: Doc) -> int | None:
    """Index of the first "we propose/study …" sentence (see ``we_clauses``), or None."""
    for i, adverb, _, _ in we_clauses(doc):
        if adverb not in _SECONDARY:
            return i
    return None


def _stem_hits(doc: Doc, stems: tuple[str, ...], counts: list[int]) -> None:
    lower = doc.lower
    for stem in stems:
        pos = lower.find(stem)
        while pos >= 0:
            if pos == 0 or not lower[pos - 1].isalpha():
                counts[doc.index_of(pos)] += 1
            pos = lower.find(stem, pos + len(stem))


def tldr(doc: Doc, contribution: int | None) -> str:
    """One or two extractive sentences: what the paper does plus its main result —
    never the abstract's first sentence, which readers see first anyway (issue 18).

    Args:
        doc: the abstract.
        contribution: index of the sentence introducing the paper's method
            (from ``find_name``/``derive_title``/``contribution_index``), or None.

    Returns:
        ≤ 300 characters; "" for an abstract of one sentence (the abstract is its
        own summary). The lead is the contribution sentence when it is not the
        first; otherwise the first later sentence that speaks of the work itself
        ("We …", "Our …", "This paper …", ``_ABOUT``). The result sentence is the
        one (other than the first and the lead) with most result cues: 2 points
        per result word ("outperforms", "achieves", "reduces" …, at most 2
        counted) plus evidence ("experiments", "show", figures with %/×), at most
        2; it needs 3 points. Neither → the object of a first-sentence
        contribution restated as a phrase ("KAG-Thinker, a human-like reasoning
        framework …"), else the last sentence. When lead and result do not fit
        together, the lead alone, cut at a word with "…" if needed. A leading
        connective or back-referring clause ("To address these limitations,") is
        dropped (``bot.corpus.wordlists``).
    """
    return strip_connective(_tldr(doc, contribution))


#: A later sentence about the work itself: the TL;DR's lead when the first sentence is the contribution.
_ABOUT = re.compile(
    r"\b(?:we|our)\s|\b(?:this|the present) (?:paper|work|study|article|letter|thesis)\b|^here,?\s", re.IGNORECASE
)


def _tldr(doc: Doc, contribution: int | None) -> str:
    sents = doc.sents
    if len(sents) < 2:
        return ""
    lead = contribution if contribution else None
    if lead is None:
        lead = next((i for i in range(1, len(sents)) if _ABOUT.search(sents[i])), None)
    best = _result_sentence(doc, {0, lead})
    chosen = sorted({lead, best} - {None})
    if not chosen:
        restated = _restated(doc) if contribution == 0 else ""
        return restated or _cut(sents[-1])
    text = " ".join(sents[i] for i in chosen)
    if len(text) <= TLDR_MAX:
        return text
    for i in (lead, best):
        if i is not None and len(sents[i]) <= TLDR_MAX:
            return sents[i]
    return _cut(sents[chosen[0]])


def _cut(sentence: str) -> str:
    """``sentence``, or its first ``TLDR_MAX`` characters cut at a word with "…"."""
    if len(sentence) <= TLDR_MAX:
        return sentence
    cut = sentence[: TLDR_MAX - 1]
    return cut[: cut.rfind(" ")].rstrip(",;: ") + "…"


def _result_sentence(doc: Doc, skip: set[int | None]) -> int | None:
    """Index of the sentence with most result cues (≥ 3 points, ``tldr``), not in ``skip``; None when none has."""
    results = [0] * len(doc.sents)
    evidence = [0] * len(doc.sents)
    _stem_hits(doc, _RESULT_STEMS, results)
    _stem_hits(doc, _EVIDENCE_STEMS, evidence)
    for m in _FIGURE.finditer(doc.text):
        evidence[doc.index_of(m.start())] += 1
    best, best_score = None, 0
    for i in range(len(doc.sents)):
        score = 2 * min(2, results[i]) + min(2, evidence[i])
        if i not in skip and score >= best_score and score >= 3:
            best, best_score = i, score
    return best


def _restated(doc: Doc) -> str:
    """The first sentence's "we propose <object>" object as a phrase ("KAG-Thinker, a
    human-like reasoning framework …"), cut at a clause to ≤ 160 characters; "" if it has none."""
    for i, adverb, verb, obj in we_clauses(doc):
        if i == 0 and adverb not in _SECONDARY and verb in _CREATE:
            phrase = fit(re.sub(r"\b(?:novel|new)\s+", "", _ARTICLE.sub("", obj)), 160, minimum=30)
            return _cap(phrase) + "." if len(phrase.split()) >= 3 else ""
    return ""
