"""Paper ids: stable, unique, typeable (docs/interfaces.md "Papers").

* A source with its own id (arXiv id, SciFact ``_id``, OpenReview note id) gives
  the id as the source writes it — letter case kept (OpenReview ids are
  case-sensitive: "Xq7pL2mN9a"; lookups match any case, issue 18) — anything
  outside ``[A-Za-z0-9.-]`` turned into ``-`` ("hep-th/9901001" → "hep-th-9901001").
* Otherwise the id comes from the SHA-256 of the whitespace-normalised raw
  text: "p" + its first 4 characters in a 29-letter alphabet of digits and
  consonants (no vowels, so no id spells a word someone would search for;
  no "l", so nothing reads as "1"). 29⁴ ≈ 707,000 short ids.
* Collisions are resolved from the content alone, so the result does not
  depend on file or paragraph order: every hash id gets the shortest
  prefix (≥ 4) of its hash that no other paper in the corpus shares; source
  ids shared by different texts get "-" + the shortest unique prefix (≥ 2)
  of each text's hash. An identical (id, text) pair is one paper: the copy
  with the smallest ``source`` is kept.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Sequence

ALPHABET = "0123456789bcdfghjkmnpqrstvwxz"
_DIGITS = 16  # 29**16 ≈ 2**77.7: from the first 80 bits of the hash
_NOT_ID = re.compile(r"[^A-Za-z0-9.-]+")


def text_digest(raw_text: str, *, normalised: bool = False) -> str:
    """SHA-256 of the whitespace-normalised text, as 16 characters of ``ALPHABET``.

    Args:
        raw_text: the source text before cleaning (so a better cleaner does
            not change ids).
        normalised: True when the caller already collapsed whitespace.

    Returns:
        A fixed-length string (first 80 bits of the hash in base 29), most
        significant character first. Two texts sharing all 16 characters
        (chance ≈ 2⁻⁷⁷ per pair) are told apart by ``assign_ids``' last resort.
    """
    text = raw_text if normalised else " ".join(raw_text.split())
    value = int.from_bytes(hashlib.sha256(text.encode()).digest()[:10], "big")
    out = []
    for _ in range(_DIGITS):
        value, rem = divmod(value, len(ALPHABET))
        out.append(ALPHABET[rem])
    return "".join(reversed(out))


def normalise_source_id(source_id: object) -> str | None:
    """``" 2503.11731 "`` → ``"2503.11731"``; ``"hep-th/9901001"`` → ``"hep-th-9901001"``;
    ``"Xq7pL2mN9a"`` stays (case kept); None when empty."""
    if source_id is None:
        return None
    text = _NOT_ID.sub("-", str(source_id).strip()).strip("-.")
    return text or None


#: Longest product id taken from a source id (longer ones are shortened + hashed).
ID_MAX = 64


def paper_id_for(raw_text: str | None, source_id: str | None) -> str:
    """The base id of one paper (before collision lengthening; see module docstring).

    Args:
        raw_text: the raw abstract (used when there is no usable source id).
        source_id: the id in the source file, or None.

    Returns:
        The normalised source id, else ``"p" + 4 hash characters`` (e.g. "p7k2b").

    Raises:
        ValueError: when neither a source id nor non-blank text is given.
    """
    normalised = normalise_source_id(source_id)
    if normalised and len(normalised) > ID_MAX:
        # Still derived from (and stable with) the source id, but short enough to
        # type and to fit in a Slack button value (≤ 2000 chars).
        import hashlib

        return normalised[: ID_MAX - 9].rstrip(".-") + "-" + hashlib.sha256(normalised.encode()).hexdigest()[:8]
    if normalised:
        return normalised
    if raw_text is None or not raw_text.strip():
        raise ValueError("a paper id needs a source id or text")
    return "p" + text_digest(raw_text)[:4]


@dataclass(frozen=True)
class IdKey:
    """What id assignment needs to know about one paper.

    Attributes:
        base: ``paper_id_for(...)``.
        digest: ``text_digest(raw_text)``.
        hashed: True when ``base`` came from the digest (no source id).
        source: ``"<file>#<n>"`` — only used to pick among exact duplicates.
    """

    base: str
    digest: str
    hashed: bool
    source: str


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _shortest_unique(digests: Sequence[str], minimum: int) -> dict[str, int]:
    """For each (distinct) digest, the shortest prefix length ≥ minimum shared with no other."""
    ordered = sorted(set(digests))
    lengths = {}
    for i, d in enumerate(ordered):
        near = max(_common(d, ordered[i - 1]) if i else 0, _common(d, ordered[i + 1]) if i + 1 < len(ordered) else 0)
        lengths[d] = max(minimum, near + 1)
    return lengths


def assign_ids(keys: Sequence[IdKey]) -> tuple[list[int], list[str]]:
    """Final ids for a whole corpus, independent of input order.

    Args:
        keys: one ``IdKey`` per paper, in any order.

    Returns:
        ``(kept, ids)``: indices into ``keys`` of the papers kept (exact
        duplicates dropped), in input order, and their unique ids.
    """
    best: dict[tuple[str, str], int] = {}
    for i, key in enumerate(keys):
        pair = (key.base, key.digest)
        if pair not in best or key.source < keys[best[pair]].source:
            best[pair] = i
    kept = sorted(best.values())
    hashed = [i for i in kept if keys[i].hashed]
    lengths = _shortest_unique([keys[i].digest for i in hashed], 4)
    ids = {i: "p" + keys[i].digest[: lengths[keys[i].digest]] for i in hashed}
    groups: dict[str, list[int]] = {}
    for i in kept:
        if not keys[i].hashed:
            groups.setdefault(keys[i].base, []).append(i)
    for base, members in groups.items():
        if len(members) == 1:
            ids[members[0]] = base
            continue
        lengths = _shortest_unique([keys[i].digest for i in members], 2)
        for i in members:
            ids[i] = f"{base}-{keys[i].digest[: lengths[keys[i].digest]]}"
    _settle(ids, keys)
    return kept, [ids[i] for i in kept]


def _settle(ids: dict[int, str], keys: Sequence[IdKey]) -> None:
    """Resolve the rare clash between a source-derived id and another id.

    A hash id ("p7k2b") keeps its id; each clashing source-derived id gets
    "-" + the shortest unique prefix of its hash; identical hashes (same
    text under ids that normalise apart and back together) get their rank
    by ``source`` as a last resort.
    """
    for attempt in range(9):
        by_id: dict[str, list[int]] = {}
        for i, pid in ids.items():
            by_id.setdefault(pid, []).append(i)
        clashes = [members for members in by_id.values() if len(members) > 1]
        if not clashes:
            return
        for members in clashes:
            movable = sorted((i for i in members if not keys[i].hashed), key=lambda j: (keys[j].source, keys[j].digest))
            if attempt == 8:
                for rank, i in enumerate(movable[1:], 2):
                    ids[i] = f"{ids[i]}-{rank}"
                continue
            lengths = _shortest_unique([keys[i].digest for i in movable], 2)
            for i in movable:
                ids[i] = f"{ids[i]}-{keys[i].digest[: lengths[keys[i].digest]]}"
