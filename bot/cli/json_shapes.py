"""The ``paperbot search --json`` shape — a contract outside scripts rely on
(docs/interfaces.md "paperbot search --json"). Keep keys and types stable.
"""

from __future__ import annotations

from bot.core.models import Hit, SearchPage


def hit_json(hit: Hit) -> dict:
    """One result: ``{"id", "source_id", "title", "title_derived", "name", "authors",
    "venue", "url", "score", "snippet", "abstract", "code_urls"}``."""
    p = hit.paper
    return {
        "id": p.id,
        "source_id": p.source_id,
        "title": p.title,
        "title_derived": bool(p.title_derived),
        "name": p.name,
        "authors": list(p.authors),
        "venue": p.venue,
        "url": p.url,
        "score": round(float(hit.score), 6),
        "snippet": hit.snippet,
        "abstract": p.abstract,
        "code_urls": list(p.code_urls),
    }


def page_json(page: SearchPage) -> dict:
    """``{"query": str, "total": int, "all_words": int|None, "took_ms": float,
    "suggestion": str|None, "corrected_query": str|None, "results": [hit_json…]}``
    (docs/interfaces.md "paperbot search --json")."""
    return {
        "query": page.query,
        "total": int(page.total),
        "all_words": page.all_words,
        "took_ms": round(float(page.took_ms), 3),
        "suggestion": page.suggestion,
        "corrected_query": page.corrected_query,
        "results": [hit_json(h) for h in page.hits],
    }


def error_json(query: str, message: str) -> dict:
    """A query that cannot run: ``{"query": str, "error": str}``.

    Args:
        query: the query as given.
        message: why it cannot run.
    """
    return {"query": query, "error": message}
