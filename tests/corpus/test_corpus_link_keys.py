"""Which paper a posted link names: ``link_key``, ``paper_link_keys``, ``link_lookup``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.models import Paper
from bot.corpus import link_key, link_lookup, load_papers, paper_link_keys

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize(
    "url, key",
    [
        ("https://arxiv.org/abs/2403.01234", "arxiv:2403.01234"),
        ("https://arxiv.org/abs/2403.01234v2", "arxiv:2403.01234"),
        ("https://arxiv.org/pdf/2403.01234", "arxiv:2403.01234"),
        ("http://www.arxiv.org/pdf/2403.01234v3.pdf", "arxiv:2403.01234"),
        ("https://export.arxiv.org/abs/2403.01234", "arxiv:2403.01234"),
        ("https://arxiv.org/html/2403.01234v1", "arxiv:2403.01234"),
        ("arxiv.org/abs/2403.01234", "arxiv:2403.01234"),
        ("https://arxiv.org/abs/hep-th/9901001v2", "arxiv:hep-th/9901001"),
        ("https://arxiv.org/abs/math.GT/0309136", "arxiv:math.gt/0309136"),
        ("https://doi.org/10.48550/arXiv.2403.01234", "arxiv:2403.01234"),
        ("https://openreview.net/forum?id=aB3xQ9pLm2", "openreview:aB3xQ9pLm2"),
        ("https://openreview.net/forum?id=aB3xQ9pLm2&noteId=Xy12", "openreview:aB3xQ9pLm2"),
        ("https://openreview.net/pdf?id=aB3xQ9pLm2", "openreview:aB3xQ9pLm2"),
        ("https://doi.org/10.1103/PhysRevD.76.013009", "doi:10.1103/physrevd.76.013009"),
        ("https://dx.doi.org/10.1103/physrevd.76.013009", "doi:10.1103/physrevd.76.013009"),
        ("https://github.com/Example-Lab/draft-trees", "url:github.com/example-lab/draft-trees"),
        ("https://github.com/example-lab/draft-trees.git", "url:github.com/example-lab/draft-trees"),
        ("https://github.com/example-lab/draft-trees/tree/main/src", "url:github.com/example-lab/draft-trees"),
        ("https://www.example.org/paper/7/?utm=x#top", "url:example.org/paper/7"),
    ],
)
def test_link_key_reduces_every_form_to_one_key(url, key):
    assert link_key(url) == key


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "not a url",
        "mailto:someone@example.org",
        "javascript:alert(1)",
        "ftp://example.org/x",
        "https://arxiv.org/list/cs.LG/recent",
        "https://arxiv.org/abs/",
        "https://arxiv.org/abs/not-an-id",
        "https://openreview.net/group?id=ICLR.cc/2024/Conference",
        "https://openreview.net/forum",
        "https://doi.org/",
        "https://doi.org/not-a-doi",
        "https://[::1/",
        "https://localhost/x",
    ],
)
def test_link_key_is_none_for_links_that_name_no_paper(url):
    assert link_key(url) is None


def test_a_paper_s_keys_cover_every_link_form_of_it():
    papers = {
        p.source_id: p
        for p in load_papers([FIXTURES / "arxiv-snapshot.jsonl", FIXTURES / "openreview-api2.json"], workers=0)
    }
    arxiv = paper_link_keys(papers["2403.01234"])
    assert arxiv == {"arxiv:2403.01234", "url:github.com/example-lab/draft-trees"}
    for form in (
        "https://arxiv.org/abs/2403.01234v3",
        "https://arxiv.org/pdf/2403.01234",
        "https://doi.org/10.48550/arXiv.2403.01234",
        "https://github.com/example-lab/draft-trees/blob/main/README.md",
    ):
        assert link_key(form) in arxiv, form
    published = paper_link_keys(papers["0704.0001"])
    assert published == {"arxiv:0704.0001", "doi:10.1103/physrevd.76.013009"}
    assert link_key("https://doi.org/10.1103/PhysRevD.76.013009") in published
    note = paper_link_keys(papers["aB3xQ9pLm2"])
    assert note == {"openreview:aB3xQ9pLm2"}
    assert link_key("https://openreview.net/pdf?id=aB3xQ9pLm2") in note
    assert link_key("https://openreview.net/pdf?id=AB3XQ9PLM2") not in note  # OpenReview ids keep case


def test_a_seed_paper_without_links_has_no_keys():
    assert paper_link_keys(Paper(id="p1", title="T", abstract="A")) == set()


def test_lookup_maps_keys_to_ids_and_leaves_out_shared_ones():
    repo = ("https://github.com/lab/shared",)
    a = Paper(id="a", title="A", abstract="x", url="https://arxiv.org/abs/2401.00001", code_urls=repo)
    b = Paper(id="b", title="B", abstract="y", url="https://openreview.net/forum?id=Qq1", code_urls=repo)
    lookup = link_lookup([a, b])
    assert lookup == {"arxiv:2401.00001": "a", "openreview:Qq1": "b"}
    assert lookup[link_key("https://arxiv.org/pdf/2401.00001v4")] == "a"
    assert link_lookup([a, a]) == {"arxiv:2401.00001": "a", "url:github.com/lab/shared": "a"}
