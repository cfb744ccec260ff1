"""Bytes that are not UTF-8 inside a word (``caf\\xe9``, Latin-1 "café"):
the CLI and the console read them as U+FFFD before the service, in any
locale, and the search package takes a surrogate code point in a query
string (how Python hands over such bytes, PEP 383, or a JSON ``\\ud800``)
without an exception. Locales and argv decoding only a real process shows."""

from __future__ import annotations

import json

import pytest

from bot.core.models import QueryError
from bot.core.parsing import well_formed
from tests.clikit import run_process

#: How a process may be told to decode its input: the C locale (Python then
#: uses UTF-8 with surrogateescape), a UTF-8 locale, strict UTF-8 stdio, ASCII stdio.
LOCALES = [
    {"LC_ALL": "C", "LANG": "C"},
    {"LC_ALL": "C.UTF-8"},
    {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"},
    {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "ascii"},
]


@pytest.mark.parametrize("env", LOCALES, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
def test_the_console_answers_a_line_with_a_byte_that_is_not_utf8(tmp_path, seed_index_dir, env) -> None:
    r = run_process(
        ["console"],
        tmp_path,
        stdin=b"/paper search caf\xe9\n@paperbot chess caf\xe9\n/paper help\n",
        env_extra={**env, "PAPERBOT_INDEX_DIR": str(seed_index_dir)},
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "Sorry, that failed" not in r.stdout
    replies = [block for block in r.stdout.split("\n\n") if block.strip()]
    assert len(replies) >= 3 and "caf" in replies[0] and "No paper matches" in replies[0], replies
    assert "reply in thread" in replies[1] and "/paper search" in r.stdout.split("(reply in thread)")[1]


@pytest.mark.parametrize("env", LOCALES[:3], ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
def test_an_argv_word_with_a_byte_that_is_not_utf8_is_searched(tmp_path, seed_index_dir, env) -> None:
    r = run_process(
        ["search", "--json", "--index", str(seed_index_dir), b"chess caf\xe9".decode("latin-1")],
        tmp_path,
        env_extra=env,
    )
    assert r.returncode == 0, r.stderr
    (doc,) = [json.loads(line) for line in r.stdout_bytes.decode("utf-8").splitlines()]
    assert doc["results"] and "chess" in doc["results"][0]["abstract"]


#: Queries with surrogates -> whether the chess paper is found (no paper has a
#: phrase with "caf\ufffd" in it: the list is of the papers with its words).
SURROGATES = {
    "caf\udce9": False,
    "\ud800": False,
    "a\udfffb chess": True,
    '"caf\udce9 chess"': True,
    "title:\ud800": False,
    "caf\udce9*": False,
    "chess \udce9": True,
    "(chess OR \udce9)": True,
    "-\udce9 chess": True,
    "\udce9" * 300: False,
}


@pytest.mark.parametrize("text, finds", SURROGATES.items(), ids=ascii)
def test_the_search_package_takes_a_surrogate_without_an_exception(seed_index, text, finds) -> None:
    try:
        page = seed_index.search(text)
    except QueryError as e:  # a normal answer for the user, not a failure
        assert "\ud800" not in e.message and e.message.encode("utf-8")
    else:
        assert page.query == well_formed(page.query) and "\ufffd" in page.query
        assert bool(page.hits) == finds
        assert not finds or "chess" in page.hits[0].paper.abstract
    paper, others = seed_index.resolve(text)
    assert paper is None or finds
    assert isinstance(others, list)
    try:
        related = seed_index.related(text)
    except QueryError:
        return
    assert "\ufffd" in related.query


def test_well_formed_replaces_each_surrogate_and_nothing_else() -> None:
    assert well_formed("caf\udce9 \ud83d\ude00 é 😀") == "caf\ufffd \ufffd\ufffd é 😀"
    assert well_formed("plain") == "plain"
