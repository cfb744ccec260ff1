"""Full-text search over the corpus (the only package that imports Whoosh).

Public API (docs/search.md):

* ``SearchIndex(index_dir, *, ranking=None)`` — ``search``, ``get``,
  ``by_name``, ``resolve``, ``similar``, ``ids``, ``count``, ``warm``.
* ``build_index(index_dir, papers, *, fingerprint=None, progress=None)``,
  ``add_to_index(index_dir, papers)``, ``has_index(index_dir)``,
  ``stored_fingerprint(index_dir)``.
* ``IndexMissing``, ``IndexBusy``, ``WorkerFailed`` (a build process failed);
  bad queries raise ``bot.models.QueryError``.
* ``Ranking``: every query-time tunable (see ``ranking``).

Modules, in the order a search uses them: ``layout`` (generations, CURRENT,
lock), ``generation`` (an opened generation and its searcher pool), ``query``
(our own parser, no Whoosh), ``compile`` (parsed query -> ``plan``, with
compounds, acronyms, prefixes), ``lexicon`` + ``spelling`` (vocabulary,
corrections), ``scorer`` + ``norms`` (term-at-a-time BM25F over Whoosh's
postings), ``rank`` (top hits, ties, feedback, similar), ``snippets``,
``engine`` (``SearchIndex``); ``schema`` + ``build`` write generations
(``bulk`` writes a build's segments, ``fanout`` runs them on several
processes);
``ranking`` holds the analyzer and the tunables.
"""
from bot.search.build import add_to_index, build_index, has_index, stored_fingerprint
from bot.search.engine import SearchIndex
from bot.search.fanout import WorkerFailed
from bot.search.layout import IndexBusy, IndexMissing
from bot.search.ranking import Ranking

__all__ = ["SearchIndex", "build_index", "add_to_index", "has_index", "stored_fingerprint",
           "IndexMissing", "IndexBusy", "WorkerFailed", "Ranking"]
