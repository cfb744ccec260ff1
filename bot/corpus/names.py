"""The method or system a paper introduces ("KIStego", "AAD-1", "UniSparse").

Heuristics, checked against every seed abstract, in this order:

0. For sources with a title: "X: rest of title" with X name-like.
1. A bold name in the raw text (``\\textbf{AAD-1}``, ``**ACTG-ARL**``) — authors
   bold what they name.
2. The first sentence that introduces something by name: "we propose /
   introduce / present / design … X", "… a framework called X", "this paper
   introduces X", "introducing X". X is either "Long Form (ACR)" (→ ACR), a
   name-like token (capitals inside or digits: KIStego, AAD-1, MCP-Persona),
   or a capitalised word or Title Case phrase followed by ", a/an/the …"
   (Selective Deferred Routing, a paradigm …).

Generic acronyms (LLM, RL, SFT, …) and compounds like "LLM-based" are never names.
Records that come with a title (large JSON Lines/CSV corpora) use rule 0 only
(``title_name``), which is cheap; abstracts without titles use them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.corpus.sentences import sentences

_GENERIC = frozenset(
    """llm llms lm lms rl sft dp ai ml nlp gpu gpus cpu api apis moe vlm vlms lmm lmms
    mllm mllms sota cnn cnns rnn rnns gnn gnns mlp kv qa ntk we our it this these transformer
    transformers bert gpt nn dnn dnns ood iid rlhf dpo ppo grpo lora""".split()
)
_COMPOUND_TAILS = frozenset(
    """based style like aware free guided driven level specific wise agnostic
    oriented centric augmented enhanced powered only scale sized""".split()
)
_SUBJECT = (
    r"(?:\b(?:[Ww]e|paper|work|study|article|report)"
    r"(?:\s+(?:also|first|further|then|additionally|finally|now|thus|hence|therefore|here))?"
    r"\s+(?:propose|introduce|present|develop|design|build|construct|devise|create|release"
    r"|term|call|name|dub|contribute|offer)[sd]?"
    r"|\b(?:proposing|introducing|presenting|developing|designing|building))"
)
_INTRO = re.compile(
    _SUBJECT + r"\s+(?:(?:a|an|the|our)\s+(?:[\w-]+\s+){0,6}?"
    r"(?:called|named|dubbed|termed|coined)\s+)?"
)
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed|coined)\s+")
_LONG_ACR = re.compile(
    r"((?:[A-Z][\w'’-]*)(?:\s+(?:[A-Z0-9][\w'’-]*|and|of|for|the|with|in|to|via|on|"
    r"from|by|a))*)\s*\(([^()\s]{2,15})\)"
)
_TOKEN = re.compile(r"([A-Za-z0-9][\w.+-]*[\w+]|[A-Z])")
_TITLE_CASE = re.compile(r"((?:[A-Z][\w'’-]*\s+){1,4}[A-Z][\w'’-]*)(?=,\s+(?:a|an|the)\s)")
_APPOSITIVE = re.compile(r",\s+(?:a|an|the|one)\s")
_BOLD = re.compile(r"\\textbf\s*\{([^{}]{2,40})\}|\*\*([^*\s][^*]{0,38}[^*\s])\*\*")
_TITLE_NAME = re.compile(r"^\s*([A-Za-z0-9][\w.+-]{1,39})\s*:\s+\S")


@dataclass(frozen=True)
class NameInfo:
    """Where and how a name was found.

    Attributes:
        name: the name, e.g. "UMEM".
        sentence: index (in ``sentences(text)``) of the introducing sentence,
            or None when the name came from the title only.
        long_form: "Unified Memory Extraction and Management" when written as
            "Long Form (ACR)", else None.
        rest: the sentence text after the name (and its long form), e.g.
            ", a self-evolving agent framework that …" — used for titles.
    """

    name: str
    sentence: int | None
    long_form: str | None = None
    rest: str = ""


def is_namey(token: str, *, strict: bool = True) -> bool:
    """True when ``token`` looks like a method name, not a word or generic acronym.

    Args:
        token: one token, e.g. "KIStego", "AAD-1", "LLM-based".
        strict: require two capitals, or a capital and a digit ("ToaSt",
            "AAD-1"); when False one leading capital is enough ("Aurora").

    Returns:
        False for generic acronyms (LLM, RL …), for "X-based"-style compounds
        and for tokens shorter than 2 or longer than 40 characters.
    """
    if not 2 <= len(token) <= 40 or token.lower() in _GENERIC or not token[0].isalnum():
        return False
    parts = token.split("-")
    if len(parts) > 1 and (
        parts[-1].lower() in _COMPOUND_TAILS or parts[0].lower() in _GENERIC and parts[-1].islower()
    ):
        return False
    uppers = sum(c.isupper() for c in token)
    if uppers >= 2 or (uppers and any(c.isdigit() for c in token)):
        return True
    return not strict and token[0].isupper() and token[1:].replace("-", "").isalpha()


def _after_intro(sentence: str, start: int, index: int) -> NameInfo | None:
    """The name right at ``sentence[start:]``, if there is one."""
    m = _LONG_ACR.match(sentence, start)
    if m and is_namey(m.group(2)) and len(m.group(1).split()) <= 8:
        return NameInfo(m.group(2), index, m.group(1), sentence[m.end() :])
    m = _TITLE_CASE.match(sentence, start)
    if m and len(m.group(1).split()) >= 2:
        phrase = m.group(1)
        return NameInfo(phrase, index, None, sentence[m.end() :])
    m = _TOKEN.match(sentence, start)
    if m is None:
        return None
    token = m.group(1).rstrip(".")
    rest = sentence[m.start() + len(token) :]
    appositive = bool(_APPOSITIVE.match(rest)) or rest.startswith(" (")
    if is_namey(token) or (appositive and is_namey(token, strict=False)):
        return NameInfo(token, index, None, rest)
    return None


def find_name(
    text: str, raw: str | None = None, title: str | None = None, sents: list[str] | None = None
) -> NameInfo | None:
    """The method/system the abstract introduces, if any (see module docstring).

    Args:
        text: clean abstract text.
        raw: the raw abstract (for bold markers), or None.
        title: the source's title, or None.
        sents: ``sentences(text)`` when the caller has them already.

    Returns:
        ``NameInfo`` or None. Examples over the seeds: "We present
        \\\\textbf{AAD-1}, an …" → AAD-1; "we propose Unified Memory
        Extraction and Management (UMEM), a …" → UMEM.
    """
    sents = sentences(text) if sents is None else sents
    if title:
        info = title_name(title)
        if info:
            where = next((i for i, s in enumerate(sents) if info.name in s), None)
            return NameInfo(info.name, where)
    if raw and ("textbf" in raw or "**" in raw):
        info = _bold_name(raw, sents)
        if info:
            return info
    return _introduced_name(sents)


def _bold_name(raw: str, sents: list[str]) -> NameInfo | None:
    """The first name-like single word in bold in ``raw`` that one of ``sents`` holds."""
    for m in _BOLD.finditer(raw):
        token = (m.group(1) or m.group(2)).strip()
        if " " not in token and is_namey(token):
            for i, sentence in enumerate(sents):
                pos = sentence.find(token)
                if pos >= 0:
                    return NameInfo(token, i, None, sentence[pos + len(token) :])
    return None


def _introduced_name(sents: list[str]) -> NameInfo | None:
    """The first name introduced in a sentence ("we propose X", "a method called X")."""
    for i, sentence in enumerate(sents):
        for m in _INTRO.finditer(sentence):
            info = _after_intro(sentence, m.end(), i)
            if info:
                return info
        if "called" in sentence or "named" in sentence or "dubbed" in sentence:
            for m in _CALLED.finditer(sentence):
                info = _after_intro(sentence, m.end(), i)
                if info and is_namey(info.name):
                    return info
    return None


def title_name(title: str) -> NameInfo | None:
    """The name in a title of the form "X: rest" with X name-like ("KIStego: …"), else None."""
    m = _TITLE_NAME.match(title)
    if m and is_namey(m.group(1)):
        return NameInfo(m.group(1), None)
    return None
