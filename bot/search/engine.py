"""SearchIndex: the read side — search, lookups, similar papers.

Every call reads ``DIR/CURRENT`` first, so a running bot sees a new build on
its next call. Searchers are never refreshed (``Searcher.refresh()`` is broken
in whoosh-reloaded 2.7.5; docs/platform-facts.md "Whoosh"): a call borrows a searcher of
the live generation — generations never change once published — from a small
per-generation pool (opening one costs ~1.5 ms), uses it alone, copies results
out as ``Paper`` objects and gives it back. One ``SearchIndex`` is safe to
share between threads; the live generation's index, lexicon and norms are
cached, and an older generation's searchers close as soon as none is in use
(``generation.live_generation``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from whoosh import query as Q

from bot.core.models import Examples, Hit, Meant, Paper, QueryError, SearchPage
from bot.search import examples, matchset, resolving
from bot.search.index import layout, page_cache
from bot.search.index.generation import Generation, live_generation
from bot.search.index.schema import paper_from_json
from bot.search.query import parser, spelling
from bot.search.query.compile import Compiler
from bot.search.query.fit import QueryFit
from bot.search.query.plan import Compiled, Plan
from bot.search.query.word_readings import is_english
from bot.search.resolving import linked_docs
from bot.search.scoring.hits import to_hits
from bot.search.scoring.impacts import impacts_of
from bot.search.scoring.knobs import DEFAULT, DEFAULT_FIELDS, Ranking
from bot.search.scoring.phrases import MAX_PHRASE_CHECKS
from bot.search.scoring.rank import Found, pin, rank
from bot.search.scoring.rank import notes as notes_of
from bot.search.scoring.similar import SharedTerms, similar_query, stem_counts
from bot.search.vectors import PaperVectors, read_vectors, readable

T = TypeVar("T")

#: A query of at most this many words, phrases or groups is "a few words": the
#: papers holding all of them are counted and ranked first (docs/search.md "Counts").
SHORT_QUERY = 3
#: Largest page and deepest result reachable by paging.
MAX_LIMIT = 100
MAX_DEPTH = 1000


def _words_beside_links(searcher, text: str, linked: list[int]) -> tuple[str | None, list[str]]:
    """``(words, notes)``: the words of ``text`` without its links and DOIs
    (``resolving.without_links``: "https", "doi", "org" are never searched),
    or None when only links that name papers here (``linked``) remain.

    Args:
        searcher: an open Whoosh searcher of the generation.
        text: the query as typed.
        linked: the docnums of the papers its links and ids name.

    Raises:
        QueryError: the text is only links and none names a paper here.
    """
    words = resolving.without_links(text, ids=bool(linked))
    if words == " ".join(text.split()):
        return text, []
    old = "doi_key" not in searcher.schema and resolving.dois(text)
    rebuild = " This index was built before DOIs were indexed: rebuild it with `paperbot index build`." if old else ""
    if words.strip(" .,;:!?") == "":
        if linked:
            return None, []
        raise QueryError("That link names no paper in this index." + rebuild, example="a title or some of its words")
    return words, ([] if linked else ["The link names no paper in this index; searched your other words." + rebuild])


def _all_words(ranked, linked_only: bool) -> int | None:
    """``SearchPage.all_words``: the papers a link names, the papers with a
    quoted phrase, or those with all of a short query's words; else None."""
    if linked_only:
        return ranked.total
    return ranked.exact if ranked.exact is not None else ranked.complete


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class SearchIndex:
    """Search and look up papers in the live generation of ``index_dir``.

    Args:
        index_dir: the index container directory (docs/interfaces.md "Index directory layout").
        ranking: query-time settings; ``knobs.DEFAULT`` when None.

    Every method raises ``IndexMissing`` when the directory has no index.
    """

    def __init__(self, index_dir: Path, *, ranking: Ranking | None = None) -> None:
        self.index_dir = Path(index_dir)
        self.ranking = ranking or DEFAULT
        self._cache: dict[str, Generation] = {}
        self._lock = threading.Lock()
        self._matches: dict[tuple[str, str], list[str]] = {}
        self._vectors_lock = threading.Lock()
        self._read_ahead: dict[str, page_cache.ReadAhead] = {}  # by generation name (warm)

    # --- generations ---------------------------------------------------------

    def _generation(self) -> Generation:
        path = layout.current_path(self.index_dir)
        with self._lock:
            return live_generation(self._cache, path)

    @contextlib.contextmanager
    def _searcher(self):
        """Yield ``(generation, searcher)`` for the live generation; the
        searcher is this caller's alone until the block ends."""
        gen = self._generation()
        searcher = gen.acquire()
        try:
            yield gen, searcher
        finally:
            gen.release(searcher)

    # --- search ----------------------------------------------------------------

    def search(self, text: str, *, limit: int = 10, offset: int = 0, correct: bool = True) -> SearchPage:
        """Run a user query and return one page of results.

        Args:
            text: the query (see ``bot.search.query.parser`` for the syntax); cut to
                4,000 characters with a note.
            limit: page size, 1..100.
            offset: results to skip (0-based), at most 1000 - limit.
            correct: False runs the query exactly as typed: no automatic
                spelling correction and no suggestion ("search instead for",
                and later pages of such a search).

        Returns:
            A ``SearchPage``: hits best first (ties by id), ``total``,
            ``took_ms``; ``corrected_query`` + ``suggestion`` when the results
            are for a spelling correction of unknown words.

        Raises:
            QueryError: the query cannot run (message + example for the user).
        """
        started = time.perf_counter()
        limit = max(1, min(int(limit), MAX_LIMIT))
        offset = max(0, min(int(offset), MAX_DEPTH - limit))
        with self._searcher() as (gen, searcher):
            linked = linked_docs(searcher, parser.cut(text)[0])
            words, link_notes = _words_beside_links(searcher, text, linked)
            if words is None:  # links only, each naming a paper here
                parsed = parser.ParsedQuery(text=text.strip(), clauses=())
                found = Found(
                    compiled=Compiled(plan=Plan()),
                    ranked=rank(searcher, gen.norms, Compiled(plan=Plan()), 1, self.ranking),
                )
            else:
                parsed = parser.parse(words)
                found = self._find(gen, searcher, parsed, offset + limit, correct)
            found.ranked = pin(found.ranked, linked, offset + limit)
            hits = to_hits(searcher, found.ranked, found.compiled, offset, offset + limit)
        notes = list(parsed.notes) + link_notes + notes_of(found.ranked, MAX_PHRASE_CHECKS)
        return SearchPage(
            query=parsed.text,
            total=found.ranked.total,
            offset=offset,
            limit=limit,
            hits=tuple(hits),
            took_ms=(time.perf_counter() - started) * 1000,
            suggestion=found.suggestion,
            corrected_query=found.corrected,
            notes=tuple(notes),
            confident=found.ranked.confident,
            best_matched=found.ranked.content,
            all_words=_all_words(found.ranked, linked_only=not parsed.clauses),
        )

    def _find(self, gen: Generation, searcher, parsed: parser.ParsedQuery, want: int, correct: bool) -> Found:
        """Compile ``parsed`` once and rank it — unless words no field knows
        have a sure spelling correction (``spelling.correct``: it fits the
        other words clearly best) that finds something (``correct`` only):
        then the correction runs instead; an unsure one is only suggested."""
        r = self.ranking
        compiler = Compiler(searcher, gen.lexicon, r)
        compiled = compiler.compile(parsed)
        suggestion = None
        correct = correct and len(parser.leaves(parsed.clauses)) <= r.spell_max_words
        names = lambda word: compiler.name_word([word])  # noqa: E731 (never a name as target)

        def corrected(text: str) -> Found | None:
            plan = Compiler(searcher, gen.lexicon, r).compile(parser.parse(text))
            ranked = rank(searcher, gen.norms, plan, want, r, fill=True, tiers=SHORT_QUERY)
            return Found(compiled=plan, ranked=ranked, corrected=text, suggestion=text) if ranked.scored else None

        if correct and compiled.unknown:
            fixed = spelling.correct(
                gen.lexicon, parsed, compiled.unknown, r, compiled.unusual, names, QueryFit(searcher, compiler.stems)
            )
            if fixed is not None and not fixed.sure:
                suggestion = fixed.text  # no candidate fits clearly better: "Did you mean", the query as typed
            elif fixed is not None and (found := corrected(fixed.text)):
                return found
        elif correct and compiled.unusual:
            suggestion = spelling.hint(gen.lexicon, parsed, compiled.unusual, r, names)
        ranked = rank(searcher, gen.norms, compiled, want, r, fill=True, tiers=SHORT_QUERY)
        return Found(compiled=compiled, ranked=ranked, suggestion=suggestion)

    def related(self, text: str, *, limit: int = 10) -> SearchPage:
        """Papers most like ``text`` (a message, a pasted abstract).

        The text is read as prose (``parser.prose``: Slack tokens and code
        stripped, no operators, fields, exclusions or spelling correction)
        and ranked as a search of all its words; papers whose link or source
        id the text contains come first, with a note naming them.

        Args:
            text: the message or pasted text, read as prose.
            limit: papers wanted (1 to ``MAX_LIMIT``).

        Raises:
            QueryError: no words at all.
        """
        started = time.perf_counter()
        limit = max(1, min(int(limit), MAX_LIMIT))
        with self._searcher() as (gen, searcher):
            linked = linked_docs(searcher, text)
            words, _ = _words_beside_links(searcher, text, linked)
            try:
                parsed = parser.prose(words or "")
                compiled = Compiler(searcher, gen.lexicon, self.ranking).compile(parsed)
            except QueryError:
                if not linked:
                    raise
                parsed = parser.ParsedQuery(text=text.strip(), clauses=())
                compiled = Compiled(plan=Plan())  # only the link, or stop words beside it
            ranked = pin(rank(searcher, gen.norms, compiled, limit, self.ranking), linked, limit)
            hits = to_hits(searcher, ranked, compiled, 0, limit)
        notes = list(parsed.notes)
        if linked:
            named = ", ".join(h.paper.id for h in hits[: len(linked)])
            notes.append(f"First: the paper your text links to ({named}).")
        return SearchPage(
            query=parsed.text,
            total=ranked.total,
            offset=0,
            limit=limit,
            hits=tuple(hits),
            took_ms=(time.perf_counter() - started) * 1000,
            notes=tuple(notes),
            confident=ranked.confident,
        )

    # --- lookups ---------------------------------------------------------------

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id (case-insensitive), or None."""
        found = self._lookup("key", paper_id.strip().casefold(), 2)
        return ([p for p in found if p.id == paper_id.strip()] or found or [None])[0]

    def at(self, docs: list[tuple[int, str]]) -> list[Paper | None]:
        """The papers of ``(docnum, id)`` pairs (docnums of ``PaperVectors``): read by
        docnum, ~50 times cheaper than ``get``; a docnum that holds another paper now
        (a newer generation) is looked up by its id; an id gone is None.

        Args:
            docs: ``(docnum, paper id)`` pairs.
        """
        out: list[Paper | None] = []
        with self._searcher() as (_, searcher):
            n = searcher.doc_count_all()
            for d, pid in docs:
                paper = paper_from_json(searcher.stored_fields(d)["doc"]) if 0 <= d < n else None
                out.append(paper if paper is not None and paper.id == pid else None)
        return [p if p is not None else self.get(pid) for p, (_, pid) in zip(out, docs)]

    def by_name(self, name: str) -> list[Paper]:
        """Papers whose name equals ``name`` case-insensitively, sorted by id."""
        return self._lookup("name_key", name.strip().casefold(), 50)

    def _lookup(self, fieldname: str, value: str, limit: int) -> list[Paper]:
        if not value:
            return []
        with self._searcher() as (_, searcher):
            docnums = list(searcher.docs_for_query(Q.Term(fieldname, value)))[:limit]
            papers = [paper_from_json(searcher.stored_fields(d)["doc"]) for d in docnums]
        return sorted(papers, key=lambda p: p.id)

    def by_source(self, source_id: str) -> list[Paper]:
        """Papers whose source id equals ``source_id`` case-insensitively."""
        return self._lookup("source_key", source_id.strip().casefold(), 2)

    def linked(self, text: str) -> list[Paper]:
        """Papers whose link or source id ``text`` names (``links``), in order, at most 5."""
        with self._searcher() as (_, searcher):
            return [paper_from_json(searcher.stored_fields(d)["doc"]) for d in linked_docs(searcher, text)]

    def mentioned(self, text: str) -> Meant:
        """What a mention names by link, id or name (``resolving.mentioned``)."""
        return resolving.mentioned(self, text)

    def resolve(self, text: str) -> tuple[Paper | None, list[Paper]]:
        """What ``show``/``similar`` mean by ``text`` (docs/interfaces.md "/paper slash command").

        Order (``resolving``): exact id -> a paper's link or source id anywhere
        -> source id -> unique name of the link-free text -> best search hit
        of the link-free text matching at least ``ranking.resolve_min_coverage``
        of its words. Several equal -> ``(None, those)``; links naming no paper
        here, alone -> ``(None, [])``. Never raises QueryError.
        """
        text = " ".join(text.split())
        if not text:
            return None, []
        paper, choices, done = resolving.linked_or_named(self, text)
        if done:
            return paper, choices
        try:
            parsed = parser.parse(resolving.without_links(text))
            with self._searcher() as (gen, searcher):
                compiled = Compiler(searcher, gen.lexicon, self.ranking).compile(parsed)
                result = rank(searcher, gen.norms, compiled, 5, self.ranking)
                best = [d for s, d in result.scored if s == result.scored[0][0]]
                if not best or result.coverage(best[0]) < self.ranking.resolve_min_coverage:
                    return None, []
                papers = [paper_from_json(searcher.stored_fields(d)["doc"]) for d in best]
        except QueryError:
            return None, []
        return (papers[0], []) if len(papers) == 1 else (None, papers)

    def similar(self, paper_id: str, limit: int = 5, offset: int = 0) -> list[Hit]:
        """Papers most like ``paper_id``'s title and abstract, best first.

        The title (twice) and abstract are one prose query
        (``bot.search.scoring.similar.similar_query``); of its best
        ``ranking.similar_pool`` papers (more when the page asks for more), those
        sharing at least two of the paper's key terms are listed, in order
        (``similar.SharedTerms``) — fewer than ``limit`` rather than a paper that
        shares one word. The paper itself is never returned. Unknown id -> ``[]``.

        Args:
            paper_id: the paper's id (any case).
            limit: papers wanted (1 to ``MAX_LIMIT``).
            offset: papers skipped first (the page: at most ``MAX_DEPTH - limit``).
        """
        limit = max(1, min(int(limit), MAX_LIMIT))
        offset = max(0, min(int(offset), MAX_DEPTH - limit))
        r = self.ranking
        with self._searcher() as (gen, searcher):
            docnums = list(searcher.docs_for_query(Q.Term("key", paper_id.strip().casefold())))
            if not docnums:
                return []
            me = docnums[0]
            paper = paper_from_json(searcher.stored_fields(me)["doc"])
            compiled = similar_query(searcher, gen.lexicon, paper, r)
            if compiled is None:
                return []
            ranked = rank(searcher, gen.norms, compiled, max(r.similar_pool, 2 * (offset + limit)), r, exclude=me)
            shared = SharedTerms(searcher, stem_counts(gen, searcher.reader()), paper, r)
            kept = []
            for score, docnum in ranked.scored:
                if shared.holds(paper_from_json(searcher.stored_fields(docnum)["doc"])):
                    kept.append((score, docnum))
                    if len(kept) >= offset + limit:
                        break
            ranked.scored = kept
            return to_hits(searcher, ranked, replace(compiled, highlight=shared.marks), offset, offset + limit)

    def ids(self) -> list[str]:
        """Every paper id, sorted (cached per generation: ~0.1 s at 100k)."""
        with self._searcher() as (gen, searcher):
            if gen.ids is None:
                reader = searcher.reader()
                column = reader.column_reader("id")
                deleted = gen.norms.deleted(reader)
                gen.ids = sorted(_text(v) for d, v in enumerate(column) if d not in deleted)
            return list(gen.ids)

    def examples(self) -> Examples:
        """Method names and topics for help and hints, drawn from this index
        (``bot.search.examples.choose`` on at most ``examples.SAMPLE`` papers spread
        evenly over it), cached per generation; empty for an empty index."""
        with self._searcher() as (gen, searcher):
            if "examples" not in gen.derived:
                reader = searcher.reader()
                deleted = gen.norms.deleted(reader)
                live = [d for d in range(reader.doc_count_all()) if d not in deleted]
                step = max(1, len(live) // examples.SAMPLE)
                papers = (paper_from_json(reader.stored_fields(d)["doc"]) for d in live[::step])
                gen.derived["examples"] = examples.choose(papers)
            return gen.derived["examples"]

    def vectors(self) -> PaperVectors:
        """Every paper's term counts of title and abstract (``bot.search.vectors``),
        read from the live generation now (seconds at 100k papers: cache what you
        make of them with ``from_vectors``)."""
        with self._searcher() as (gen, searcher):
            return read_vectors(searcher, gen.norms)

    def from_vectors(self, key: str, make: Callable[[PaperVectors], T]) -> T:
        """``make(vectors)`` of the live generation, made once per generation and
        kept with it (dropped when a build or ``index add`` publishes a new one);
        the vectors themselves are not kept.

        Args:
            key: names what ``make`` makes (one value per key and generation).
            make: builds it from the generation's ``PaperVectors``.
        """
        with self._searcher() as (gen, searcher):
            with self._vectors_lock:  # not gen.lock: searches go on while one thread reads
                if key not in gen.derived:
                    gen.derived[key] = make(read_vectors(searcher, gen.norms))
                return gen.derived[key]

    def readable(self, text: str, stems: list[str]) -> list[tuple[str, tuple[str, ...]]]:
        """The words (or two-word phrases) ``text`` spells ``stems`` with
        (``bot.search.vectors.readable``), most important first.

        Args:
            text: a paper's title and abstract.
            stems: stems of ``PaperVectors.terms``, most important first.
        """
        with self._searcher() as (_, searcher):
            analyzer = searcher.schema["all" if "all" in searcher.schema else "abstract"].analyzer
        return readable(analyzer, text, stems)

    def match_all(self, topic: str) -> list[str]:
        """Ids (sorted) of the papers with all of ``topic``'s words, phrases and ``OR``
        groups (``bot.search.matchset``), cached per generation; QueryError if it cannot run."""
        with self._searcher() as (gen, searcher):
            return matchset.cached(self._matches, searcher, gen, self.ranking, topic)

    def papers(self) -> Iterator[Paper]:
        """Every paper of the live generation, in index order, one at a time (for
        tables such as ``bot.service.paper_links.PaperLinks``; iterate to the end or ``close()`` it)."""
        with self._searcher() as (gen, searcher):
            yield from gen.papers(searcher.reader())

    def warm(self, read_ahead: bool = True) -> page_cache.ReadAhead | None:
        """Open the live generation now — lexicon, a searcher, the BM25 norms, the
        impact arrays, the English word list spelling consults — so the first
        search after start-up does not pay for it (~1.1 s at 100k), and the examples
        help and hints show (``examples``); what ``similar`` alone reads is warmed
        apart (``warm_similar``). Then, with ``read_ahead``, start reading the files
        searches read into the page cache in a background thread
        (``bot.search.index.page_cache.read_ahead``: ~420 MB at 100k, under a second
        from a cold disk here; docs/search.md "Speed"), once per generation and
        ``SearchIndex``: after the opening, not before, so it does not slow it.

        Returns that read's handle (``wait()`` for it), or None: no index, or
        ``read_ahead`` False. An unreadable file is a warning, never an error.
        """
        is_english("a")
        with contextlib.suppress(layout.IndexMissing), self._searcher() as (gen, searcher):
            for name in DEFAULT_FIELDS:
                b = self.ranking.field_b.get(name, self.ranking.b)
                gen.norms.get(searcher.reader(), name, self.ranking.k1, b)
            impacts_of(gen.norms)  # the impact arrays' term table (bot.search.scoring.impacts)
        with contextlib.suppress(layout.IndexMissing):
            self.examples()  # help and hints name papers of this index
        if not read_ahead:
            return None
        with contextlib.suppress(layout.IndexMissing):
            path = layout.current_path(self.index_dir)
            with self._lock:
                if path.name not in self._read_ahead:
                    self._read_ahead[path.name] = page_cache.read_ahead(path)
                return self._read_ahead[path.name]
        return None

    def warm_similar(self) -> None:
        """Read or count the key-term counts ``similar`` needs (``similar.StemCounts.kept``),
        so the first "similar" after start-up does not: up to ~19 s of CPU at 100k when the
        generation has no saved counts yet, ~0.2 s when it has (``paperbot serve`` runs
        this on a thread of its own at start-up)."""
        with contextlib.suppress(layout.IndexMissing), self._searcher() as (gen, searcher):
            stem_counts(gen, searcher.reader())

    def count(self) -> int:
        """Number of papers in the live generation."""
        with self._searcher() as (_, searcher):
            return searcher.doc_count()
