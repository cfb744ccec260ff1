"""A paper's own link or source id in a query: that paper comes first.

Recognised (docs/search.md, "Query syntax"):

* new-style arXiv ids, bare or in a link: ``2401.12345``, ``2401.12345v2``,
  ``https://arxiv.org/abs/2401.12345v2``, ``…/pdf/2401.12345.pdf``
  (format: https://info.arxiv.org/help/arxiv_identifier.html);
* OpenReview links: ``https://openreview.net/forum?id=<id>`` (also ``pdf?id=``).

Each is looked up as a source id (case-folded ``source_key``), with and
without an arXiv version suffix. Plain numbers are never taken as ids.
"""

from __future__ import annotations

import re

from whoosh import query as Q

_ARXIV_RE = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5})(v\d+)?(?![\d])")
_OPENREVIEW_RE = re.compile(r"openreview\.net/(?:forum|pdf)\?(?:[^\s>|]*&)?id=([\w-]+)", re.I)
#: Most linked papers pinned from one text.
MAX_LINKED = 5


def source_ids(text: str) -> list[str]:
    """Candidate source ids in ``text``, in order, without repeats."""
    found: list[str] = []
    for m in _ARXIV_RE.finditer(text):
        found += [m.group(1) + (m.group(2) or ""), m.group(1)]
    found += [m.group(1) for m in _OPENREVIEW_RE.finditer(text)]
    return list(dict.fromkeys(found))


def linked_docs(searcher, text: str) -> list[int]:
    """Docnums of the papers whose source id ``text`` names (at most
    ``MAX_LINKED``), in the order the text names them."""
    if "." not in text and "openreview" not in text.lower():
        return []
    docs: list[int] = []
    for sid in source_ids(text):
        for d in searcher.docs_for_query(Q.Term("source_key", sid.casefold())):
            if d not in docs:
                docs.append(d)
        if len(docs) >= MAX_LINKED:
            break
    return docs[:MAX_LINKED]
