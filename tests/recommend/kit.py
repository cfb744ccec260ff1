"""Hand-made papers on three topics (the ids say which: ``attn3`` is on
attention), drawn with a fixed seed from each topic's words and words every
topic uses."""

from __future__ import annotations

import random

from bot.core.models import Paper

TOPICS = {
    "attn": (
        "sparse attention KV cache transformer decoding tokens context window heads quantization prefill "
        "latency throughput kernel memory pruning speculative draft rotary embedding"
    ).split(),
    "astro": (
        "galaxy cluster redshift stellar halo dark matter telescope spectra supernova quasar nebula "
        "luminosity photometry exoplanet orbit pulsar gravitational lensing cosmic"
    ).split(),
    "chem": (
        "molecular catalyst crystal lattice bonding solvent reaction enzyme polymer ligand oxidation "
        "synthesis electrolyte adsorption perovskite zeolite ionic covalent solubility"
    ).split(),
}
COMMON = "method results show novel approach propose evaluate performance improve study analysis data".split()
PER_TOPIC = 12


def papers() -> list[Paper]:
    """``PER_TOPIC`` papers per topic, ids ``<topic><n>``; every paper of a topic
    also says "sparse attention" three times when it is about attention."""
    rng = random.Random(22)
    out = []
    for topic, words in TOPICS.items():
        for n in range(PER_TOPIC):
            title = " ".join(rng.sample(words, 3)).capitalize()
            body = [rng.choice(words) if rng.random() < 0.6 else rng.choice(COMMON) for _ in range(30)]
            if topic == "attn":
                for at in (3, 12, 21):
                    body[at : at + 2] = ["sparse", "attention"]
            out.append(Paper(id=f"{topic}{n}", title=title, abstract=" ".join(body).capitalize() + "."))
    return out


def topic_of(paper_id: str) -> str:
    """The topic an id names."""
    return paper_id.rstrip("0123456789")
