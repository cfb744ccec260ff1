"""Committed word lists for derived text (issue 12 point 4): a TL;DR must not
open with a dangling connective, and keywords must be noun phrases.

No tagger and no download: small hand-kept lists, and for single words the
part-of-speech word list shipped in the ``lemminflect`` package (``can_be_noun``). ``CONNECTIVES`` are the
discourse openers that point at text the TL;DR leaves out ("However,",
"Together,", "To this end,"); a leading clause that refers back ("To address
these limitations,", "Motivated by this theory,") is dropped too. ``VERBS``
are base forms that, at the head of a phrase, make it a verb phrase ("let
OPT", "compromise efficiency", "embeds complex secrets"); ``inflections``
adds the -s/-es and -ed/-d forms. Words that are just as often nouns
("answer", "design", "use") are left out on purpose.
"""

from __future__ import annotations

import re

CONNECTIVES = frozenset(
    """however|moreover|furthermore|in addition|additionally|together|
thus|therefore|hence|consequently|as a result|as such|to this end|to that end|in contrast|
by contrast|in particular|specifically|instead|meanwhile|nevertheless|nonetheless|notably|
importantly|crucially|finally|first|second|third|lastly|next|then|here|in this work|
in this paper|in this study|in this article|overall|in summary|in short|in practice|
on the other hand|at the same time|building on this|to address this|to address these|
recently|similarly|likewise|conversely|accordingly|specifically speaking|indeed|in turn""".replace("\n", "").split("|")
)

VERBS = frozenset(
    """let compromise embed extend compress restrict affect adapt solve optimize
optimise manage enhance mitigate boost exploit ensure obtain surpass preserve retain capture
exhibit incur yield require degrade fail generalize generalise converge demonstrate predict
recover construct derive employ utilize utilise apply combine integrate align accelerate
decompose convert replace maximize maximise minimize minimise reveal suggest indicate explain
observe establish attain allocate assign encode remove prevent avoid guide motivate inspire
facilitate tackle overcome alleviate suffer struggle rely depend trigger track outperform
achieve improve reduce enable allow propose introduce present show leverage address remain
emerge arise occur exist tend help reach serve offer maintain interact learn consult stem
evolve scale adjust steer select discover uncover bridge unify exceed unlock overwrite
vary split compute""".split()
)

#: Words that end no noun phrase ("Previous theoretical", "experience guided").
ADJECTIVES = frozenset(
    """previous prior theoretical empirical practical novel existing recent
different various several certain respective overall autoregressive""".split()
)

_LEAD = re.compile(r"^([^,.;:]{1,90}),\s+(?=\S)")
_REFERS_BACK = re.compile(r"\b(?:this|these|such|those|that)\b", re.IGNORECASE)


#: Intransitive verbs: their base form ends no noun phrase ("sub-problems vary").
INTRANSITIVE = frozenset(
    """vary remain emerge arise occur exist tend fail converge evolve
interact differ persist""".split()
)
#: Verbs whose -ing form is mostly a noun in abstracts ("learning rates", "scaling laws").
_ING_NOUNS = frozenset("learn scale track steer serve help stem reach offer select".split())


def inflections(base: str) -> tuple[set[str], set[str], set[str]]:
    """``(third person, past, gerund)`` forms of ``base`` ("embed" → {embeds},
    {embeded, embedded is not built}, {embeding}; good enough for matching)."""
    third = {base + "es"} if base.endswith(("s", "sh", "ch", "x", "z")) else {base + "s"}
    past = {base + "d"} if base.endswith("e") else {base + "ed"}
    ing = {base[:-1] + "ing"} if base.endswith("e") and not base.endswith("ee") else {base + "ing"}
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        third, past = {base[:-1] + "ies"}, {base[:-1] + "ied"}
    return third, past, ing


THIRD_PERSON = frozenset(f for v in VERBS for f in inflections(v)[0])
PAST = frozenset(f for v in VERBS for f in inflections(v)[1])
#: Forms that head a verb phrase at a phrase's start: base, -s, and -ing
#: (except ``_ING_NOUNS``): "extend ZeroUnlearn", "embeds …", "compressing …".
VERB_HEADS = VERBS | THIRD_PERSON | frozenset(f for v in VERBS - _ING_NOUNS for f in inflections(v)[2])


def strip_connective(text: str) -> str:
    """``text`` without a leading connective or back-referring clause, capitalised.

    "To address these limitations, we present UniSparse …" → "We present
    UniSparse …"; "Together, these components form …" → "These components
    form …"; "By analyzing multiple models, we …" is kept (it says something).
    """
    for _ in range(2):  # "However, in this work, we …"
        m = _LEAD.match(text)
        if not m:
            break
        lead, rest = m.group(1).strip().lower(), text[m.end() :]
        # a back-referring clause only before "we …" ("To address this gap, we …"),
        # never a sentence's own subject ("These components form …")
        if lead not in CONNECTIVES and not (
            _REFERS_BACK.search(lead) and re.match(r"(?:we|our)\b", rest, re.IGNORECASE)
        ):
            break
        text = rest[:1].upper() + rest[1:]
    return text


def is_noun_phrase(words: list[str] | tuple[str, ...]) -> bool:
    """False for a phrase headed by a verb ("let OPT", "embeds complex secrets"),
    holding a verb's -s form inside ("depth affects loss"), or ending in a verb's
    -ed form or an adjective ("experience guided", "Previous theoretical").

    Args:
        words: the phrase's words, any case.
    """
    low = [w.lower() for w in words]
    if not low:
        return False
    if low[0] in VERB_HEADS:
        return False
    if any(w in THIRD_PERSON for w in low[1:]):
        return False
    last = low[-1]
    if len(low) > 1 and (last in ADJECTIVES or last in PAST or last in INTRANSITIVE):
        return False
    return True


#: Last parts that make a hyphenated word an adjective ("training-free", "real-world").
ADJ_TAILS = frozenset(
    """free based aware driven art world end scale term shot level grained specific agnostic wise like
    efficient guided oriented centric time""".split()
)
_ADJ_SUFFIXES = ("able", "ible", "al", "ic", "ive", "ous", "ful", "less")


def can_be_noun(word: str) -> bool:
    """True when ``word`` can be a noun, so it may stand alone as a keyword ("claim",
    "runtime", "RetCoP"); False for a word that is only an adjective, verb or adverb
    ("dynamic", "collected", "direct" is a noun nowhere, "publicly").

    Rules, in order: a hyphenated word ending in ``ADJ_TAILS`` is no noun ("QKV-based");
    a word with a digit or a capital after its first letter (an
    acronym, a name) and an "-ing" word of 6+ letters (a gerund) are nouns; a
    hyphenated word is judged by its last part ("token-level" → "level" in
    ``ADJ_TAILS``: no); a word in lemminflect's lemma lists is a noun when one of its
    readings is NOUN (https://lemminflect.readthedocs.io, ``getAllLemmas``); an unknown
    word is no noun when it ends like an adjective (-al, -ic, -ive, -ous …), in "-ed"
    or in "-ly", else a noun.
    """
    w = word.replace("–", "-").replace("—", "-").strip("()[]\"'.,;:-")
    if "-" in w and w.rsplit("-", 1)[1].lower() in ADJ_TAILS:
        return False  # "QKV-based", "training-free"
    if not w or any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:]):
        return True
    low = w.lower()
    if "-" in low:
        tail = low.rsplit("-", 1)[1]
        return tail not in ADJ_TAILS and can_be_noun(tail) if tail else False
    if low.endswith("ing") and len(low) > 5:
        return True
    import lemminflect  # ~1 s to load its lists: only when a keyword is checked

    readings = lemminflect.getAllLemmas(low)
    if readings:
        return "NOUN" in readings or "PROPN" in readings
    return not low.endswith(_ADJ_SUFFIXES + ("ed", "ly"))


def _adjective_too(word: str) -> bool:
    """True for a plain lower-case-able word that lemminflect also reads as an adjective
    ("static", "final", "external", "human"): alone, as a keyword, it reads as one."""
    if any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]) or "-" in word:
        return False
    import lemminflect

    return "ADJ" in lemminflect.getAllLemmas(word.lower())


#: Gerunds that name a field or a technique ("Learning Rate", "Reasoning Traces"): a title
#: phrase may start with them; any other leading gerund is a verb ("Evaluating X" → "X").
GERUND_NOUNS = frozenset(
    """learning training reasoning modeling modelling computing processing sampling scaling
    planning clustering programming understanding engineering matching ranking parsing pooling
    encoding decoding tracking mapping rendering forecasting reading writing thinking editing
    steering prompting routing caching filtering imaging sensing testing pretraining""".split()
)


def without_leading_gerund(words: list[str]) -> list[str]:
    """A title run without a leading verb in "-ing" ("Evaluating Vision-Language Models" →
    "Vision-Language Models"); gerunds in ``GERUND_NOUNS`` and two-word runs stay."""
    first = words[0].lower() if words else ""
    if len(words) >= 3 and first.endswith("ing") and first not in GERUND_NOUNS:
        return words[1:]
    return words


def is_noun_keyword(words: list[str] | tuple[str, ...]) -> bool:
    """True when a keyword (its words, a trailing "(ACRONYM)" left out) is a noun phrase:
    ``is_noun_phrase``, its last word ``can_be_noun``, and its first word not a bare verb
    ("Evaluate Materials", "Learn Nothing").

    Args:
        words: the keyword's words.
    """
    words = [w for w in words if not w.startswith("(")] or list(words)
    if not words or not is_noun_phrase(words) or not can_be_noun(words[-1]):
        return False
    if len(words) == 1 and _adjective_too(words[0]):
        return False
    first = words[0].lower()
    if len(words) > 1 and not first.endswith(("ing", "ed")) and not can_be_noun(first):
        import lemminflect

        return set(lemminflect.getAllLemmas(first)) != {"VERB"}
    return True
