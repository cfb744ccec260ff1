"""Full-text search over the corpus (the only package that imports Whoosh).

Public API (docs/search.md):

* ``SearchIndex(index_dir, *, ranking=None)`` — ``search``, ``get``,
  ``by_name``, ``resolve``, ``similar``, ``ids``, ``examples``, ``count``, ``warm``.
* ``build_index(index_dir, papers, *, fingerprint=None, progress=None)``,
  ``add_to_index(index_dir, papers)``, ``has_index(index_dir)``,
  ``opens(index_dir)`` (this code can open it), ``stored_fingerprint(index_dir)``.
* ``take_turn(attempt, wait_s, on_wait)``: retry a writer while another
  holds the index's lock (``WAIT_POLL_S`` between tries).
* ``IndexMissing``, ``IndexBusy``, ``WorkerFailed`` (a build process failed);
  bad queries raise ``bot.core.models.QueryError``.
* ``Ranking``: every query-time tunable (see ``scoring.knobs``).

Modules, along the path of a query (docs/search.md "The path of one query"):

* ``engine``: ``SearchIndex``, the read side (search, lookups, similar papers).
* ``resolving``: which paper a text means (ids, links, names); the papers a
  search's text links to, put first.
* ``matchset``: topic match sets (every paper with all of a topic's words).
* ``examples``: method names and topics of the index that help and hints suggest (issue 18).
* ``vectors``: every paper's term counts, the rows ``bot.recommend`` learns from (issue 22).
* ``ranking``: not the ranking: only the analyzer's pickled import path.

The query part, text -> plan:

* ``query.prose``: the cut, Slack markup, which quotes and brackets are syntax.
* ``query.parser``: our own query grammar (no Whoosh) -> ``ParsedQuery``.
* ``query.compile``: a parsed query -> a ``Plan``, with compounds, acronyms, prefixes.
* ``query.plan``: the plan, plain data, and its rewrites.
* ``query.word_readings``: how a typed word is read (English, chat, a name,
  an acronym, a paper's name).
* ``query.weighting``: query-term frequency and the bound on a long query.
* ``query.spelling``: corrections and suggestions.
* ``query.fit``: how well a correction fits the rest of the query (pairs, co-occurrence).
* ``query.lexicon``: a generation's vocabulary, compounds and acronyms.

The scoring part, plan -> ranked hits:

* ``scoring.postings``: the postings scorer (term-at-a-time BM25F over
  Whoosh's postings).
* ``scoring.impacts``: the impact arrays and the dense scorer over them.
* ``scoring.shared``: what both scorers share (the search's state, BM25F's
  pieces, ``DocScores``: the one type of their results).
* ``scoring.norms``: BM25 length norms and deleted documents.
* ``scoring.phrases``: phrases confirmed on the stored text.
* ``scoring.rank``: the best documents, ties by id, links first, confidence, notes.
* ``scoring.hits``: ``Hit`` objects, with snippets.
* ``scoring.similar``: a paper's key terms as a plan (similar papers, feedback).
* ``scoring.knobs``: ``Ranking``, every query-time knob.

The index part, writing and opening generations:

* ``index.layout``: the container directory: generations, CURRENT, the lock.
* ``index.generation``: an opened generation and its searcher pool.
* ``index.page_cache``: a generation's files read ahead into the page cache (``warm``).
* ``index.schema``: the Whoosh schema; ``Paper`` <-> indexed document.
* ``index.analysis``: the text analyzer (index-time rules).
* ``index.build``: full builds, incremental adds, the stored fingerprint.
* ``index.bulk_documents``: a full build's per-token analysis, chunk by chunk.
* ``index.bulk_segment``: one Whoosh segment written in bulk.
* ``index.fanout``: a build's chunks on several processes.
* ``index.whoosh_internals``: every use of Whoosh's private API, behind a
  version guard.
"""

from bot.search.engine import SearchIndex
from bot.search.index.build import add_to_index, build_index, has_index, opens, stored_fingerprint
from bot.search.index.fanout import WorkerFailed
from bot.search.index.layout import WAIT_POLL_S, IndexBusy, IndexMissing, take_turn
from bot.search.scoring.knobs import Ranking

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
