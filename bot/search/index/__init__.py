"""The index part of search: writing and opening generations (layout,
generation, schema, analysis, builds, bulk writers, fan-out, Whoosh
internals; ``bot/search/__init__.py`` lists them)."""
