"""Turning a ParsedQuery into a query ``Plan``, with the corpus-aware rewrites.

* Compounds: ``test-time``, ``test time`` and ``testtime`` all become "the
  words test and time, or the joined word testtime" when the corpus has the
  hyphenated form (the generation's lexicon records it).
* Acronyms: the corpus' "Mixture-of-Experts (MoE)" definitions (lexicon)
  make ``MoE`` also search "mixture of experts", and back.
* Prefixes: ``distill*`` expands over the unstemmed corpus vocabulary.
* Unknown words (in no field's vocabulary) are reported for spelling.
Each positive word, phrase or parenthesised group becomes one plan *group*.
"""

from __future__ import annotations

from bot.search.index.analysis import fold, mostly_lower
from bot.search.query.lexicon import Lexicon, field_prefix
from bot.search.query.parser import LITERAL_CHARS, Clause, ParsedQuery, leaves, nothing_searched
from bot.search.query.plan import AllOf, AnyOf, Compiled, Phrase, Plan, Term, alternatives, loosen, terms_of
from bot.search.query.spelling import RARE_DF
from bot.search.query.weighting import informative, weigh
from bot.search.query.word_readings import CHAT_WORDS, GREETINGS, REQUESTS, is_name, paper_name, plain_word
from bot.search.query.word_readings import bare as _bare
from bot.search.scoring.knobs import DEFAULT_FIELDS, Ranking

TEXT_FIELDS = ("all", "title", "name", "abstract")
#: Fields searched by added forms (acronym expansions, compound spellings).
EXPANSION_FIELDS = ("all", "title", "abstract")
#: Free text in a generation built before the ``all`` field existed.
OLD_DEFAULT_FIELDS = ("title", "abstract", "authors", "name_key")
#: ``field:`` -> the index fields searched.
FIELD_TARGETS = {
    None: DEFAULT_FIELDS,
    "title": ("title",),
    "name": ("name", "name_key"),
    "author": ("authors",),
    "venue": ("venue",),
}
MAX_RUN = 6  # longest word run matched against acronym expansions/compounds


class Compiler:
    """Compiles queries against one open searcher (one per search call).

    Args:
        searcher: an open Whoosh searcher of the generation.
        lexicon: the generation's vocabulary, compounds and acronyms.
        ranking: the query-time settings.
        all_words: compile for a topic match set: a multi-word form needs all its words, and acronyms and compounds
            always add forms.
    """

    def __init__(self, searcher, lexicon: Lexicon, ranking: Ranking, *, all_words: bool = False) -> None:
        #: a multi-word form must match all its words (topic match sets);
        #: otherwise any of them ranks (docs/search.md)
        self.strict = all_words
        #: the corpus' acronyms and compounds add forms to a topic's words
        #: always, to a ranked search only when the ranking asks (docs/search.md)
        self.acronyms_on = all_words or ranking.acronyms
        self.compounds_on = all_words or ranking.compounds
        self.reader = searcher.reader()
        self.text = searcher.schema["abstract"].analyzer
        self.has_all = "all" in searcher.schema
        self.plain = searcher.schema["authors"].analyzer
        self.lexicon = lexicon
        self.acronyms = lexicon.acronyms
        self.reverse = lexicon.reverse
        self.r = ranking
        self.highlight: set[str] = set()
        self.unknown: list[Clause] = []
        self.unusual: list[Clause] = []
        self.chatter: list = []
        self.quoted: list = []  # the nodes of optional "phrases" (plan.loosen)
        self.caps = True

    def compile(self, parsed: ParsedQuery) -> Compiled:
        """Raises QueryError when nothing positive is left to search for."""
        words = [c.text for c in leaves(parsed.clauses) if c.kind == "word"]
        self.caps = mostly_lower(" ".join(words))  # "IT", "US" as acronyms
        plan = weigh(self._sequence(parsed.clauses), self.reader, self.r)
        if not plan.groups:
            raise nothing_searched(parsed)
        words = {_bare(c.text) for c in parsed.clauses if c.kind == "word"}
        greeting = bool(words & GREETINGS) and not words & REQUESTS
        best = informative(plan, self.reader)  # a long text marks its rarest words only
        highlight = (
            self.highlight if best is None else {t for k in best for t in terms_of(plan.groups[k][0], TEXT_FIELDS)}
        )
        loose, phrased = loosen(plan, self.quoted)
        return Compiled(
            plan=plan,
            highlight=highlight,
            unknown=self.unknown,
            unusual=self.unusual,
            chatter=self.chatter,
            greeting=greeting,
            loose=loose,
            phrased=phrased,
        )

    # --- structure ---------------------------------------------------------

    def _sequence(self, clauses) -> Plan:
        plan = Plan()
        for occur, node in self._clause_queries(clauses):
            if occur == "not":
                plan.excluded.append(node)
            else:
                plan.groups.append((node, occur == "must"))
        return plan

    def _clause_queries(self, clauses):
        i = 0
        while i < len(clauses):
            c = clauses[i]
            if _runnable(c):
                j = i
                while j < len(clauses) and _runnable(clauses[j]):
                    j += 1
                yield from self._run(clauses[i:j])
                i = j
                continue
            i += 1
            if c.kind == "group":
                q = self._sequence(c.children)
                q = q if q.groups else None
            elif c.kind == "phrase":
                q = self._phrase(c)
                if c.occur == "should" and q is not None:
                    self.quoted.append(q)
            elif c.prefix:
                q = self._prefix(c)
            else:
                q = self._word(c)
            if q is not None:
                yield c.occur, q

    def _run(self, words):
        """Words in a row: join known compounds / acronym expansions first."""
        i = 0
        folded = [fold(w.text) for w in words]  # once per word, not once per run tried
        hyphen = [k for k, w in enumerate(words) if "-" in w.text] + [len(words)]
        while i < len(words):
            # runs never hold a hyphenated word: only those ending before the next one
            longest = min(MAX_RUN, len(words) - i, next(k for k in hyphen if k >= i) - i)
            for n in range(longest, 1, -1):
                seq = words[i : i + n]
                forms = self._sequence_forms(folded[i : i + n])
                if forms:
                    occur = "must" if any(w.occur == "must" for w in seq) else "should"
                    # "+a +b" asks for both words of the run, as a topic does
                    yield occur, self._forms_query(forms, None, all_words=self.strict or occur == "must")
                    i += n
                    break
            else:
                q = self._word(words[i])
                if q is not None:
                    yield words[i].occur, q
                i += 1

    def _word(self, c: Clause):
        """One word's query (None when nothing of it is searchable)."""
        q = self._forms_query(self._word_forms(c), c)
        if q is not None and (len(c.text) < 2 or _bare(c.text) in CHAT_WORDS):
            self.chatter.append(q)
        return q

    # --- forms: alternative token sequences for one word or word run -------

    def _sequence_forms(self, folded):
        """The forms of a run of words without a hyphen, given folded."""
        norm = " ".join(folded)
        key = self.reverse.get(norm) if self.acronyms_on else None
        if key is not None:
            return [(self._stems(norm), 1.0), ([key], self.r.expansion_weight)]
        if self.compounds_on and self.lexicon.split_form(norm.replace(" ", ""), self.r.compound_min_share) == norm:
            return [(self._stems(norm.replace(" ", "-")), 1.0), (self._stems(norm.replace(" ", "")), 1.0)]
        return None

    def _word_forms(self, c: Clause):
        stems = self._stems(c.text)
        if (
            len(stems) == 1
            and fold(c.text) in self.text.stoplist
            and not any((f, stems[0]) in self.reader for f in TEXT_FIELDS)
        ):
            return []  # "IT" read as an acronym that no paper has
        if not stems or len(c.text) > LITERAL_CHARS:
            return [(stems, 1.0)] if stems else []  # searched literally, nothing else
        forms = [(stems, 1.0)]
        low = fold(c.text)
        if "-" in c.text:
            self._hyphen_forms(low, forms)
        elif len(stems) == 1:
            self._one_stem_forms(c.text, stems[0], low, forms)
        if c.occur != "not" and not c.field:
            self._note_unknown(c, forms, low)
        return forms

    def _hyphen_forms(self, low: str, forms: list) -> None:
        """Add a hyphenated word's joined compound ("testtime") and the
        acronym its parts spell out, to ``forms``."""
        parts = [p for p in low.split("-") if p]
        if self.compounds_on:
            forms.append((self._stems("".join(parts)), 1.0))
        key = self.reverse.get(" ".join(parts)) if self.acronyms_on else None
        if key:
            forms.append(([key], self.r.expansion_weight))

    def _one_stem_forms(self, text: str, stem: str, low: str, forms: list) -> None:
        """Add an acronym's expansions and a compound's hyphenated split
        ("testtime" -> "test-time") to ``forms``."""
        w = self.r.expansion_weight
        if self.acronyms_on and not plain_word(text, self.caps):  # "All" is not ALL
            for exp in self.acronyms.get(stem, ()):
                if (self._stems(exp), w) not in forms:  # "vision transformer(s)": once
                    forms.append((self._stems(exp), w))
        parts = self.compounds_on and self.lexicon.split_form(low, self.r.compound_min_share)
        if parts:
            forms.append((self._stems(parts.replace(" ", "-")), 1.0))

    def _note_unknown(self, c: Clause, forms: list, low: str) -> None:
        """Remember a word no paper has (``unknown``) or a known stem of an
        unseen or rare spelling (``unusual``), for the spelling correction."""
        known = self._known(forms, c.text)
        if known is None:
            self.unknown.append(c)
        elif known == "text" and low.isalpha() and self.lexicon.df.get(low, 0) <= RARE_DF:
            self.unusual.append(c)  # known stem, unseen or rare spelling

    def _known(self, forms, text) -> str | None:
        """Where the word occurs: "names" (authors or a paper's name), "text"
        (title/abstract, as stems) or None."""
        if self._has("authors", self._plain(text)) or ("name_key", text.casefold()) in self.reader:
            return "names"
        for stems, _ in forms:
            for f in TEXT_FIELDS:
                if all((f, s) in self.reader for s in stems):
                    return "text"
        return None

    def name_word(self, terms) -> bool:
        """Whether author-field ``terms`` are a name here (``word_readings.is_name``)."""
        return is_name(self.reader, "all" if self.has_all else "abstract", self.text.stem, terms)

    def _has(self, fieldname, terms) -> bool:
        """True when every term occurs in the field (so fields a word never
        appears in stay out of the plan)."""
        return bool(terms) and all((fieldname, t) in self.reader for t in terms)

    # --- leaf queries -------------------------------------------------------

    def _forms_query(self, forms, c: Clause | None, phrase: bool = False, all_words: bool | None = None):
        """Any form in any target field. ``forms[0]`` is what was typed;
        added forms only search EXPANSION_FIELDS. Several tokens make a Phrase
        for a quoted phrase, else all of them anywhere (unless
        ``ranking.expansion_phrases``): a phrase is confirmed by re-reading
        each candidate's stored text, too slow for common words at 100k.
        ``all_words`` (default: the compiler's ``strict``) makes a typed
        multi-word form need all its words instead of any."""
        if not forms:
            return None
        targets = FIELD_TARGETS[c.field if c else None]
        if targets == DEFAULT_FIELDS and not self.has_all:
            targets = OLD_DEFAULT_FIELDS
        subs = []
        weights = self.r.weights
        phrase = phrase or self.r.expansion_phrases
        all_words = self.strict if all_words is None else all_words
        for i, (stems, weight) in enumerate(forms):
            if not stems:
                continue
            self.highlight.update(stems)
            for f in targets:
                if f in TEXT_FIELDS and (i == 0 or f in EXPANSION_FIELDS):
                    subs.append(_seq(f, stems, weight * weights.get(f, 1.0), phrase, i == 0 and not all_words))
        if c is not None:  # names: only a name, or asked for (field, quotes)
            plain, asked = self._plain(c.text), bool(c.field) or c.kind == "phrase"
            for f in ("authors", "venue"):
                if (
                    plain
                    and f in targets
                    and (c.field or self._has(f, plain))
                    and (f == "venue" or asked or self.name_word(plain))
                ):
                    subs.append(_seq(f, plain, weights.get(f, 1.0), phrase))
            key = c.text.casefold()
            if "name_key" in targets and (
                c.field or ("name_key", key) in self.reader and (asked or paper_name(self.reader, c.text, self.caps))
            ):
                subs.append(Term("name_key", key, weights.get("name_key", 1.0)))
        if not subs:
            return None
        return AnyOf(tuple(subs)) if len(subs) > 1 else subs[0]

    def _phrase(self, c: Clause):
        stems = self._stems(c.text)
        forms = [(stems, 1.0)] if stems else []
        if not forms and not self._plain(c.text):
            return None
        return self._forms_query(forms, c, phrase=True)

    def _prefix(self, c: Clause):
        low = fold(c.text)
        if c.field in ("author", "venue"):
            name = "authors" if c.field == "author" else "venue"
            terms = field_prefix(self.reader, name, low, self.r.prefix_max_terms)
            subs = [Term(name, t) for t in terms]
        else:
            words = self.lexicon.prefix(low, self.r.prefix_max_terms)
            stems = sorted({s for w in words for s in self._stems(w)})
            subs = [q for s in stems for q in alternatives(self._forms_query([([s], 1.0)], c))]
        return AnyOf(tuple(subs)) if subs else None

    def _stems(self, text):
        return [t.text for t in self.text(text, mode="query", caps=self.caps)]

    def _plain(self, text):
        return [t.text for t in self.plain(text, mode="query")]


def _runnable(c: Clause) -> bool:
    return c.kind == "word" and c.field is None and not c.prefix and c.occur != "not" and len(c.text) <= LITERAL_CHARS


def _seq(fieldname, terms, boost, phrase, typed=False):
    """One term; several as a Phrase, or (typed words: ranking never hides a
    paper that has one of them, docs/search.md) any of them — the scores of
    those present add up, so a paper with all of them scores as with AllOf —
    or all of them (an added form: an acronym's expansion, a compound)."""
    if len(terms) == 1:
        return Term(fieldname, terms[0], boost)
    if phrase:
        return Phrase(fieldname, tuple(terms), boost)
    parts = tuple(Term(fieldname, t, boost) for t in dict.fromkeys(terms))
    return AnyOf(parts) if typed else AllOf(parts)
