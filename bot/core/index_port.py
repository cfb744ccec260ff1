"""The search index as the service sees it: the methods of
``bot.search.SearchIndex`` that ``bot.service`` calls, as a ``Protocol``
(PEP 544: any object with these methods fits — the tests' list-backed indexes too).

Everything crosses as ``bot.core.models`` types (``Paper``, ``Hit``,
``SearchPage``, ``Meant``, ``QueryError``), never a Whoosh type.
tests/service/test_ports.py checks that the real ``SearchIndex`` has every
method here with the same parameters.

Leaf module: no third-party imports.
"""

from __future__ import annotations

from typing import Iterator, Protocol

from bot.core.models import Examples, Hit, Meant, Paper, SearchPage


class ServiceIndex(Protocol):
    """Search, look-ups and the topic match sets the service needs."""

    def search(self, text: str, *, limit: int = 10, offset: int = 0, correct: bool = True) -> SearchPage:
        """One page of results for a user query.

        Args:
            text: the query (docs/search.md "Query syntax").
            limit: page size.
            offset: results to skip.
            correct: False runs the query as typed (no spelling correction).

        Raises:
            QueryError: the query cannot run (message and example for the user).
        """
        ...

    def related(self, text: str, *, limit: int = 10) -> SearchPage:
        """Papers most like a piece of prose (a message, a pasted abstract).

        Args:
            text: the prose.
            limit: page size.

        Raises:
            QueryError: the text has no words.
        """
        ...

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id, or None."""
        ...

    def resolve(self, text: str) -> tuple[Paper | None, list[Paper]]:
        """What ``show``/``similar`` mean by ``text``: ``(paper, [])``, ``(None, choices)``
        or ``(None, [])`` (docs/interfaces.md "/paper slash command"). Never raises QueryError."""
        ...

    def mentioned(self, text: str) -> Meant:
        """What a mention names by link, id or name, and its words for a search."""
        ...

    def similar(self, paper_id: str, limit: int = 5, offset: int = 0) -> list[Hit]:
        """Papers most like ``paper_id``, best first, never the paper itself ([] for an unknown id).

        Args:
            paper_id: the paper to match.
            limit: most hits.
            offset: hits to skip.
        """
        ...

    def ids(self) -> list[str]:
        """Every paper id, sorted."""
        ...

    def match_all(self, topic: str) -> list[str]:
        """Ids (sorted) of the papers matching all of a topic's words.

        Raises:
            QueryError: the topic cannot run.
        """
        ...

    def papers(self) -> Iterator[Paper]:
        """Every paper, one at a time (for ``bot.service.paper_links.PaperLinks``)."""
        ...

    def examples(self) -> Examples:
        """Method names and topics of this index for help and hints (cached per index)."""
        ...
