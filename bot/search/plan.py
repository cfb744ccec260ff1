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
    """

    groups: list = field(default_factory=list)
    excluded: list = field(default_factory=list)


Node = Union[Term, AllOf, AnyOf, Phrase, Plan]


def alternatives(node: Node | None) -> list:
    """The parts of an ``AnyOf``, ``[node]`` for another node, ``[]`` for None."""
    if node is None:
        return []
    return list(node.parts) if isinstance(node, AnyOf) else [node]
