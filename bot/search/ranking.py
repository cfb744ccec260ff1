"""Not the ranking: only the import path pickled into every index,
``bot.search.ranking.PaperAnalyzer`` (ranking is ``bot.search.scoring.rank``).

Why it exists: Whoosh pickles each generation's schema, analyzers included,
and pickle names a class by module and qualified name
(https://docs.python.org/3/library/pickle.html#what-can-be-pickled-and-unpickled).
Every index built so far names this module: the analyzer lived here at
first, and since it moved (now ``bot.search.index.analysis``)
``PaperAnalyzer.__module__`` still says ``bot.search.ranking``, so new indexes
load on older code and old ones on this code. Keep this module and this name;
``tests/search/index/test_pickled_paths.py`` opens an index built before the
search package was split (docs/search.md "Whoosh internals: one module, one
version guard").
"""

from bot.search.index.analysis import PaperAnalyzer

__all__ = ["PaperAnalyzer"]
