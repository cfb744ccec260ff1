"""Sentences, acronyms, keywords, title fitting and the parallel parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.corpus import LoadStats, acronyms, keywords, sentences
from bot.corpus.derive import fit
from bot.corpus.parallel import parallel_file_entries
from bot.corpus.records import iter_file_entries


def test_sentences_respect_abbreviations():
    text = (
        "We propose X. It beats Y, e.g. on GSM8K (see Fig. 3) by 5%. Dr. Kernel-14B is strong! "
        "Results et al. Report more. The end"
    )
    assert sentences(text) == [
        "We propose X.",
        "It beats Y, e.g. on GSM8K (see Fig. 3) by 5%.",
        "Dr. Kernel-14B is strong!",
        "Results et al. Report more.",
        "The end",
    ]
    assert sentences("") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Mixture-of-Experts (MoE) models route tokens.", [("moe", "mixture of experts")]),
        (
            "Large Language Models (LLMs) and reinforcement learning (RL) meet Anchored RL (ARL).",
            [("llms", "large language models"), ("rl", "reinforcement learning"), ("arl", "anchored rl")],
        ),
        (
            "we propose Future-Gain Guided Test-Time Learning (FG-TTL) for LLMs",
            [("fg-ttl", "future gain guided test time learning")],
        ),
        (
            "smooth Fictitious Play (sFP) and best-of-N (BoN) sampling",
            [("sfp", "smooth fictitious play"), ("bon", "best of n")],
        ),
        ("results (e.g., Table 2) and GPT (OpenAI) and (Rednote) and (GPT-4)", []),
    ],
)
def test_acronyms(text, expected):
    assert acronyms(text) == expected


def test_keywords_prefer_defined_acronyms_and_repeated_phrases():
    text = (
        "Mixture-of-Experts (MoE) models suffer from poor routing decisions. We adapt MoE "
        "routing decisions at test time. Our routing decisions use self-supervision; MoE "
        "layers keep sparse expert activation while sparse expert activation stays cheap."
    )
    out = keywords(text)
    assert out[0] == "Mixture-of-Experts (MoE)"
    assert "routing decisions" in out and "sparse expert activation" in out
    assert 3 <= len(out) <= 6
    assert "routing" not in out  # contained in a chosen phrase


def test_keywords_leave_out_the_name():
    text = "We propose KIStego, a framework. KIStego hides secrets. KIStego embeds secrets in images."
    assert "KIStego" not in keywords(text, name="KIStego")


@pytest.mark.parametrize(
    "text,limit,expected",
    [
        ("Short title.", 120, "Short title"),
        (
            "Training-free framework substituting cryptographic secrecy with structural redundancy for "
            "Key-Independent, high-resolution secure distribution",
            111,
            "Training-free framework substituting cryptographic secrecy with structural redundancy",
        ),
        (
            "Off-policy evaluation in finite-horizon Markov decision processes when rewards are missing "
            "not at random, which breaks ignorability",
            110,
            "Off-policy evaluation in finite-horizon Markov decision processes when rewards are missing not at random",
        ),
    ],
)
def test_fit(text, limit, expected):
    out = fit(text, limit)
    assert out == expected and len(out) <= limit


def test_parallel_parser_matches_sequential(tmp_path: Path):
    path = tmp_path / "many.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(2500):
            f.write(
                json.dumps(
                    {
                        "id": f"x{i}",
                        "title": f"Paper {i}",
                        "abstract": f"We study case {i}. It improves results by {i}%.",
                    }
                )
                + "\n"
            )
            if i % 1000 == 0:
                f.write("{broken\n")
    seq_stats, par_stats = LoadStats(), LoadStats()
    sequential = [e.paper for e in iter_file_entries(path, seq_stats)]
    parallel = [e.paper for e in parallel_file_entries([path], par_stats, 2)]
    assert parallel == sequential and len(parallel) == 2500
    assert (par_stats.bad_lines, par_stats.files) == (seq_stats.bad_lines, seq_stats.files) == (3, 1)


def _die(*args):
    """Stands in for a parsing worker killed mid-batch (out of memory, kill -9)."""
    import os

    os._exit(9)


def test_a_dead_parsing_worker_is_one_corpus_error(tmp_path: Path, monkeypatch):
    import bot.corpus.parallel as parallel
    from bot.corpus import CorpusError

    path = tmp_path / "many.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"x{i}", "abstract": f"Case {i}."}) + "\n" for i in range(1500)), encoding="utf-8"
    )
    monkeypatch.setattr(parallel, "entries_from_items", _die)
    with pytest.raises(CorpusError, match="a parsing worker process died"):
        list(parallel_file_entries([path], LoadStats(), 2))


def test_forked_helpers_leave_ctrl_c_to_the_parent():
    import multiprocessing
    import os
    import signal

    from bot.core.procs import die_with_parent

    context = multiprocessing.get_context("fork")
    result = context.Queue()

    def child(parent):
        die_with_parent(parent)
        result.put((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)))

    process = context.Process(target=child, args=(os.getpid(),))
    process.start()
    assert result.get(timeout=10) == (signal.SIG_IGN, signal.SIG_DFL)
    process.join(10)
