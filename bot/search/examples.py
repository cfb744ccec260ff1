"""Examples for help and hints, drawn from the papers of a generation (issue 18 point 7):
distinctive method names and frequent key phrases, chosen the same way every time for
the same index, from at most ``SAMPLE`` papers spread evenly over it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Iterable

from bot.core.models import Examples, Paper

#: Papers read to choose examples (evenly spaced over the index): ~0.1 s.
SAMPLE = 500
#: A method name worth showing: a letter, then letters, digits or inner hyphens, with a
#: capital after its first letter or a digit ("KIStego", "AAD-1", "UniSparse").
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")
_ACRONYM = re.compile(r"\s*\([^)]*\)$")


def _distinctive(name: str) -> bool:
    return (
        4 <= len(name) <= 20
        and bool(_NAME.match(name))
        and (any(c.isupper() for c in name[1:]) or any(c.isdigit() for c in name))
        and not name.isupper()
    )


def _phrases(keyword: str) -> set[str]:
    """A keyword as topics to type: its runs of two and three words ("Dark Matter Halos" →
    "dark matter halos", "dark matter", "matter halos"), its acronym dropped, lower-cased
    unless a word has inner capitals ("LoRA", not "Vision-Language"); none unless the
    keyword is 2 to 4 words of letters, digits and hyphens."""
    words = _ACRONYM.sub("", keyword).split()
    if not 2 <= len(words) <= 4 or not all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*", w) for w in words):
        return set()
    words = [w if any(c.isupper() for part in w.split("-") for c in part[1:]) else w.lower() for w in words]
    return {" ".join(words[i : i + k]) for k in (2, 3) for i in range(len(words) - k + 1)}


def _part(phrase: str, count: int, topics: Counter) -> bool:
    """True when one longer topic holding ``phrase`` is in at least 80 % of its papers
    ("large language" inside "large language models"): the run is only a fragment
    ("dark matter" in "dark matter halos" and "dark matter maps", once each, is none)."""
    return any(
        n >= 0.8 * count and len(other) > len(phrase) and f" {phrase} " in f" {other} " for other, n in topics.items()
    )


def _stable(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def choose(papers: Iterable[Paper], n: int = 2) -> Examples:
    """Examples from ``papers``.

    Args:
        papers: the papers to choose from (a sample of the index).
        n: names, topics and ids kept.

    Returns:
        ``names``: method names that look like names (``_distinctive``) and belong to
        one paper only, in the order of a hash of the name (spread over the index, the
        same for the same papers); ``topics``: key phrases of 2-3 words found in the most
        papers (at least 2 when any is; ties by more words, then by phrase) — a keyword's
        two-word runs count too (``_phrases``), unless they are mostly a fragment of a
        longer one (``_part``); ``ids``: the first paper ids in
        the same hash order. Empty tuples for no papers.
    """
    names: Counter = Counter()
    topics: Counter = Counter()
    ids = []
    for paper in papers:
        ids.append(paper.id)
        if paper.name and _distinctive(paper.name):
            names[paper.name] += 1
        for phrase in {p for k in paper.keywords for p in _phrases(k)}:
            topics[phrase] += 1
    unique = sorted((name for name, count in names.items() if count == 1), key=_stable)
    ranked = sorted(topics.items(), key=lambda kv: (-kv[1], -kv[0].count(" "), kv[0]))
    common = []
    for phrase, count in ranked:  # the first few that are no fragment (n of them suffice)
        if len(common) >= n:
            break
        if not _part(phrase, count, topics):
            common.append((phrase, count))
    if common and common[0][1] >= 2:
        common = [kv for kv in common if kv[1] >= 2]
    return Examples(
        names=tuple(unique[:n]),
        topics=tuple(phrase for phrase, _ in common[:n]),
        ids=tuple(sorted(ids, key=_stable)[:n]),
    )
