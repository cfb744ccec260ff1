"""The query parser alone (bot.search.query): no index needed."""
import pytest

from bot.models import QueryError
from bot.search.query import MAX_CHARS, leaves, parse


def words(text):
    return [(c.kind, c.text, c.field, c.occur, c.prefix) for c in leaves(parse(text).clauses)]


def test_free_words_and_phrases():
    assert words('sparse "long context" “curly phrase”') == [
        ("word", "sparse", None, "should", False),
        ("phrase", "long context", None, "should", False),
        ("phrase", "curly phrase", None, "should", False),
    ]


def test_minus_excludes_only_at_start_or_after_space():
    assert words("-sparse attention test-time 0-dimensional a -b") == [
        ("word", "sparse", None, "not", False),
        ("word", "attention", None, "should", False),
        ("word", "test-time", None, "should", False),
        ("word", "0-dimensional", None, "should", False),
        ("word", "a", None, "should", False),
        ("word", "b", None, "not", False),
    ]


def test_not_and_plus_and_AND():
    assert [c[3] for c in words("attention NOT sparse")] == ["should", "not"]
    assert [c[3] for c in words("+attention sparse")] == ["must", "should"]
    assert [c[3] for c in words("attention AND sparse OR dense")] == ["must", "must", "should"]
    assert [c[3] for c in words('-"sparse attention" x')] == ["not", "should"]
    assert [c[3] for c in words("x ANDNOT y")] == ["should", "not"]


def test_lowercase_operators_are_words():
    assert [c[1] for c in words("not and or")] == ["not", "and", "or"]


def test_fields():
    assert words('title:attention name:UniSparse author:Hinton venue:"ICML 2026"') == [
        ("word", "attention", "title", "should", False),
        ("word", "UniSparse", "name", "should", False),
        ("word", "Hinton", "author", "should", False),
        ("phrase", "ICML 2026", "venue", "should", False),
    ]
    assert words("Authors:smith")[0][2] == "author"
    # not fields: URLs, ratios
    assert words("https://github.com/x 3:1")[0][2] is None


@pytest.mark.parametrize("text", ["nosuchfield:alpha", "title:", "title: attention",
                                  "title:(a b)"])
def test_bad_fields_list_the_valid_ones(text):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert "title:, name:, author:, venue:" in err.value.message
    assert err.value.example


@pytest.mark.parametrize("text", ["NOT NOT alpha", "alpha NOT NOT beta", "NOT AND alpha",
                                  "OR NOT NOT alpha", "alpha ANDNOT ANDNOT beta",
                                  "alpha ANDMAYBE ANDMAYBE beta", "AND alpha", "alpha OR",
                                  "alpha OR OR beta", "NOT -alpha",
                                  "(" * 2000 + "alpha" + ")" * 2000, "(" * 2000 + "alpha",
                                  "(alpha beta", "alpha) beta", '"alpha beta', "alpha NOT"])
def test_whoosh_crashers_and_unbalanced_input_are_query_errors(text):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert err.value.message and err.value.example


def test_moderate_nesting_is_fine():
    assert words("((a OR b) c)") == [("word", "a", None, "should", False),
                                     ("word", "b", None, "should", False),
                                     ("word", "c", None, "should", False)]


@pytest.mark.parametrize("text", ["*", "**", "*lo", "ab*", "a*b", "te*st*"])
def test_refused_wildcards(text):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert "*" in err.value.message and err.value.example == "distill*"


def test_prefix_wildcard():
    assert words("distill*") == [("word", "distill", None, "should", True)]


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_is_an_error(text):
    with pytest.raises(QueryError):
        parse(text)


@pytest.mark.parametrize("text,expected", [
    ("C++", ["C++"]), ("O(log n)", ["O", "log", "n"]), ("稀疏注意力", ["稀疏注意力"]), ("?", ["?"]),
    ("IT", ["IT"]), ("-", []), ("don't", ["don't"]), ("f(x) = 5%", ["f", "x", "=", "5%"])])
def test_odd_but_valid_input_parses(text, expected):
    parsed = parse(text)
    assert (parsed.text, parsed.notes) == (text, ())
    assert words(text) == [("word", w, None, "should", False) for w in expected]


def test_long_input_is_cut_with_a_note():
    text = ("attention " * 60).strip()
    parsed = parse(text)
    assert len(parsed.text) <= MAX_CHARS and parsed.text.startswith("attention")
    assert parsed.notes == (f"Your query was cut to {MAX_CHARS} characters.",)
    assert parse("attention").notes == ()


def test_cut_repairs_an_open_quote_or_parenthesis():
    parsed = parse("x " * 140 + '"sparse attention is what we want here today')
    assert parsed.notes
    parsed = parse("x " * 140 + "(sparse attention is what we want here today)")
    assert parsed.notes


def test_clause_cap_keeps_the_first_words():
    parsed = parse(" ".join(f"w{i}" for i in range(50)), max_clauses=32)
    assert len(leaves(parsed.clauses)) == 32
    assert any("32" in note for note in parsed.notes)


def test_spans_point_at_the_words():
    text = 'title:steganografy -foo "bar baz" +qux'
    found = leaves(parse(text).clauses)
    assert [c.text for c in found] == ["steganografy", "foo", "bar baz", "qux"]
    for c in found:
        assert text[c.span[0]:c.span[1]] == c.text
