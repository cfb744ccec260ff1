"""Hits: each ranked document as a ``Hit`` — its ``Paper``, its score and a
snippet, ~200 characters of its abstract around the matched words
(``to_hits``, the one place that builds hits).

A snippet is plain text (NOT mrkdwn-escaped: rendering escapes) with each
matched word wrapped in ``*…*``. A ``*`` already in the text ("A*") is shown
as ``∗`` (U+2217) so it cannot be mistaken for a marker.
"""

from __future__ import annotations

from bot.core.models import Hit
from bot.search.index.analysis import WORD_RE
from bot.search.index.schema import paper_from_json
from bot.search.query.plan import Compiled
from bot.search.scoring.rank import Ranked

#: Target snippet length in characters (markers and "…" not counted).
WIDTH = 200
#: Context kept before the first match of the chosen window.
LEAD = 40
STAR = "\u2217"
_CLEAN = str.maketrans({"*": STAR})
#: Only this much of a text is scanned for matches: snippet cost stays bounded
#: whatever a source puts in an abstract (a 460 KB abstract took 42 s before).
SCAN_MAX = 20_000
#: At most this many match spans are considered when choosing the window.
SPANS_MAX = 400


def to_hits(searcher, ranked: Ranked, compiled: Compiled, start: int, stop: int) -> list[Hit]:
    """``Hit`` objects of ``ranked.scored[start:stop]``: the paper from its
    stored JSON, the score rounded to 6 decimals, a snippet of its abstract
    marking ``compiled.highlight``.

    Args:
        searcher: the open Whoosh searcher ``ranked`` was scored with.
        ranked: the ranking (``bot.search.scoring.rank.rank``).
        compiled: the query that ran (its terms to mark).
        start, stop: the slice of ``ranked.scored`` wanted (a page).
    """
    analyzer = searcher.schema["abstract"].analyzer
    hits = []
    for score, docnum in ranked.scored[start:stop]:
        paper = paper_from_json(searcher.stored_fields(docnum)["doc"])
        snippet = make_snippet(paper.abstract, compiled.highlight, analyzer)
        hits.append(Hit(paper=paper, score=round(score, 6), snippet=snippet))
    return hits


def make_snippet(text: str, terms: set[str], analyzer, width: int = WIDTH) -> str:
    """Cut ``text`` to about ``width`` characters around the best matches.

    Args:
        text: the abstract (plain Unicode).
        terms: analysed terms to mark (as produced by ``analyzer``).
        analyzer: the field's analyzer (matches joined by a hyphen are
            marked as one: "*test-time*").
        width: characters kept.

    Returns:
        The snippet, with "…" where text was cut.
    """
    if len(text) > SCAN_MAX:
        cut = text.rfind(" ", 0, SCAN_MAX)
        text = text[: cut if cut > 0 else SCAN_MAX] + " …"
    spans = (_spans(text, terms, analyzer) if terms else [])[:SPANS_MAX]
    start = _best_start(text, spans, width)
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start + width // 2, end)
        end = space if space > 0 else end
    out, at = [], start
    for s, e in spans:
        if s < start or e > end:
            continue
        out.append(text[at:s].translate(_CLEAN))
        out.append("*" + text[s:e].translate(_CLEAN) + "*")
        at = e
    out.append(text[at:end].translate(_CLEAN))
    body = "".join(out).strip()
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")


def _spans(text, terms, analyzer):
    """Sorted, merged ``(start, end)`` of tokens whose term is in ``terms``.

    Only words whose first two letters could start a wanted stem are analysed
    (stemmers change endings only), and each distinct word once: a whole
    abstract costs ~0.1 ms, not ~1.
    """
    heads = {t[:2].lower() for t in terms}  # an acronym's term is in capitals ("IT")
    raw, seen = [], {}  # seen: word -> its marked (start, end) within the word
    for m in WORD_RE.finditer(text):
        word = m.group()
        if word.isascii() and "-" not in word and word[:2].lower() not in heads:
            continue
        marks = seen.get(word)
        if marks is None:
            tokens = analyzer(word, chars=True, caps=True)
            marks = seen[word] = [(t.startchar, t.endchar) for t in tokens if t.text in terms]
        start = m.start()
        raw.extend((start + a, start + b) for a, b in marks)
    raw.sort()
    merged: list[list[int]] = []
    for s, e in raw:
        if merged and (s <= merged[-1][1] or text[merged[-1][1] : s] == "-"):
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def _best_start(text: str, spans, width: int) -> int:
    """Start of the window holding the most distinct matched words."""
    if not spans:
        return 0
    best, best_start = -1, 0
    for i, (s, _) in enumerate(spans):
        words = set()
        for a, b in spans[i:]:  # spans are sorted: stop at the window's end
            if b > s + width - LEAD:
                break
            words.add(text[a:b].lower())
        if len(words) > best:
            best, best_start = len(words), s
    start = max(0, best_start - LEAD)
    if start > 0:
        space = text.find(" ", start, best_start)
        start = space + 1 if space >= 0 else start
    if len(text) - start < width:  # use the room left at the end
        start = max(0, len(text) - width)
        if start > 0:
            space = text.find(" ", start)
            start = space + 1 if 0 <= space < start + 30 else start
    return start
