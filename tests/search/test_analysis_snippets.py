"""Text analysis (bot.search.index.analysis) and snippets (bot.search.scoring.hits)."""

from bot.search.index.analysis import text_analyzer
from bot.search.scoring.hits import WIDTH, make_snippet

A = text_analyzer()


def terms(text, **kw):
    return [t.text for t in A(text, **kw)]


def test_hyphenated_words_give_their_parts_in_order():
    toks = [(t.text, t.pos) for t in A("scaling test-time compute", positions=True)]
    assert toks == [("scale", 0), ("test", 1), ("time", 2), ("comput", 3)]


def test_compounds_are_reported_for_the_lexicon_only():
    words = list(A.words("a test-time method", compounds=True))
    assert ("testtime", "test time") in [(w[0], w[4]) for w in words]
    assert "testtime" not in terms("a test-time method")


def test_stop_words_single_letters_and_symbols():
    # single letters are dropped outside hyphenated words (keeping them did not
    # hold in the ablation, docs/search.md "Ranking rules, and why")
    assert terms("it the of ? O(log n)") == ["log"]
    assert terms("k-means C++ C#") == ["k", "mean", "c++", "c#"]


def test_a_stop_word_in_capitals_is_an_acronym_unless_the_text_shouts():
    assert terms("IT systems in the US") == ["IT", "system", "US"]  # in capitals: never the stem of "its"
    assert terms("A STUDY OF IT AND US") == ["studi"]


def test_accents_and_cjk():
    assert terms("Schölkopf") == ["scholkopf"]
    assert terms("稀疏注意力") == ["稀", "疏", "注", "意", "力"]


def test_snippet_marks_and_cuts():
    text = ("Intro words. " * 30) + "We propose sparse attention for long inputs. " + ("Tail words. " * 30)
    snip = make_snippet(text, set(terms("sparse attention")), A)
    assert "*sparse* *attention*" in snip
    assert snip.startswith("…") and snip.endswith("…")
    assert len(snip.replace("*", "")) <= WIDTH + 2


def test_snippet_without_matches_is_the_start():
    snip = make_snippet("Short abstract.", set(), A)
    assert snip == "Short abstract."


def test_snippet_neutralises_stars_in_text():
    snip = make_snippet("A* search beats *greedy* search.", {"search"}, A)
    assert snip == "A∗ *search* beats ∗greedy∗ *search*."
