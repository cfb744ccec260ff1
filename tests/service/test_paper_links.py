"""Which paper a link points to (bot.service.paper_links): the forms people paste."""

from __future__ import annotations

import pytest

from bot.core.models import Paper
from bot.service.paper_links import PaperLinks, link_key


@pytest.mark.parametrize(
    "url,key",
    [
        ("https://arxiv.org/abs/2401.01234", "arxiv:2401.01234"),
        ("https://arxiv.org/abs/2401.01234v3", "arxiv:2401.01234"),
        ("http://www.arxiv.org/pdf/2401.01234v1.pdf", "arxiv:2401.01234"),
        ("https://arxiv.org/pdf/2401.01234", "arxiv:2401.01234"),
        ("https://arxiv.org/abs/hep-th/9901001v2", "arxiv:hep-th/9901001"),
        ("https://openreview.net/forum?id=AbC123xyz", "openreview:AbC123xyz"),
        ("https://openreview.net/pdf?id=AbC123xyz", "openreview:AbC123xyz"),
        ("https://openreview.net/forum?id=AbC123xyz&amp;noteId=42", "openreview:AbC123xyz"),
        ("https://doi.org/10.1145/3544548.3581234", "doi:10.1145/3544548.3581234"),
        ("https://dx.doi.org/10.1145/ABC.1", "doi:10.1145/abc.1"),
        ("https://github.com/Example-Lab/SparseRoute", "github.com/example-lab/sparseroute"),
        ("https://github.com/Example-Lab/SparseRoute/tree/main/src", "github.com/example-lab/sparseroute"),
        ("https://github.com/example-lab/sparseroute.git", "github.com/example-lab/sparseroute"),
        ("https://huggingface.co/org/model", "huggingface.co/org/model"),
    ],
)
def test_paper_links_reduce_to_one_key(url: str, key: str) -> None:
    assert link_key(url) == key


@pytest.mark.parametrize(
    "url",
    [
        "https://arxiv.org/list/cs.LG/recent",
        "https://openreview.net/group?id=ICLR.cc/2026",
        "https://openreview.net/forum",
        "https://doi.org/",
        "https://github.com/example-lab",
        "https://example.org/abs/2401.01234",
        "ftp://arxiv.org/abs/2401.01234",
        "not a url",
        "",
        "https://[::1/x",
    ],
)
def test_other_links_have_no_key(url: str) -> None:
    assert link_key(url) is None


class Index:
    def __init__(self, papers: list[Paper]) -> None:
        self.by_id = {p.id: p for p in papers}

    def papers(self) -> list[Paper]:
        return list(self.by_id.values())

    def ids(self) -> list[str]:
        return sorted(self.by_id)

    def get(self, paper_id: str) -> Paper | None:
        return self.by_id.get(paper_id)


def test_a_link_finds_its_paper_and_a_shared_repository_finds_none() -> None:
    a = Paper(
        id="pa",
        title="A",
        abstract="x",
        url="https://arxiv.org/abs/2401.00001",
        code_urls=("https://github.com/lab/shared",),
    )
    b = Paper(
        id="pb",
        title="B",
        abstract="y",
        url="https://openreview.net/forum?id=Bb",
        code_urls=("https://github.com/lab/shared", "https://github.com/lab/b-only"),
    )
    index = Index([a, b])
    links = PaperLinks(index)
    assert links.find("https://arxiv.org/pdf/2401.00001v2") == a
    assert links.find("https://github.com/Lab/B-Only/issues") == b
    assert links.find("https://github.com/lab/shared") is None  # two papers: neither
    assert links.find("https://arxiv.org/abs/2401.99999") is None
    c = Paper(id="pc", title="C", abstract="z", url="https://doi.org/10.1/c")
    index.by_id["pc"] = c  # a new generation
    assert links.find("https://doi.org/10.1/C") == c
