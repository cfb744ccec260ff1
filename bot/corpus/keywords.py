"""Key phrases of an abstract: acronym definitions, then frequent noun-like phrases.

Pure Python (no models). Candidate phrases are the runs of words between
stop-words and punctuation, as in RAKE (Rose et al., "Automatic keyword
extraction from individual documents", 2010), scored by how often the phrase
and its words occur; acronym definitions ("Mixture-of-Experts (MoE)") come
first because they name the paper's core concepts. Written for speed (one
tokenising regex, counting in ``collections.Counter``): it runs on every
abstract of a 100,000-paper build.
"""

from __future__ import annotations

import re
from collections import Counter

from bot.core.acronyms import acronym_spans
from bot.corpus.wordlists import is_noun_keyword, is_noun_phrase, without_leading_gerund

_STOP = frozenset(
    """a about above across after again against all almost along also although always
among an and another any are around as at be because been before being below between both but by
can cannot could did do does doing done down during each either else enough especially even ever
every few for from further had has have having here how however if in into is it its itself just
least less like made make makes making many may might more most much must near nearly neither no
nor not now of off often on once one only onto or other others otherwise our ours out over own per
perhaps rather same several shall should since so some such than that the their them themselves
then there therefore these they this those though through thus to together too toward towards
under until up upon us very via was we were what whatever when where whereas whether which while
who whom whose why will with within without would yet you your first second third finally
propose proposes proposed introduce introduces introduced present presents presented show shows
shown showed demonstrate demonstrates demonstrated achieve achieves achieved achieving find finds
found use uses used using based provide provides provided enable enables enabling allow allows
allowing lead leads leading improve improves improved improving outperform outperforms
outperforming study studies studied investigate investigates address addresses remain remains
existing novel new recent recently key main various different diverse several significant
significantly substantially effective effectively efficient efficiently strong stronger well
extensive experiments experiment results result paper work approach approaches method methods
framework new simple better best state art
yields yielding further able across consistently empirically theoretically moreover additionally
specifically particular particularly respectively instead compared comparable given known
widely commonly typically often still thereby directly only e.g i.e etc vs versus toward""".split()
)
_GENERIC_ACRONYMS = frozenset(
    """llm llms lm lms rl sft nlp ai ml dl dnn dnns sota gpu gpus cpu
    api apis cnn cnns rnn rnns mlp nn nns""".split()
)
_GENERIC_WORDS = frozenset(
    """training reasoning generation tokens token data learning language
    inference accuracy evaluation benchmark benchmarks dataset datasets optimization agent agents
    reward rewards policy distribution information computation compute scaling update updates answer
    answers request response desired solve class standard steps step structural context
    applications tools question questions labels label maintaining quality efficiency models model
    performance problem problems analysis theory settings setting large small high low identify
    consider perform obtain require requires success approach paper study system systems""".split()
)
_GENERIC_PHRASES = frozenset(
    """large language models|large language model|language models|language model
    |reinforcement learning|supervised fine-tuning|machine learning|deep learning|neural networks
    |neural network|state-of-the-art|real-world""".replace("\n    ", "").split("|")
)
_TOKEN = re.compile(r"[A-Za-z0-9][\w'’+-]*|[^\w\s]")
_LONG_WORD = re.compile(r"[a-z][a-z0-9-]{3,}[a-z0-9]")
_MODALS = frozenset("we can may must will could should would might".split())
_VERB_CONTEXT = frozenset("by for of in when while after before without via through".split())
_VERB_TAILS = frozenset(
    """interact interacts learn learns consult consults stem stems affect affects
    scale scales serve serves offer offers maintain maintains facilitate facilitates estimated
    specified assessing ranging confined beyond evolve evolves help helps reach reaches emerge
    emerges arise arises occur occurs exist exists remain remains fail fails tend tends depend
    depends""".split()
)


def _runs(toks: list[str], low: list[str]) -> list[tuple[int, int]]:
    """Runs of content words as (start, end) token indices, with cheap verb trimming.

    Content words are not stop-words, punctuation, numbers or "-ly" adverbs.
    No tagger, so verbs are trimmed by context: the first word of a run goes
    after "we" or a modal verb, after "to" in runs of 3+ words ("to steer later
    tokens"), or when it ends in "ing" after a preposition or punctuation
    ("by allocating memory space" → "memory space"); "Name verbs …"
    ("MemOCR maintains") is cut after the name; common verbs at a run's end
    are dropped ("sparsity interacts" → "sparsity").
    """
    stop = _STOP
    content = [
        w[:1].isalnum() and w not in stop and len(w) > 1 and not w.endswith("ly") and not w.isdigit() for w in low
    ]
    mask = "".join(".x"[c] for c in content)
    out: list[tuple[int, int]] = []
    for m in re.finditer("x+", mask):
        start, end = m.span()
        while end - start >= 2 and low[end - 1] in _VERB_TAILS:
            end -= 1
        if end - start >= 2 and toks[start].islower():
            before = low[start - 1] if start else ""
            if (
                before in _MODALS
                or (before == "to" and end - start >= 3)
                or (low[start].endswith("ing") and (not before[:1].isalnum() or before in _VERB_CONTEXT))
            ):
                start += 1
        if (
            end - start >= 2
            and not toks[start].islower()
            and toks[start + 1].islower()
            and low[start + 1].endswith("s")
            and not low[start + 1].endswith("ss")
        ):
            out.append((start, start + 1))
            start += 2
        if end > start:
            out.append((start, end))
    return out


def _norm(phrase: str) -> str:
    return phrase.lower().replace("-", " ")


def _surface(key: tuple[str, ...], runs: list[tuple[int, int]], toks: list[str], low: list[str]) -> str:
    n = len(key)
    for start, end in runs:
        for i in range(start, end - n + 1):
            if tuple(low[i : i + n]) == key:
                return " ".join(toks[i : i + n])
    return " ".join(key)


def keywords(text: str, *, name: str | None = None, limit: int = 6) -> tuple[str, ...]:
    """3–6 key phrases for an abstract, most telling first.

    Args:
        text: clean abstract text.
        name: the paper's method name, left out of the phrases (shown apart).
        limit: most phrases to return (default 6).

    Returns:
        Up to ``limit`` phrases (at least 3 unless the text is very short),
        e.g. ``("Mixture-of-Experts (MoE)", "routing decisions", …)``.
        Ranking: acronym definitions used again in the text (at most three;
        generic ones such as LLM or RL left out); then, by score, phrases of
        two or three words used at least twice (count × words), single words
        used at least three times (0.8 × count, generic ones left out) and
        unrepeated runs of two or three words built on repeated words. A
        phrase that is part of a chosen one, or contains one, is skipped, and
        at most two phrases share a word.
    """
    toks = _TOKEN.findall(text)
    low = " ".join(toks).lower().split(" ") if toks else []  # "".split(" ") is [""]
    picks = _Picks(limit, name, per_word=2)  # at most two phrases around the same word ("reasoning …")
    every = Counter(low)
    ranked = []
    for order, (token, long_form) in enumerate(acronym_spans(text)):
        lowered = token.lower()
        if lowered not in _GENERIC_ACRONYMS and _norm(token) not in picks.skip and every[lowered] >= 2:
            ranked.append((-every[lowered], order, token, long_form))
    picks.take_acronyms(sorted(ranked)[:3])
    runs = _runs(toks, low)
    for _, _, key in _scored_phrases(runs, low):
        if picks.full:
            break
        lowered = " ".join(key).replace("-", " ")
        if is_noun_phrase(key) and picks.take(" ".join(key), lowered):  # cheap check first, surface form only when kept
            picks.chosen[-1] = _surface(key, runs, toks, low)
    if len(picks.chosen) < 3:
        for start, end in sorted(runs, key=lambda r: r[0] - r[1]):
            if 2 <= end - start <= 4 and is_noun_phrase(toks[start:end]):
                picks.take(" ".join(toks[start:end]))
    return tuple(picks.chosen)


class _Picks:
    """The phrases chosen so far: at most ``limit``, never the method ``name``, each a
    noun phrase (``wordlists.is_noun_keyword``: no lone adjective or verb, issue 18), none
    inside another (or containing one), and with ``per_word``, at most that many
    phrases sharing a word."""

    def __init__(self, limit: int, name: str | None, per_word: int | None = None) -> None:
        self.limit, self.per_word = limit, per_word
        self.skip = {_norm(name)} if name else set()
        self.chosen: list[str] = []
        self.keys: list[str] = []

    @property
    def full(self) -> bool:
        return len(self.chosen) >= self.limit

    def take(self, phrase: str, key: str | None = None) -> bool:
        """Choose ``phrase`` (compared as ``key``, default its ``_norm``) unless a rule forbids it."""
        key = key if key is not None else _norm(phrase)
        if self.full or key in self.skip or any(key in k or k in key for k in self.keys):
            return False
        if self.per_word is not None and any(
            sum(word in k.split() for k in self.keys) >= self.per_word for word in key.split()
        ):
            return False
        if not is_noun_keyword(phrase.split()):
            return False
        self.chosen.append(phrase)
        self.keys.append(key)
        return True

    def take_acronyms(self, ranked: list[tuple]) -> None:
        """Choose "long form (TOKEN)" for each ``(…, token, long_form)``; the bare token is
        then taken too, so no later phrase repeats it."""
        for *_, token, long_form in ranked:
            self.take(f"{long_form} ({token})")
            self.keys.append(_norm(token))


def _scored_phrases(runs: list[tuple[int, int]], low: list[str]) -> list[tuple[float, int, tuple[str, ...]]]:
    """Candidate phrases (word tuples) of the runs, best first: phrases of two or three
    words used at least twice (count × words), single words used at least three times
    (0.8 × count, generic ones left out) and unrepeated runs of two or three words
    built on repeated words."""
    flat: list[str] = []
    pairs: list[tuple[str, ...]] = []
    for start, end in runs:
        part = low[start:end]
        flat.extend(part)
        if end - start >= 2:
            pairs.extend(zip(part, part[1:]))
            if end - start >= 3:
                pairs.extend(zip(part, part[1:], part[2:]))
    words = Counter(flat)
    grams = Counter(pairs)
    scored: list[tuple[float, int, tuple[str, ...]]] = []
    for rank, (key, count) in enumerate(grams.items()):
        if count >= 2 and " ".join(key) not in _GENERIC_PHRASES:
            scored.append((-float(count * len(key)), rank, key))
    for rank, (word, count) in enumerate(words.items()):
        if count >= 3 and len(word) >= 5 and word not in _GENERIC_WORDS:
            scored.append((-0.8 * count, rank, (word,)))
    for rank, (start, end) in enumerate(runs):
        if 2 <= end - start <= 3:
            key = tuple(low[start:end])
            if (grams[key] if len(key) > 1 else 0) <= 1 and " ".join(key) not in _GENERIC_PHRASES:
                best = max(words[w] for w in key)
                if best >= 2:
                    scored.append((-(0.8 * best + 0.3 * (len(key) - 1)), rank, key))
    scored.sort()
    return scored


_TITLE_SPLIT = re.compile(r"[:;,.?!()\[\]{}/|]|\s[-–—]\s|—")


def _title_phrases(run: list[str], lower: str) -> list[tuple[float, int, str]]:
    """Scored phrases from one stop-word-free run of title words.

    Trailing "-ed" words and a leading verb in "-ing" are dropped; a run of up to 5 words is then one
    phrase, a longer one gives its first and last three words. A single word
    must occur twice in the abstract.
    """
    while len(run) > 1 and run[-1].endswith("ed"):
        run = run[:-1]  # "… white matter assessed" (a participle ends the phrase)
    run = without_leading_gerund(run)  # "Evaluating Vision-Language Models"
    pieces = [run] if len(run) <= 5 else [run[:3], run[-3:]]
    out = []
    for i, words in enumerate(pieces):
        phrase = " ".join(words)
        uses = lower.count(phrase.lower())
        if len(words) == 1 and (len(phrase) < 4 or phrase.lower() in _GENERIC_WORDS or uses < 2):
            continue
        out.append((-(uses + 0.5 * len(words)), i, phrase))
    return out


def title_keywords(title: str, text: str, *, name: str | None = None, limit: int = 6) -> tuple[str, ...]:
    """Cheap key phrases for a paper whose source gives a title (large corpora).

    Args:
        title: the paper's title (clean text).
        text: the clean abstract.
        name: the method name, left out (shown apart).
        limit: most phrases to return.

    Returns:
        Acronym definitions used again in the abstract (as in ``keywords``),
        then the title's stop-word-free runs (see ``_title_phrases``), most
        frequent in the abstract first; topped up with the abstract's most
        frequent content words when fewer than 3; noun phrases only (``_Picks``). A fraction of the cost of
        ``keywords``.
    """
    picks = _Picks(limit, name)
    lower = text.lower()
    if "(" in text:
        ranked = []
        for order, (token, long_form) in enumerate(acronym_spans(text, min_uses=2)):
            uses = text.count(token)
            if token.lower() not in _GENERIC_ACRONYMS and uses >= 2:
                ranked.append((-uses, order, token, long_form))
        picks.take_acronyms(sorted(ranked)[:3])
    for _, _, phrase in sorted(_title_candidates(title, lower)):
        picks.take(phrase)
    if len(picks.chosen) < 3:
        counts = Counter(_LONG_WORD.findall(lower))
        for word, count in counts.most_common(40):
            if count >= 2 and len(word) >= 5 and word not in _STOP and word not in _GENERIC_WORDS:
                at = lower.find(word)
                picks.take(text[at : at + len(word)] if len(lower) == len(text) else word)
    return tuple(picks.chosen)


def _title_candidates(title: str, lower: str) -> list[tuple[float, int, str]]:
    """Scored phrases (``_title_phrases``) of every stop-word-free run of the title's words."""
    candidates = []
    for chunk in _TITLE_SPLIT.split(title):
        words = chunk.replace('"', " ").replace("“", " ").replace("”", " ").split()
        content = [w[0].isalnum() and w.lower() not in _STOP for w in words]
        start = None
        for i, keep in enumerate(content + [False]):
            if keep and start is None:
                start = i
            elif not keep and start is not None:
                candidates.extend(_title_phrases(words[start:i], lower))
                start = None
    return candidates
