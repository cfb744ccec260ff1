"""`paperbot search --json -` is byte-safe: any bytes on stdin give exactly one
valid UTF-8 JSON line per input line (split on b"\\n" only), invalid UTF-8 is
replaced and noted, and U+0085 / U+2028 / U+2029 never reach the output raw
(bot/cli/lines.py). Reads the session's seed index, which search only reads."""

import json

import pytest

from bot.cli.lines import LINE_BREAKS, REPLACED, json_line, read_lines
from tests.clikit import run, run_process

SEPARATORS = ("\u0085", "\u2028", "\u2029")
#: One query per b"\n"; the last one has no newline at all.
LINES = [
    b"attention \xed\xa0\x80",  # an encoded surrogate: invalid UTF-8
    b"\xff\xfe sparse \xc3",  # stray bytes, a truncated sequence
    b"nul\x00byte attention",
    b"carriage\rreturn inside",
    b"crlf ending\r",  # a CRLF file's line
    b"",  # blank lines count too
    *[("next " + s + " line attention").encode() for s in SEPARATORS],
    "((( \u2028 \"".encode(),  # an error line echoes the query as given
    b"\x0b\x0c\x1c\x1d\x1e vertical tab and friends",
    b"last line, no newline",
]
STDIN = b"\n".join(LINES)


def json_lines(out: bytes) -> list[dict]:
    """Output lines, checked: strict UTF-8, and the same lines for every line
    reader (``str.splitlines`` honours U+2028 and the rest)."""
    text = out.decode("utf-8")  # strict: raises on invalid bytes
    assert text.endswith("\n") and text.split("\n")[:-1] == text.splitlines()
    for char in SEPARATORS:
        assert char not in text
    return [json.loads(line) for line in text.splitlines()]


def check(docs: list[dict]) -> None:
    assert len(docs) == len(LINES)
    for raw, doc in zip(LINES, docs):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            assert doc["note"] == REPLACED and "\ufffd" in doc["query"], doc
        else:
            assert "note" not in doc, doc
        assert "results" in doc or "error" in doc, doc
    assert docs[0]["query"].startswith("attention") and docs[0]["results"]
    assert docs[4]["query"] == "crlf ending"
    assert docs[3]["query"] == "carriage return inside"  # a \r inside is whitespace
    error = docs[len(LINES) - 3]
    assert error["error"] and error["query"] == "((( \u2028 \""  # escaped on the way, restored by json


def test_any_bytes_give_one_json_line_per_input_line(tmp_path, seed_index_dir):
    r = run(["search", "--json", "--index", str(seed_index_dir), "-"], tmp_path, stdin=STDIN)
    assert r.returncode == 0, r.stderr
    check(json_lines(r.stdout_bytes))


def test_a_real_process_in_the_c_locale_is_byte_safe_too(tmp_path, seed_index_dir):
    r = run_process(
        ["search", "--json", "--limit", "1", "--index", str(seed_index_dir), "-"],
        tmp_path,
        stdin=STDIN,
        env_extra={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": ""},
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    check(json_lines(r.stdout_bytes))


def test_plain_batch_output_names_each_line_and_notes_replacements(tmp_path, seed_index_dir):
    r = run(["search", "--index", str(seed_index_dir), "-"], tmp_path, stdin=b"chess \xff\nchess\n")
    assert r.stdout.count("== chess") == 2 and r.stdout.count(REPLACED) == 1


def test_an_argument_that_is_not_utf8_is_replaced_and_noted(tmp_path, seed_index_dir):
    bad = b"attention \xff".decode("utf-8", "surrogateescape")  # how Python hands it over (PEP 383)
    r = run(["search", "--json", "--index", str(seed_index_dir), bad], tmp_path)
    (doc,) = json_lines(r.stdout_bytes)
    assert doc["note"] == REPLACED and doc["query"] == "attention \ufffd"


@pytest.mark.parametrize("value", ["a\u2028b", "\u0085", "x\u2029", "plain", "tab\tnul\x00"])
def test_json_line_escapes_what_line_readers_split_on(value):
    line = json_line({"q": value})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"q": value}
    for char in LINE_BREAKS:
        assert char.encode() not in line


def test_read_lines_splits_on_newline_bytes_only():
    import io

    got = list(read_lines(io.BytesIO(b"a\rb\n\nc\xffd\r\ne\x85f\n \t x \x0b\x0c y\t")))
    assert got == [
        ("a b", None),
        ("", None),
        ("c\ufffdd", REPLACED),
        ("e\ufffdf", REPLACED),
        ("x y", None),
    ]  # whitespace inside a line collapses as in Slack


def test_plain_batch_says_which_line_each_refusal_answers(seed_index_dir, tmp_path):
    r = run(["search", "--index", str(seed_index_dir), "-"], tmp_path, stdin=b"chess\n(((\n")
    out = r.stdout
    assert "== chess" in out and "== (((" in out
    assert out.index("== (((") < out.index("Type some words")
