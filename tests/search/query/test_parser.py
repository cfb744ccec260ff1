"""The query parser alone (bot.search.query.parser): no index needed."""

import pytest

from bot.core.models import QueryError
from bot.search.query.parser import MAX_CHARS, leaves, parse


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


def test_only_known_fields_are_fields():
    assert words("nosuchfield:alpha") == [
        ("word", "nosuchfield:", None, "should", False),
        ("word", "alpha", None, "should", False),
    ]
    assert words("Examples: papers") == [
        ("word", "Examples:", None, "should", False),
        ("word", "papers", None, "should", False),
    ]
    assert words("title: attention") == [("word", "attention", "title", "should", False)]
    assert words('venue: "ICML 2026"') == [("phrase", "ICML 2026", "venue", "should", False)]
    assert words("title:(a b)") == [
        ("word", "title", None, "should", False),
        ("word", "a", None, "should", False),
        ("word", "b", None, "should", False),
    ]


@pytest.mark.parametrize("text", ["title:", "title: ", "author:"])
def test_a_field_alone_is_explained(text):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert "title:, name:, author:, venue:" in err.value.message and err.value.example


@pytest.mark.parametrize(
    "text, expected",
    [
        ("NOT NOT alpha", [("alpha", "should")]),
        ("alpha NOT NOT beta", [("alpha", "should"), ("beta", "should")]),
        ("NOT AND alpha", [("alpha", "should")]),
        ("OR NOT NOT alpha", [("alpha", "should")]),
        ("alpha ANDNOT ANDNOT beta", [("alpha", "should"), ("beta", "should")]),
        ("alpha ANDMAYBE ANDMAYBE beta", [("alpha", "should"), ("beta", "should")]),
        ("AND alpha", [("alpha", "should")]),
        ("alpha OR", [("alpha", "should")]),
        ("alpha OR OR beta", [("alpha", "should"), ("beta", "should")]),
        ("alpha NOT", [("alpha", "should")]),
        ("NOT -alpha", [("alpha", "not")]),
        ("(alpha beta", [("alpha", "should"), ("beta", "should")]),
        ("alpha) beta", [("alpha", "should"), ("beta", "should")]),
        ('"alpha beta', [("alpha", "should"), ("beta", "should")]),
        ('"alpha (beta" gamma)', [("alpha (beta", "should"), ("gamma", "should")]),
        ("(" * 100 + "alpha" + ")" * 100, [("alpha", "should")]),
        ("(" * 200 + "alpha", [("alpha", "should")]),
    ],
)
def test_operators_and_brackets_that_form_no_expression_are_plain_text(text, expected):
    assert [(c[1], c[3]) for c in words(text)] == expected


@pytest.mark.parametrize("text", ["(((", '"', "((  ))", '""', ")"])
def test_input_that_is_only_syntax_is_explained(text):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert err.value.message and err.value.example


def test_prose_is_never_refused():
    for text in [
        "Examples: papers on indexing *, retrieval (see also",
        "KIStego: Training-free framework for (steganography",
        "results) were better than expected",
        "a * b",
        "e.g. 50% of **all** runs",
    ]:
        assert [c for c in words(text) if c[0] == "word"], text


def test_moderate_nesting_is_fine():
    assert words("((a OR b) c)") == [
        ("word", "a", None, "should", False),
        ("word", "b", None, "should", False),
        ("word", "c", None, "should", False),
    ]


@pytest.mark.parametrize(
    "text, expected", [("*lo", "*lo"), ("ab*", "ab*"), ("a*b", "a*b"), ("te*st*", "te*st*"), ("x*", "x*")]
)
def test_a_star_that_is_not_a_prefix_is_punctuation(text, expected):
    assert words(text) == [("word", expected, None, "should", False)]


def test_prefix_wildcard():
    assert words("distill*") == [("word", "distill", None, "should", True)]


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_is_an_error(text):
    with pytest.raises(QueryError):
        parse(text)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("C++", ["C++"]),
        ("O(log n)", ["O", "log", "n"]),
        ("稀疏注意力", ["稀疏注意力"]),
        ("?", ["?"]),
        ("IT", ["IT"]),
        ("don't", ["don't"]),
        ("f(x) = 5%", ["f", "x", "=", "5%"]),
    ],
)
def test_odd_but_valid_input_parses(text, expected):
    parsed = parse(text)
    assert (parsed.text, parsed.notes) == (text, ())
    assert words(text) == [("word", w, None, "should", False) for w in expected]


def test_a_lone_minus_is_explained():
    with pytest.raises(QueryError) as err:
        parse("-")
    assert err.value.example


def test_long_input_is_cut_with_a_note():
    text = ("attention " * 600).strip()
    parsed = parse(text)
    assert len(parsed.text) <= MAX_CHARS == 4000 and parsed.text.startswith("attention")
    assert parsed.notes == (f"Your query was cut to {MAX_CHARS} characters.",)
    assert parse("attention").notes == ()


def test_cut_repairs_an_open_quote_or_parenthesis():
    parsed = parse("x " * 1990 + '"sparse attention is what we want here today')
    assert parsed.notes and parsed.text.count('"') % 2 == 0
    parsed = parse("x " * 1990 + "(sparse attention is what we want here today)")
    assert parsed.notes and parsed.text.count("(") == parsed.text.count(")")


def test_every_word_of_a_long_text_is_kept():
    parsed = parse(" ".join(f"w{i}" for i in range(500)))
    assert len(leaves(parsed.clauses)) == 500 and parsed.notes == ()


def test_spans_point_at_the_words():
    text = 'title:steganografy -foo "bar baz" +qux'
    found = leaves(parse(text).clauses)
    assert [c.text for c in found] == ["steganografy", "foo", "bar baz", "qux"]
    for c in found:
        assert text[c.span[0] : c.span[1]] == c.text


def test_a_sign_before_a_digit_is_part_of_the_number():
    assert words("accuracy by +1.4% and loss by -0.4 or −3") == [
        ("word", t, None, "should", False) for t in ["accuracy", "by", "+1.4%", "and", "loss", "by", "-0.4", "or", "−3"]
    ]
    assert [c[3] for c in words("-2D +3D shapes")] == ["should", "should", "should"]


def test_a_lone_dash_is_punctuation_never_an_exclusion():
    assert words("state-of-the-art - a method -- and + more") == [
        ("word", t, None, "should", False) for t in ["state-of-the-art", "a", "method", "and", "more"]
    ]
    assert [c.occur for c in parse('- "a b" +(c d)').clauses] == ["should", "must"]


def test_signs_inside_a_long_pasted_text_are_text():
    body = " ".join(f"word{i}" for i in range(40))
    got = words(f"-survey {body} a 10 -fold gain and +MLP heads -review +GPU")
    signed = {c[1]: c[3] for c in got if c[1] in ("survey", "-fold", "+MLP", "review", "GPU")}
    assert signed == {"survey": "not", "-fold": "should", "+MLP": "should", "review": "not", "GPU": "must"}
    # a short query keeps its operators wherever they are
    assert [c[3] for c in words("a 10 -fold gain")] == ["should", "should", "not", "should"]


@pytest.mark.parametrize(
    "query, stems", [("sp*", "“sp*” was searched as the word “sp”"), ("x* 3d*", "“x*”, “3d*” were")]
)
def test_a_prefix_under_three_letters_says_it_was_searched_as_a_word(query, stems):
    parsed = parse(query)
    assert not any(c.prefix for c in leaves(parsed.clauses))
    (note,) = parsed.notes
    assert note.startswith("A prefix needs at least 3 letters before `*`") and stems in note


@pytest.mark.parametrize("query", ["spars*", "sparse attention", "test*ing", "*", "c++"])
def test_no_prefix_note_for_a_real_prefix_or_no_prefix(query):
    assert not any("prefix" in n for n in parse(query).notes)
