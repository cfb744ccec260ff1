"""The shared-terms rule of "similar papers" (issue 18): key terms as documented in
``bot.search.scoring.similar.SharedTerms`` — current Snowball English stems, df counted on
the same words as tf — so a paper sharing one key term and one weak or unrelated word is
not listed. Real indexes of hand-made papers."""

import json

from bot.search import Ranking, SearchIndex, add_to_index, build_index
from bot.search.index import layout
from bot.search.scoring.similar import StemCounts, snowball_stem
from tests.search.searchkit import paper


def similar_ids(folder, pid, **ranking):
    index = SearchIndex(folder, ranking=Ranking(**ranking)) if ranking else SearchIndex(folder)
    return [h.paper.id for h in index.similar(pid, limit=10)]


def test_universal_is_not_universe(tmp_path):
    """Adversarial "universal perturbations" and the early universe's perturbations share
    one word; Snowball English before 2.0 (Whoosh's) stems "universal" and "universe"
    alike, which made them share two key terms."""
    papers = [
        paper("adv", "Universal perturbations fool speech recognizers.", title="Universal perturbations"),
        paper("cosmo", "Cosmological perturbations in the early universe.", title="Early universe perturbations"),
        paper("other", "Speech recognizers transcribe spoken words.", title="Speech recognizers"),
    ]
    build_index(tmp_path / "i", papers)
    assert snowball_stem("universal") != snowball_stem("universe")
    assert "cosmo" in similar_ids(tmp_path / "i", "adv", similar_min_shared=0)  # the query finds it
    assert "cosmo" not in similar_ids(tmp_path / "i", "adv")
    assert "other" in similar_ids(tmp_path / "i", "adv")  # speech + recognizers: two key terms


def test_a_word_the_index_spells_otherwise_keeps_its_df(tmp_path):
    """ "Gallouët" and "Mérigot" are the words "gallou" and "rigot" to the key-term rule
    (the index folds them whole: "gallouet", "merigot"). Their df is counted on those
    words, 1 each, so they are key terms; read from the index they had none, were
    dropped, and let the weak "power" in — shared, with "laguerre", by a paper about
    something else."""
    common = "Power grids use power electronics."
    papers = [
        paper(
            "src",
            "Gallouët and Mérigot compute Laguerre tessellations: semidiscrete optimal transport "
            "of incompressible fluids with power diagrams.",
            title="Laguerre tessellations for fluids",
        ),
        paper("near", "Laguerre polynomials and power series.", title="Laguerre power series"),
        *(paper(f"f{i}", f"{common} Grid number {i}.", title=f"Power grids {i}") for i in range(4)),
    ]
    build_index(tmp_path / "i", papers)
    counts = StemCounts.of(f"{p.title}\n{p.abstract}" for p in papers)
    assert counts.papers == 6 and counts.df["gallou"] == counts.df["rigot"] == 1 and counts.df["power"] == 6
    assert "near" in similar_ids(tmp_path / "i", "src", similar_min_shared=0)  # the query finds it
    assert "near" not in similar_ids(tmp_path / "i", "src")


def test_the_counts_are_kept_beside_the_generation_and_left_out_of_an_add(tmp_path):
    """Counted once per generation (``StemCounts.kept``), read back by the next process;
    ``index add`` makes a new generation without the old counts (they would be stale),
    and a broken file is counted again."""
    papers = [paper(f"p{i}", f"Laguerre tessellations number {i}.", title=f"Tessellations {i}") for i in range(3)]
    build_index(tmp_path / "i", papers)
    first = SearchIndex(tmp_path / "i")
    first.warm_similar()
    (saved,) = (tmp_path / "i").glob(f"gen-*/{layout.COUNTS_FILE}")
    assert json.loads(saved.read_text())["papers"] == 3

    def never():
        raise AssertionError("counted again although the generation's counts were saved")

    assert StemCounts.kept(saved.parent, never).df["laguerr"] == 3  # what the next process reads
    saved.write_text('{"format": 1, "pap')  # broken: counted again, never an error
    assert StemCounts.kept(saved.parent, lambda: ["Laguerre"]).papers == 1

    add_to_index(tmp_path / "i", [paper("p9", "Laguerre tessellations again.", title="Tessellations 9")])
    live = tmp_path / "i" / layout.current_name(tmp_path / "i")
    assert live != saved.parent and not (live / layout.COUNTS_FILE).exists()
    SearchIndex(tmp_path / "i").warm_similar()
    assert json.loads((live / layout.COUNTS_FILE).read_text())["papers"] == 4
    assert not list((tmp_path / "i").glob("gen-*/*.tmp"))
