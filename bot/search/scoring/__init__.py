"""The scoring part of search: plan -> ranked hits (the postings and dense
scorers, what they share, norms, phrases, ranking, hits, similar papers, the
knobs; ``bot/search/__init__.py`` lists them)."""
