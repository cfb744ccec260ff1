"""Every query-time ranking knob (a benchmark sweeps them on BEIR SciFact).

The :class:`Ranking` values take effect on the next search — BM25F
parameters, per-field weights, expansion weights, coordination,
pseudo-relevance feedback (PRF), "similar papers" and spelling limits. Pass a
``Ranking`` to ``SearchIndex(dir, ranking=...)`` to try variants without
editing this file. Index-time text rules live in ``bot.search.index.analysis``.
Why each default: ``docs/search.md`` ("Ranking rules").
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Fields searched by words without a ``field:`` prefix. ``authors`` and
#: ``name_key`` (the whole name) only join a query when the word occurs there.
#: ``all`` is title x TITLE_REPEAT + abstract as one field: one BM25 field
#: beat title and abstract scored apart (SciFact train nDCG@10 0.694 vs 0.669,
#: docs/search.md "Ranking rules, and why").
DEFAULT_FIELDS = ("all", "authors", "name_key")
#: How often the title is repeated in ``all`` (index-time; train 0.7037 with 4
#: vs 0.6976 with 1, docs/search.md).
TITLE_REPEAT = 4


@dataclass(frozen=True)
class Ranking:
    """Query-time ranking settings (no rebuild needed).

    Attributes:
        k1, b: BM25F term-frequency saturation and length normalisation
            (Whoosh's BM25F formula, ``bot.search.scoring.shared``).
        idf: ``"bm25"`` (Lucene's) or ``"whoosh"`` (``bot.search.scoring.shared.idf``).
        field_b: per-field ``b`` overriding ``b`` (titles are short).
        weights: per-field query weight (multiplies that field's BM25 score;
            fields' scores add up); ``name_key`` is the exact whole-name match.
        expansion_weight: weight of an acronym's expansion (or an
            expansion's acronym) relative to the typed form.
        acronyms: ranked search also searches a typed acronym's expansions
            and a typed expansion's acronym (topic match sets always do).
        compounds: ranked search also searches a compound's other spellings
            (test-time / test time / testtime; topic match sets always do).
        compound_min_share: see ``Lexicon.split_form``.
        expansion_phrases: match a multi-word form ("mixture of experts",
            "test-time") as a phrase instead of all its words anywhere (more
            precise; each candidate's stored text is then re-read: slow for
            common words at 100k papers).
        coord: Lucene-style coordination: scores are multiplied by
            ``(matched groups / query groups) ** coord`` (0 turns it off); a
            group is one typed word, phrase, acronym/compound run or
            parenthesised group.
        prf_docs, prf_terms, prf_weight: RM3-like pseudo-relevance feedback
            (0 docs turns it off): add the top ``prf_terms`` key terms of the
            first ``prf_docs`` hits, each weighted ``prf_weight``.
        similar_max_groups, similar_qtf_k3: ``max_groups`` and ``qtf_k3`` of the
            "similar papers" query, the source's title and abstract as prose
            (``bot.search.scoring.similar.similar_query``).
        similar_key_terms, similar_min_shared: a similar paper shares at least
            ``similar_min_shared`` of the source's ``similar_key_terms`` key terms
            (0 turns the rule off; ``similar.SharedTerms``).
        similar_pool: best papers of the query the rule chooses from.
        similar_title_weight: how much a title word counts vs an abstract word in
            the key terms.
        resolve_min_coverage: share of the words a search hit must match for
            ``resolve`` to treat it as the paper meant.
        spell_min_chars: shortest word ever spelling-corrected (4: issue 18's typo
            benchmark, benchmarks/results/typo_bench_2k.txt).
        spell_prefix: leading characters a correction two edits away must share
            (speed; one edit may change any letter).
        prefix_max_terms: most words a ``prefix*`` expands to.
        max_groups: most distinct words/phrases/groups scored for one query:
            the highest ``idf × query weight`` are kept (the bound on the work
            for a pasted text; docs/search.md "Long text").
        qtf_k3: query-term saturation: a word said ``n`` times weighs
            ``(k3 + 1) n / (k3 + n)`` (BM25's k3; Robertson et al., Okapi at
            TREC-3); None weighs it ``n``.
        spell_max_words: queries with more words get no spelling correction
            or suggestion (pasted text: names and symbols are not typos).
        impacts: score plain-word queries on the build's impact arrays
            (``bot.search.scoring.impacts``; same scores and order as the postings
            path, which False forces — for tests and comparisons).
        time_limit_s: stop scoring after this many seconds (a note says the
            results may be incomplete).
    """

    # SciFact numbers below: nDCG@10 on train (809 queries; choices made on
    # train only), measured through this product (benchmarks/relevance.py;
    # the sweeps are summarised in docs/search.md).
    # k1/b 1.2/0.75: train 0.6987; 0.9/0.6: 0.6959; 1.5/0.8: 0.6975
    k1: float = 1.2
    b: float = 0.75
    idf: str = "bm25"  # Lucene idf: train 0.6462 -> 0.6502 (Whoosh idf "whoosh")
    # (the common-terms rule, which dropped papers matching only words in > 5 %
    # of papers, is gone: ranking orders, never hides — docs/search.md)
    # Per-field b and weights are gone (the ablation in docs/search.md
    # "Ranking rules, and why"): title b 0.5 / name b 0.3 reached no query of either
    # benchmark (0 / 0), weights title 2, name 2, name_key 3, authors 1.5
    # cost SciFact train 0.0005 and known-item nothing. Every field: b, weight 1.
    field_b: dict = field(default_factory=dict)
    weights: dict = field(default_factory=dict)
    # Acronyms in ranked search are gone (topic match sets keep them): the
    # typed acronym -> its expansions lost on both (train 0.7049 -> 0.7073,
    # known-item MRR@10 0.9615 -> 0.9625 without it); the expansion -> its
    # acronym held neither bar (train -0.0001, known-item -0.0042 without it).
    acronyms: bool = False
    expansion_weight: float = 0.3  # (only with acronyms=True; train-best 0.3 then)
    # Compounds (test-time / test time / testtime) do not hold on their own
    # (train -0.0035, known-item +0.0008 without them) but removing them takes
    # SciFact test below the issue 11 bar (0.6957 < bm25s + 0.01): kept, a
    # reported conflict (docs/search.md).
    compounds: bool = True
    expansion_phrases: bool = False
    # a joined word ("testtime") also matches its parts ("test-time") only when
    # at least this share of its papers hyphenate it (not "net-works"); set a
    # priori, not tuned: SciFact train 0.7001 -> 0.7010 with it. Ablation: without
    # it train -0.0009, known-item -0.0010 (does not hold; kept with compounds)
    compound_min_share: float = 0.1
    coord: float = 0.0  # coordination 1.0 vs 0: train 0.6792 vs 0.6987
    prf_docs: int = 0
    prf_terms: int = 10
    prf_weight: float = 0.3
    # "similar" (issue 18; benchmarks/results/similar_bench.txt, 10k arXiv papers): the whole
    # text as the query (k3 4 and 200 groups: the primary-category share of the top 5 is
    # 0.613, bm25s 0.611; the 25 key terms it replaced 0.543), then the shared-terms rule
    similar_max_groups: int = 200
    similar_qtf_k3: float | None = 4.0
    similar_key_terms: int = 10
    similar_min_shared: int = 2
    similar_pool: int = 50
    similar_title_weight: float = 2.0
    resolve_min_coverage: float = 0.75
    spell_min_chars: int = 4
    spell_prefix: int = 1
    prefix_max_terms: int = 64
    max_groups: int = 64
    # chosen on SciFact train (in-process sweep): k3 ~0 0.7044, 1 0.7049, 2 0.7048,
    # 4 0.7033, 8 0.7024. Without saturation (None: a word said n times weighs
    # n) train -0.0038, known-item +0.0005: it does not hold on those short
    # queries, but a pasted text's filler words then outweigh its topic
    # (tests/search/scoring/test_ranking_rules.py): kept, a reported conflict.
    qtf_k3: float | None = 1.0
    spell_max_words: int = 32
    time_limit_s: float = 0.8
    impacts: bool = True

    def spell_max_edits(self, word: str) -> int:
        """Edits allowed when correcting ``word``: 1 up to 7 letters, else 2."""
        return 1 if len(word) <= 7 else 2


DEFAULT = Ranking()
