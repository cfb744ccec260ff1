"""Paper ids: source ids normalised, hash ids short, collisions resolved order-independently."""

from __future__ import annotations

import random
import re

import pytest

from bot.corpus import paper_id_for
from bot.corpus.ids import ALPHABET, IdKey, assign_ids, text_digest


@pytest.mark.parametrize(
    "source_id,expected",
    [
        ("2503.11731", "2503.11731"),
        (" 4983 ", "4983"),
        ("hep-th/9901001", "hep-th-9901001"),
        ("ABC_12", "ABC-12"),  # case kept (OpenReview ids are case-sensitive)
        (1234, "1234"),
        ("Paper #7!", "Paper-7"),
    ],
)
def test_source_ids_are_normalised(source_id, expected):
    assert paper_id_for("some text", source_id) == expected


def test_hash_id_short_typeable_and_whitespace_insensitive():
    pid = paper_id_for("We propose X.\n  It works.", None)
    assert re.fullmatch("p[" + ALPHABET + "]{4}", pid)
    assert pid == paper_id_for("We propose X. It works.", None)
    assert pid == paper_id_for("We propose X. It works.", "")
    assert pid != paper_id_for("We propose Y. It works.", None)
    assert not set("aeiouly") & set(pid[1:])


def test_id_needs_text_or_source_id():
    with pytest.raises(ValueError):
        paper_id_for("   ", None)


def _key(digest, base=None, source="f#1"):
    return IdKey(base or "p" + digest[:4], digest, base is None, source)


def test_hash_collisions_lengthen_only_as_far_as_needed():
    keys = [_key("bcdf0000xxxxxxxx"), _key("bcdf0001xxxxxxxx"), _key("bcdg9999xxxxxxxx"), _key("bcdf0100xxxxxxxx")]
    kept, ids = assign_ids(keys)
    assert kept == [0, 1, 2, 3]
    assert ids == ["pbcdf0000", "pbcdf0001", "pbcdg", "pbcdf01"]


def test_assignment_is_order_independent():
    rng = random.Random(7)
    keys = [_key(text_digest(f"abstract {i}")) for i in range(3000)]
    keys += [_key(k.digest[:4] + "zzzzzzzzzzzz") for k in keys[:20]]  # forced collisions
    keys += [_key(text_digest(f"rec {i}"), base=f"id{i % 50}", source=f"r#{i}") for i in range(200)]
    _, ids = assign_ids(keys)
    mapping = dict(zip(((k.base, k.digest) for k in keys), ids))
    assert len(set(ids)) == len(ids)
    shuffled = keys[:]
    rng.shuffle(shuffled)
    _, ids2 = assign_ids(shuffled)
    assert dict(zip(((k.base, k.digest) for k in shuffled), ids2)) == mapping
    assert any(len(pid) > 5 for pid in ids if pid.startswith("p"))


def test_shared_source_ids_get_hash_suffixes():
    keys = [
        _key("bcdfghjk00000000", base="42", source="a.jsonl#1"),
        _key("bcdfzzzz00000000", base="42", source="b.jsonl#1"),
        _key("xxxxxxxx00000000", base="43", source="a.jsonl#2"),
    ]
    _, ids = assign_ids(keys)
    assert ids == ["42-bcdfg", "42-bcdfz", "43"]


def test_exact_duplicates_are_dropped_keeping_the_smallest_source():
    keys = [
        _key("bcdf0000xxxxxxxx", source="b.txt#1"),
        _key("bcdf0000xxxxxxxx", source="a.txt#3"),
        _key("qqqq0000xxxxxxxx", source="a.txt#1"),
    ]
    kept, ids = assign_ids(keys)
    assert kept == [1, 2]
    assert ids == ["pbcdf", "pqqqq"]


def test_source_id_equal_to_a_hash_id_yields_to_it():
    keys = [_key("bcdf0000xxxxxxxx"), _key("zzzz0000xxxxxxxx", base="pbcdf", source="r#1")]
    _, ids = assign_ids(keys)
    assert ids[0] == "pbcdf"
    assert ids[1].startswith("pbcdf-") and len(set(ids)) == 2
