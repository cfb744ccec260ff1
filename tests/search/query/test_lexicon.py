"""The lexicon's compound counts and spelling suggestions (no index needed)."""

from bot.search.index.analysis import text_analyzer
from bot.search.query.lexicon import Lexicon, LexiconBuilder
from bot.search.query.spelling import suggest, transpositions
from bot.search.scoring.knobs import DEFAULT


def _lexicon(*abstracts: str) -> Lexicon:
    analyzer = text_analyzer()
    builder = LexiconBuilder(analyzer.stem)
    for text in abstracts:
        builder.add(text, list(analyzer.words(text, compounds=True)))
    return Lexicon(builder.finish())


def test_compound_counts_decide_the_split_form():
    lex = _lexicon(*(["networks everywhere"] * 20 + ["net-works once", "test-time here"]))
    assert lex.compound_df == {"networks": 1, "testtime": 1}
    assert lex.split_form("networks", 0.1) is None  # 1 of 21 papers
    assert lex.split_form("testtime", 0.1) == "test time"  # its only spelling
    old = Lexicon({"words": {"networks": 21}, "compounds": {"networks": "net works"}})
    assert old.split_form("networks", 0.1) == "net works"  # older lexicon: as before


def test_builder_state_merges_like_one_pass():
    analyzer = text_analyzer()
    texts = ["net-works once", "test-time here", "networks everywhere"]
    one = LexiconBuilder(analyzer.stem)
    for t in texts:
        one.add(t, list(analyzer.words(t, compounds=True)))
    first, second = LexiconBuilder(analyzer.stem), LexiconBuilder(analyzer.stem)
    first.add(texts[0], list(analyzer.words(texts[0], compounds=True)))
    for t in texts[1:]:
        second.add(t, list(analyzer.words(t, compounds=True)))
    first.merge(second.state())
    assert first.finish() == one.finish()


def test_transpositions_and_suggestions():
    assert "neural" in transpositions("nueral") and "nueral" not in transpositions("nueral")
    lex = Lexicon({"words": {"neural": 500, "numeral": 3, "graph": 900, "grpa": 1}})
    assert suggest(lex, "nueral", DEFAULT) == "neural"
    assert suggest(lex, "grpah", DEFAULT) == "graph"
    assert suggest(lex, "numerals", DEFAULT) == "numeral"
