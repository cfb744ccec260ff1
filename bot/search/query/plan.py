"""The query plan: what to score, as plain data (built by ``compile``, run by
``scorer``). No Whoosh here.

A ``Plan`` is a list of groups (one per word, phrase or parenthesised
group the user typed), each required or optional, plus exclusions. Scores of
everything that matches add up (BM25F per field), and coordination rewards
documents that match more groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Term:
    """One analysed term in one field; ``boost`` multiplies its BM25 score."""

    field: str
    text: str
    boost: float = 1.0


@dataclass(frozen=True)
class AllOf:
    """Documents matching every part; their scores add up."""

    parts: tuple["Node", ...]


@dataclass(frozen=True)
class AnyOf:
    """Documents matching any part; the scores of the parts that match add up."""

    parts: tuple["Node", ...]


@dataclass(frozen=True)
class Phrase:
    """Terms at consecutive positions of one field (confirmed on the stored text)."""

    field: str
    terms: tuple[str, ...]
    boost: float = 1.0


@dataclass
class Plan:
    """A whole query (or a parenthesised group of one).

    Attributes:
        groups: ``(node, required)`` per word/phrase/group.
        excluded: nodes whose documents are removed.
        weights: one multiplier per group (query-term frequency), or empty
            (all 1.0, repeated groups count once).
    """

    groups: list = field(default_factory=list)
    excluded: list = field(default_factory=list)
    weights: list = field(default_factory=list)


Node = Union[Term, AllOf, AnyOf, Phrase, Plan]


@dataclass
class Compiled:
    """A query ready to score.

    Attributes:
        plan: what to match and score.
        highlight: analysed terms to mark in snippets.
        unknown: positive words found in no field (corrected automatically).
        unusual: positive words whose stem is known but whose spelling is
            rare (``spelling.RARE_DF`` papers: a typo in one abstract) or never
            occurs ("distilation"): a suggestion only, results unchanged.
        chatter: plan groups of single words that say nothing about a paper
            (``word_readings.CHAT_WORDS``, one character); match confidence
            (``rank.Ranked.confident``) leaves them out.
        greeting: a word of ``word_readings.GREETINGS`` was typed and none of
            ``word_readings.REQUESTS``.
        loose: ``plan`` with its optional top-level quoted phrases read as
            their words (``loosen``), or None when it has none.
        phrased: indices of the ``plan.groups`` that ``loose`` reads as words.
    """

    plan: Plan
    highlight: set = field(default_factory=set)
    unknown: list = field(default_factory=list)
    unusual: list = field(default_factory=list)
    chatter: list = field(default_factory=list)
    greeting: bool = False
    loose: Plan | None = None
    phrased: tuple = ()


def alternatives(node: Node | None) -> list:
    """The parts of an ``AnyOf``, ``[node]`` for another node, ``[]`` for None."""
    if node is None:
        return []
    return list(node.parts) if isinstance(node, AnyOf) else [node]


def loosen(plan: Plan, quoted: list) -> tuple[Plan | None, tuple[int, ...]]:
    """``plan`` with each optional top-level group in ``quoted`` (the nodes of
    typed ``"phrases"``) matching any of its phrases' words instead of the
    words in a row, and the indices of those groups; ``(None, ())`` when no
    group changes. Required groups (``+"a b"``, ``AND``), exclusions and
    phrases inside parentheses stay exact (docs/search.md "Phrases").

    Args:
        plan: the compiled plan.
        quoted: the plan nodes of the typed phrases (``Compiler.quoted``).
    """
    groups, phrased = [], []
    for k, (node, must) in enumerate(plan.groups):
        if not must and node in quoted:
            words = _words(node)
            if words != node:
                phrased.append(k)
                node = words
        groups.append((node, must))
    if not phrased:
        return None, ()
    return Plan(groups=groups, excluded=plan.excluded, weights=plan.weights), tuple(phrased)


def _words(node: Node) -> Node:
    """A phrase node as any of its words (each term once, the same boost)."""
    if isinstance(node, Phrase):
        parts = tuple(Term(node.field, t, node.boost) for t in dict.fromkeys(node.terms))
        return AnyOf(parts) if len(parts) > 1 else parts[0]
    if isinstance(node, AnyOf):
        return AnyOf(tuple(_words(p) for p in node.parts))
    return node


def terms_of(node: Node, fields) -> list[str]:
    """The terms ``node`` searches in ``fields`` (a Term's, a Phrase's, and
    those of the parts of any other node), in order, repeats kept.

    Args:
        node: any plan node.
        fields: the fields whose terms count.
    """
    if isinstance(node, Term):
        return [node.text] if node.field in fields else []
    if isinstance(node, Phrase):
        return list(node.terms) if node.field in fields else []
    parts = node.parts if isinstance(node, (AnyOf, AllOf)) else [g for g, _ in node.groups]
    return [t for p in parts for t in terms_of(p, fields)]
