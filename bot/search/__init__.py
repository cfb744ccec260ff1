"""Full-text search over the corpus (the only package that imports Whoosh).

Public API (docs/search.md):

* ``SearchIndex(index_dir, *, ranking=None)`` — ``search``, ``get``,
  ``by_name``, ``resolve``, ``similar``, ``ids``, ``count``, ``warm``.
* ``build_index(index_dir, papers, *, fingerprint=None, progress=None)``,
  ``add_to_index(index_dir, papers)``, ``has_index(index_dir)``,
  ``opens(index_dir)`` (this code can open it), ``stored_fingerprint(index_dir)``.
* ``take_turn(attempt, wait_s, on_wait)``: retry a writer while another
  holds the index's lock (``WAIT_POLL_S`` between tries).
* ``IndexMissing``, ``IndexBusy``, ``WorkerFailed`` (a build process failed);
  bad queries raise ``bot.core.models.QueryError``.
* ``Ranking``: every query-time tunable (see ``ranking``).

Modules, in the order a search uses them (docs/search.md tells the story):
``layout`` (generations, CURRENT, lock), ``generation`` (an opened generation
and its searcher pool), ``query`` (our own parser, no Whoosh), ``compile``
(parsed query -> ``plan``, with compounds, acronyms, prefixes), ``lexicon`` +
``spelling`` (vocabulary, corrections), ``results`` (rank, order ties by id,
turn documents into hits) over ``scorer`` + ``norms`` + ``phrases``
(term-at-a-time BM25F over Whoosh's postings), ``snippets``, ``confidence``
(is the best hit the paper a mention meant), ``similar`` (a paper's key
terms), ``engine`` (``SearchIndex``). ``schema`` + ``build`` write
generations (``bulk`` writes a build's segments, ``fanout`` runs them on
several processes). ``analysis`` is the text analyzer (index-time),
``tuning`` the query-time knobs; ``ranking`` only keeps the analyzer's
pickled import path. ``internals`` is the one module that touches Whoosh's
private API, behind a version guard.
"""

from bot.search.build import add_to_index, build_index, has_index, opens, stored_fingerprint
from bot.search.engine import SearchIndex
from bot.search.fanout import WorkerFailed
from bot.search.layout import WAIT_POLL_S, IndexBusy, IndexMissing, take_turn
from bot.search.tuning import Ranking

__all__ = [
    "SearchIndex",
    "build_index",
    "add_to_index",
    "has_index",
    "opens",
    "stored_fingerprint",
    "IndexMissing",
    "IndexBusy",
    "WorkerFailed",
    "Ranking",
    "take_turn",
    "WAIT_POLL_S",
]
