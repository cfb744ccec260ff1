"""The query part of search: text -> plan (prose, parser, compile, plan, word
readings, weighting, spelling, lexicon; ``bot/search/__init__.py`` lists them).
No Whoosh query objects: a plan is plain data."""
