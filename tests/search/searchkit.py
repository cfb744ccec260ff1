"""Hand-made papers for the search tests."""

from __future__ import annotations

from bot.core.models import Paper


def paper(pid: str, abstract: str, title: str | None = None, **fields) -> Paper:
    """A Paper with a title taken from the abstract's first words by default."""
    return Paper(id=pid, title=title or " ".join(abstract.split()[:6]), abstract=abstract, **fields)


SMALL = [
    paper(
        "p1",
        "We introduce FlashSparse, a sparse attention kernel for long-context "
        "language models. FlashSparse reduces the quadratic cost of self-attention.",
        name="FlashSparse",
        authors=("Ada Lovelace", "Alan Turing"),
        venue="ICML 2026",
        code_urls=("https://github.com/x/flashsparse",),
        url="https://example.org/p1",
        source_id="2401.00001",
        keywords=("sparse attention", "long context"),
    ),
    paper(
        "p2",
        "Mixture-of-Experts (MoE) models route tokens to experts. Our router "
        "improves test-time adaptation of MoE layers.",
        name="RouteX",
        authors=("Grace Hopper",),
        venue="ICML 2026",
    ),
    paper(
        "p3",
        "Speculative decoding uses a draft model to propose tokens that a large "
        "model verifies in parallel, speeding up decoding.",
        name="DraftKing",
        venue="NeurIPS 2025",
    ),
    paper(
        "p4",
        "Knowledge distillation trains a small student to imitate a large teacher. "
        "We study distillation for test time scaling.",
        venue="NeurIPS 2025",
    ),
    paper(
        "p5",
        "Image steganography hides secret messages in images. A* search and "
        "reinforcement learning (RL) improve the capacity.",
        name="StegoNet",
        venue="ICLR 2026",
    ),
    paper(
        "p6",
        "Graph neural networks for molecules: message passing with attention over bonds.",
        name="MolAttn",
        venue="ICLR 2026",
    ),
]
