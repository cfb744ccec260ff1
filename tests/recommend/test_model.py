"""The TF-IDF rows (``bot.recommend.model.Matrix``) over a real index."""

from __future__ import annotations

import numpy as np

from bot.recommend import Recommender
from bot.search import SearchIndex, add_to_index, build_index
from tests.recommend.kit import papers


def test_rows_have_unit_length(topics):
    m = Recommender(topics).matrix()
    lengths = np.sqrt(np.asarray(m.x.multiply(m.x).sum(axis=1)).ravel())
    assert m.x.shape[0] == len(papers()) and np.allclose(lengths, 1.0, atol=1e-5)


def test_a_replaced_paper_keeps_one_row(tmp_path):
    d = tmp_path / "index"
    build_index(d, papers(), fingerprint="topics")
    add_to_index(d, [papers()[0]])
    m = Recommender(SearchIndex(d)).matrix()
    assert list(m.ids).count("attn0") == 1
    dead = np.flatnonzero(~m.live)
    assert len(dead) == 1 and m.x[dead[0]].nnz == 0 and m.row["attn0"] != dead[0]
