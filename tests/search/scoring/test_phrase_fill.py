"""Quoted phrases rank first and never hide the papers with their words;
a pasted paragraph's snippets mark its informative words only (issue 11:
ranking orders, it never hides; docs/search.md "Phrases", "Long text")."""

from __future__ import annotations

import pytest

from bot.search import SearchIndex, build_index
from bot.search.scoring.knobs import Ranking
from tests.search.searchkit import paper

FILLER = (
    "In this paper we propose a method and show results using experiments on "
    "several benchmarks; the results show that the method works well. "
)
TOPICS = [
    "graph coloring",
    "protein folding",
    "speech recognition",
    "image retrieval",
    "text summarization",
    "robot grasping",
    "weather forecasting",
    "code search",
    "music generation",
    "traffic prediction",
    "fraud detection",
    "query rewriting",
]


def _papers():
    out = [
        paper(
            "e1",
            FILLER + "A superposition of atomic potentials gives an initial guess "
            "for electronic structure calculations.",
        ),
        paper(
            "e2",
            FILLER + "The superposition of atomic potentials initial guess is "
            "efficient in Gaussian basis sets for electronic structure.",
        ),
        paper(
            "w1",
            FILLER + "Gaussian basis representation of atomic potentials: an "
            "efficient implementation of the initial guess for structure calculations.",
        ),
        paper(
            "s1",
            FILLER + "We hide messages in images with diffusion based image "
            "steganography and a learned watermark decoder.",
        ),
    ]
    out += [paper(f"t{i}", FILLER + f"We study {topic} with neural networks.") for i, topic in enumerate(TOPICS * 3)]
    return out


@pytest.fixture(scope="module")
def fill_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fill") / "index"
    build_index(d, _papers())
    return d


@pytest.fixture(params=[True, False], ids=["impacts", "postings"])
def index(fill_dir, request) -> SearchIndex:
    return SearchIndex(fill_dir, ranking=Ranking(impacts=request.param))


def ids(page):
    return [h.paper.id for h in page.hits]


TITLE = (
    'Comment on "Efficient implementation of the superposition of atomic potentials '
    'initial guess for electronic structure calculations in Gaussian basis sets"'
)


def test_a_title_quoting_another_finds_the_paper_with_its_words(index):
    page = index.search(TITLE)
    assert "w1" in ids(page)[:3]  # has the words, not the phrase: no longer filtered out
    assert page.notes == ("No paper has the exact phrase; these papers match its words.",)
    assert page.total == len(ids(index.search(TITLE.replace('"', ""), limit=100)))


def test_exact_phrases_rank_first_then_the_words(index):
    page = index.search('"superposition of atomic potentials" efficient gaussian', limit=20)
    got = ids(page)
    assert set(got[:2]) == {"e1", "e2"} and got[2] == "w1"  # w1 outscores e1 on the words
    assert page.notes == ("2 papers have the exact phrase; the rest match its words.",)
    scores = [h.score for h in page.hits]
    assert scores[2:] == sorted(scores[2:], reverse=True)


def test_a_phrase_alone_lists_its_exact_matches_first_with_one_total_on_every_page(index):
    page = index.search('"superposition of atomic potentials"', limit=2)
    assert sorted(ids(page)) == ["e1", "e2"] and page.total > 2
    assert page.notes == ("2 papers have the exact phrase; the rest match its words.",)
    more = index.search('"superposition of atomic potentials"', limit=10)
    assert ids(more)[:2] == ids(page) and "w1" in ids(more) and more.total == page.total
    second = index.search('"superposition of atomic potentials"', limit=2, offset=2)
    assert ids(second) == ids(more)[2:4] and second.total == page.total


def test_what_the_user_required_or_excluded_stays_exact(index):
    assert sorted(ids(index.search('+"superposition of atomic potentials" guess'))) == ["e1", "e2"]
    got = ids(index.search('"initial guess structure" -Gaussian'))
    assert got and not {"e2", "w1"} & set(got)
    req = index.search('"atomic superposition" +gaussian', limit=50)
    assert set(ids(req)) == {"e2", "w1"}
    assert req.notes == ("No paper has the exact phrase; these papers match its words.",)


PASTE = (
    "In this paper we propose a method using diffusion models for image steganography: "
    "we show results on several benchmarks, and the experiments show that a learned "
    "watermark decoder recovers hidden messages from images using the method."
)


def test_a_pasted_paragraph_marks_only_its_informative_words(index):
    hit = index.search(PASTE).hits[0]
    assert hit.paper.id == "s1"
    marked = {w.lower() for w in hit.snippet.split("*")[1::2]}
    assert {"steganography", "watermark", "diffusion"} <= marked
    assert not marked & {"paper", "propose", "method", "show", "results", "using"}
    short = index.search("results steganography").hits[0]  # a short query: every word
    assert {"results", "steganography"} <= {w.lower() for w in short.snippet.split("*")[1::2]}
