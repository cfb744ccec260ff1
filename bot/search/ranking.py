"""The import path pickled into every index: ``bot.search.ranking.PaperAnalyzer``.

Whoosh pickles each generation's schema, analyzers included, by class path.
Indexes built before the analyzer moved to ``bot.search.analysis`` name this
module, and ``PaperAnalyzer.__module__`` still says so, so new indexes load on
older code and old indexes on this code. Keep this module and this name
(docs/search.md "Whoosh internals: one module, one version guard").
"""

from bot.search.analysis import PaperAnalyzer

__all__ = ["PaperAnalyzer"]
