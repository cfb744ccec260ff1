"""clean_text: LaTeX and Markdown to Unicode, without touching ordinary text."""

from __future__ import annotations

import pytest

from bot.corpus import clean_text
from bot.corpus.clean import clean


@pytest.mark.parametrize(
    "raw",
    [
        "It costs $5 and saves 50% of the time.",
        "A* search beats BFS; C++ and C# code; 2 * 3 = 6.",
        "We pay $5-$10 per query, or US$3 per hour.",
        "snake_case names and x_i stay; so does ~ 50% and a -- b? no: see below",
    ],
)
def test_ordinary_text_survives(raw):
    out = clean_text(raw)
    kept = [t for t in ("$5", "50%", "A*", "C++", "C#", "2 * 3", "US$3", "snake_case", "x_i", "~ 50%") if t in raw]
    assert kept, raw  # every case checks at least one token
    for token in kept:
        assert token in out, (token, out)


@pytest.mark.parametrize(
    "raw,expected",
    [
        (r"\textbf{A}symmetric \textbf{A}dversarial", "Asymmetric Adversarial"),
        (r"\textit{unfaithful} and \emph{strategic}", "unfaithful and strategic"),
        (r"achieving $\ge$ 99\% accuracy", "achieving ≥ 99% accuracy"),
        (r"up to 2.61$\times$ faster", "up to 2.61× faster"),
        (r"An $O(\log n)$ approximation", "An O(log n) approximation"),
        (r"with $\sigma_i^2=1$ and $\ell$-fold", "with σᵢ²=1 and ℓ-fold"),
        (r"$\mathcal{O}(n^2)$ time, $\mathbb{R}^d$", "O(n²) time, ℝᵈ"),
        (r"$\frac{a+b}{c}$ and $\sqrt{n}$", "(a+b)/c and √n"),
        (r"Code: \href{https://github.com/a/b}{github.com/a/b}.", "Code: github.com/a/b."),
        (r"see \url{https://x.org/y}", "see https://x.org/y"),
        ("**MemOCR**, a *multimodal* agent", "MemOCR, a multimodal agent"),
        ("_reward hacking_ and **1. Sparse:** we", "reward hacking and 1. Sparse: we"),
        (
            "model -- from SFT -- to RL; 13\\%--49\\%; method---x---that",
            "model – from SFT – to RL; 13%–49%; method—x—that",
        ),
        ("``boundary cases\" and \"balance point''", "“boundary cases” and “balance point”"),
        ("run it with --verbose please", "run it with --verbose please"),
        (r"costs \$5 and \& more", "costs $5 and & more"),
        (r"a {\bf bold} move \cite{x} here.", "a bold move here."),
        ("[our code](https://github.com/a/b) works", "our code works"),
    ],
)
def test_markup_resolved(raw, expected):
    assert clean_text(raw) == expected


def test_link_targets_are_reported():
    result = clean(r"Code: \href{https://github.com/a/b}{here} and [x](https://gitlab.com/c/d).")
    assert result.text == "Code: here and x."
    assert result.link_urls == ("https://github.com/a/b", "https://gitlab.com/c/d")


@pytest.mark.parametrize(
    "raw",
    [
        r"\textbf{unclosed brace and $\frac{ half math",
        "{" * 5000 + r"\x",
        r"$\begin{array}{cc} a & b \end{array}$ and \verb|x| and \\",
        "$" * 50,
        r"\href{broken",
        "*" * 100 + "_" * 100,
        "\\",
    ],
)
def test_odd_input_never_raises(raw):
    out = clean_text(raw)
    assert isinstance(out, str)
    assert "\\textbf" not in out


def test_plain_text_only_whitespace_normalised():
    assert clean_text("  many   spaces\nand\tlines  ") == "many spaces and lines"


def test_url_inside_markup_is_untouched():
    raw = "See **https://github.com/a/b_c_d** and https://x.org/a--b."
    assert clean_text(raw) == "See https://github.com/a/b_c_d and https://x.org/a--b."
