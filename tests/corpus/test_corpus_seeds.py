"""The two real seed files: counts, venue, ids, names, titles, clean abstracts, code links."""

from __future__ import annotations

import re

import pytest

from bot.corpus import load_papers, parse_seed_text, venue_from_header
from bot.corpus.ids import ALPHABET
from tests.kit import SEEDS

ENGLISH, CHINESE = sorted(SEEDS.glob("*.txt"))

LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
MARKDOWN = re.compile(r"\*\*|(?<![\w*])\*[^\s*][^*]*\*(?![\w*])|(?<![\w_])_[^\s_][^_]*_(?![\w_])")


def test_38_papers_19_per_file(seed_corpus):
    assert len(seed_corpus) == 38
    files = [p.source.split("#")[0] for p in seed_corpus]
    assert files.count(ENGLISH.name) == 19
    assert files.count(CHINESE.name) == 19
    assert [p.source for p in seed_corpus[:2]] == [f"{ENGLISH.name}#1", f"{ENGLISH.name}#2"]


def test_venue_from_both_headers(seed_corpus):
    assert ENGLISH.read_text().splitlines()[0] == "ICML 2026 Papers"
    assert CHINESE.read_text().splitlines()[0] == "ICML 2026 论文列表"
    assert {p.venue for p in seed_corpus} == {"ICML 2026"}


@pytest.mark.parametrize(
    "header,venue",
    [
        ("ICML 2026 Papers", "ICML 2026"),
        ("ICML 2026 论文列表", "ICML 2026"),
        ("Accepted papers — NeurIPS 2025", "NeurIPS 2025"),
        ("ACL-IJCNLP 2021 main", "ACL-IJCNLP 2021"),
        ("ICLR2024", "ICLR 2024"),
        ("Papers", ""),
        ("2026", ""),
    ],
)
def test_venue_from_header(header, venue):
    assert venue_from_header(header) == venue


def test_ids_unique_typeable_and_hash_based(seed_corpus):
    ids = [p.id for p in seed_corpus]
    assert len(set(ids)) == 38
    for pid in ids:
        assert re.fullmatch("p[" + ALPHABET + "]{4,}", pid), pid
    assert all(p.source_id is None for p in seed_corpus)


def test_ids_stable_when_files_are_given_in_reverse(seed_corpus):
    forward = {p.abstract: p.id for p in seed_corpus}
    backward = {p.abstract: p.id for p in load_papers([CHINESE, ENGLISH])}
    assert forward == backward


def test_ids_stable_when_paragraphs_are_reordered(tmp_path, seed_corpus):
    header, *paragraphs = ENGLISH.read_text(encoding="utf-8").split("\n\n")
    shuffled = paragraphs[::-1]
    shuffled = shuffled[5:] + shuffled[:5]
    (tmp_path / ENGLISH.name).write_text("\n\n".join([header, *shuffled]), encoding="utf-8")
    moved = {p.abstract: (p.id, p.source) for p in load_papers([tmp_path / ENGLISH.name, CHINESE])}
    original = {p.abstract: (p.id, p.source) for p in seed_corpus}
    assert {a: i for a, (i, _) in moved.items()} == {a: i for a, (i, _) in original.items()}
    assert sum(moved[a][1] != original[a][1] for a in moved) > 10  # sources did move


def test_parse_seed_text_is_pure_and_agrees_with_load(seed_corpus):
    papers = parse_seed_text(CHINESE.read_text(encoding="utf-8"), CHINESE.name)
    assert len(papers) == 19
    loaded = {p.source: p for p in seed_corpus}
    assert all(loaded[p.source] == p for p in papers)


@pytest.mark.parametrize(
    "name,fragment",
    [
        ("KIStego", "Generative Image Steganography"),
        ("AAD-1", "autoregressive image-to-video generation"),
        ("UniSparse", "composite tokens"),
        ("BitTokens", "IEEE 754"),
        ("SpecForge", "EAGLE-3"),
        ("MixReasoning", "LoRA adapter"),
        ("MemOCR", "visual layout"),
        ("KernelGYM", "Kernelbench"),
        ("ACTG-ARL", "MAUVE"),
        ("ZeroUnlearn", "machine unlearning"),
        ("UMEM", "Self-evolving memory"),
        ("FG-TTL", "Future-Gain"),
        ("HeRL", "Hindsight"),
    ],
)
def test_names(with_text, name, fragment):
    assert with_text(fragment).name == name


def test_no_false_names(seed_corpus, with_text):
    names = {p.name for p in seed_corpus}
    assert not names & {"LLM", "LLMs", "RL", "We", "SFT", "GLU", "MoE", "DP"}
    assert with_text("Gated Linear Units (GLU)").name is None
    assert with_text("reasoning evolves in a language model").name is None
    assert with_text("Mixture-of-Experts (MoE) models").name is None


def test_titles_are_derived_short_and_clean(seed_corpus):
    for p in seed_corpus:
        assert p.title_derived
        assert 10 <= len(p.title) <= 120, p.title
        assert p.title[-1] not in ".,;:–— ", p.title
        assert p.title[0].isupper(), p.title
        if p.name:
            assert p.title.startswith(p.name + ": "), p.title


@pytest.mark.parametrize(
    "fragment,title",
    [
        (
            "Generative Image Steganography",
            "KIStego: Training-free framework substituting cryptographic secrecy with structural redundancy",
        ),
        (
            "autoregressive image-to-video generation",
            "AAD-1: Asymmetric Adversarial Distillation framework for One-step autoregressive "
            "image-to-video generation",
        ),
        ("composite tokens", "UniSparse: Unified mechanism that introduces the notion of composite tokens"),
        ("IEEE 754", "BitTokens: Encoding strategy that represents any number as a single token"),
        (
            "reasoning evolves in a language model",
            "How reasoning evolves in a language model – from supervised fine-tuning to reinforcement learning",
        ),
        (
            "Mixture-of-Experts (MoE) models",
            "Data-free, online test-time framework that continuously adapts MoE routing decisions during "
            "text generation",
        ),
        ("Future-Gain", "FG-TTL: Future-Gain Guided Test-Time Learning for LLMs"),
    ],
)
def test_sample_titles(with_text, fragment, title):
    assert with_text(fragment).title == title


def test_no_latex_dollar_or_markdown_survives(seed_corpus):
    for p in seed_corpus:
        for text in (p.abstract, p.title, p.tldr, *p.keywords):
            assert not LATEX_COMMAND.search(text), (p.source, LATEX_COMMAND.search(text))
            assert "$" not in text, p.source
            assert not MARKDOWN.search(text), (p.source, MARKDOWN.search(text))
            assert "\\" not in text and "{" not in text and "}" not in text, p.source


def test_latex_and_markdown_resolved_to_unicode(with_text):
    aad = with_text("Asymmetric Adversarial Distillation")
    assert "We present AAD-1, an Asymmetric Adversarial Distillation framework for One-step" in aad.abstract
    uni = with_text("composite tokens")
    assert "achieving ≥ 99% of full-attention accuracy and up to 2.61× faster" in uni.abstract
    gauss = with_text("PTAS")
    assert "An O(log n) approximation algorithm" in gauss.abstract
    herl = with_text("Hindsight")
    assert "a Hindsight experience guided Reinforcement Learning framework" in herl.abstract
    actg = with_text("MAUVE")
    assert "ACTG (Attribute-Conditioned Text Generation)" in actg.abstract
    assert "(+20% MAUVE over prior work)" in actg.abstract
    chess = with_text("reasoning evolves")
    assert "in a language model – from supervised fine-tuning (SFT) to reinforcement learning (RL) –" in chess.abstract
    smoothing = with_text("diversity collapse")
    assert "a principled method—differential smoothing—that" in smoothing.abstract
    modality = with_text("modality following")
    assert "“boundary cases”" in modality.abstract
    sparse = with_text("sparsity up to 93.75%")
    assert "(~ 50%)" in sparse.abstract


def test_code_urls(with_text, seed_corpus):
    assert with_text("GLU-NTK").code_urls == ("https://github.com/Zemdalk/GLU-NTK",)
    assert with_text("sparse-dc-scaling").code_urls == ("https://github.com/boqian333/sparse-dc-scaling",)
    assert with_text("ToaSt achieves").code_urls == ("https://github.com/SHANNonLab-HUFS/ToaSt",)
    persona = with_text("MCP-Persona is publicly available")
    assert persona.code_urls == ("https://github.com/wwh0411/MCP-Persona",)
    assert persona.abstract.count("https://github.com/wwh0411/MCP-Persona") == 1
    assert with_text("merlresearch").code_urls == ("https://github.com/merlresearch/ANIRA",)
    with_links = [p for p in seed_corpus if p.code_urls]
    assert len(with_links) == 7
    for p in with_links:
        for url in p.code_urls:
            assert url.startswith("https://github.com/") and url[-1] not in ".,;)"


def test_tldr_and_keywords(seed_corpus, with_text):
    for p in seed_corpus:
        assert 0 < len(p.tldr) <= 300
        assert p.tldr.split(" ")[0].lower() in p.abstract.lower()  # extractive (a lead may go)
        assert 3 <= len(p.keywords) <= 6, (p.source, p.keywords)
        assert p.name not in p.keywords
    uni = with_text("composite tokens")
    assert uni.tldr.startswith("We present UniSparse, a unified mechanism")  # no dangling lead
    moe = with_text("Mixture-of-Experts (MoE) models")
    assert moe.keywords[0] == "Mixture-of-Experts (MoE)"
    assert "routing decisions" in moe.keywords


def test_a_file_without_header_keeps_its_first_abstract():
    from bot.corpus import parse_seed_text

    text = (
        "We propose a method. It works.\n\nA second abstract about graphs. Done.\n\nA third abstract about attention."
    )
    assert len(parse_seed_text(text, "plain.txt")) == 3
    assert len(parse_seed_text("Only one abstract about sparse attention methods.", "one.txt")) == 1
    assert len(parse_seed_text("My reading list\n\nAn abstract about graph networks.", "h.txt")) == 1
