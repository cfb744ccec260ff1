"""The Whoosh schema of a generation, and Paper <-> indexed document.

A paper is indexed into searchable fields (title, name, abstract, authors,
venue), exact lookup keys (id, case-folded id, source id, name, DOI) and
one stored JSON blob holding everything needed to rebuild the ``Paper`` — one
stored field keeps per-hit loading to a single small read at 100k papers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import unquote

from whoosh import fields

from bot.core.models import Paper
from bot.search.index import analysis
from bot.search.scoring import knobs


@dataclass(frozen=True)
class IndexRules:
    """The index-time ranking rules a build applies (defaults: the product's).

    Other values exist to measure what each rule is worth
    (``benchmarks/ablation.py``, docs/search.md "Ranking rules, and why");
    the analyzer is pickled into the generation, so queries are analysed
    alike. ``add_to_index`` always writes with the defaults.

    Attributes:
        title_repeat: copies of the title at the start of ``all``.
        all_field: False builds no ``all`` field: words then search title and
            abstract as separate BM25 fields (``compile.OLD_DEFAULT_FIELDS``).
        analyzer: keyword overrides of ``analysis.text_analyzer()`` (e.g.
            ``{"stemmer": "none"}``, ``{"minsize": 2}``, ``{"stoplist": ()}``).
    """

    title_repeat: int = knobs.TITLE_REPEAT
    all_field: bool = True
    analyzer: dict = field(default_factory=dict)


DEFAULT_RULES = IndexRules()


def make_schema(rules: IndexRules = DEFAULT_RULES) -> fields.Schema:
    """The schema every generation is built with (analyzers from ``analysis``)."""
    text = analysis.text_analyzer(**rules.analyzer)
    plain = analysis.plain_analyzer()
    extra = {"all": fields.TEXT(analyzer=text, phrase=False)} if rules.all_field else {}
    return fields.Schema(
        id=fields.ID(unique=True, sortable=True),
        key=fields.ID(),  # case-folded id, for get()
        source_key=fields.ID(),  # case-folded source id
        name_key=fields.ID(),  # case-folded whole name, for by_name()
        doi_key=fields.ID(),  # case-folded bare DOI (issue 18; absent from older generations)
        # No positions (phrase=False): they made every posting block several
        # times bigger to write and to decode; phrases are checked on the
        # stored text instead (bot.search.scoring.postings).
        title=fields.TEXT(analyzer=text, phrase=False),
        name=fields.TEXT(analyzer=text, phrase=False),
        abstract=fields.TEXT(analyzer=text, phrase=False),
        # the free-text field ``all`` (``extra``): title repeated
        # ``knobs.TITLE_REPEAT`` times, then the abstract (not stored; see ``all_text``)
        authors=fields.TEXT(analyzer=plain, phrase=False),
        venue=fields.TEXT(analyzer=plain, phrase=False),
        doc=fields.STORED(),
        **extra,
    )


def paper_to_document(paper: Paper, analyzer=None, rules: IndexRules = DEFAULT_RULES) -> tuple[dict, list]:
    """Keyword arguments for ``writer.add_document`` / ``update_document``.

    Args:
        paper: the paper.
        analyzer: the generation's text analyzer; title and abstract are
            analysed once here and handed to Whoosh pre-analysed.
        rules: the build's index-time rules (title copies, ``all`` or not).

    Returns:
        ``(document, words)`` — ``words`` are the ``analyzer.words()``
        tuples of title and abstract, for the lexicon.
    """
    analyzer = analyzer or analysis.text_analyzer()
    title_words = list(analyzer.words(paper.title, compounds=True))
    abstract_words = list(analyzer.words(paper.abstract, compounds=True))
    title = analysis.Analyzed(paper.title, title_words)
    abstract = analysis.Analyzed(paper.abstract, abstract_words)
    all_terms, repeat = None, rules.title_repeat
    if hasattr(analyzer, "terms"):  # stem each word once for all three fields
        all_terms = analyzer.terms(title) * repeat + analyzer.terms(abstract)
    doc = {
        "id": paper.id,
        "key": paper.id.casefold(),
        "title": title,
        "abstract": abstract,
        "all": analysis.Analyzed(
            all_text(paper.title, paper.abstract), title_words * repeat + abstract_words, all_terms
        ),
        "authors": "; ".join(paper.authors),
        "venue": paper.venue,
        "doc": paper_to_json(paper),
    }
    return with_keys(doc, paper, rules, paper.name), title_words + abstract_words


def with_keys(doc: dict, paper: Paper, rules: IndexRules, name) -> dict:
    """``doc`` completed the same way by both writers: without ``all`` when
    ``rules`` say so, with the source id's and the name's exact-match keys, and
    ``name`` (the text, or the bulk writer's analysed value) when the paper has one.

    Args:
        doc: the document's fields so far; changed in place and returned.
        paper: the paper it is made from.
        rules: the build's index-time rules.
        name: the value of the ``name`` field.
    """
    if not rules.all_field:
        del doc["all"]
    if paper.source_id:
        doc["source_key"] = paper.source_id.casefold()
    if paper.name:
        doc["name"] = name
        doc["name_key"] = paper.name.casefold()
    doi = doi_value(paper.doi)
    if doi:
        doc["doi_key"] = doi
    return doc


_DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:")


def doi_value(doi: str | None) -> str | None:
    """The ``doi_key`` of a paper's DOI: bare, percent-decoded, case-folded (DOIs
    are case-insensitive: https://www.doi.org/the-identifier/resources/handbook/2_numbering);
    None when it is no DOI ("10.1103/PhysRevD.76.013009" -> "10.1103/physrevd.76.013009")."""
    text = unquote((doi or "").strip()).casefold()
    for prefix in _DOI_PREFIXES:
        text = text.removeprefix(prefix).strip()
    return text if text.startswith("10.") and "/" in text else None


def all_text(title: str, abstract: str) -> str:
    """The ``all`` field's text for phrase checks (title once is enough:
    a phrase never spans the " . " between the copies).

    Args:
        title: the paper's title.
        abstract: its abstract.
    """
    return f"{title} . {abstract}"


_TUPLES = ("authors", "keywords", "code_urls", "categories")


def paper_to_json(paper: Paper) -> str:
    """Compact JSON of every Paper field (the stored blob)."""
    data = {k: v for k, v in paper.__dict__.items() if v not in ("", (), None, False)}
    for key in _TUPLES:
        if key in data:
            data[key] = list(data[key])
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def paper_from_json(blob: str) -> Paper:
    """Inverse of :func:`paper_to_json`."""
    data = json.loads(blob)
    data.setdefault("title", "")  # empty values are not stored (paper_to_json)
    data.setdefault("abstract", "")
    for key in _TUPLES:
        if key in data:
            data[key] = tuple(data[key])
    return Paper(**data)
