"""Topic match sets: every paper that contains *all* of a topic's words.

Ranked search (``SearchIndex.search``) keeps any paper that matches some of
the words and ranks by how much matches; a channel topic (``/paper subscribe
… about QUERY``, docs/interfaces.md "Paper of the day") is a filter instead:

* every word must match (stemmed, in any field; an acronym's expansion or a
  compound spelling counts, as the compiler rewrites them — docs/search.md);
* a run of plain words may also match as one unit ("reinforcement learning"
  ↔ "RL" when the corpus defines the acronym);
* ``"a phrase"`` must occur as typed; ``x OR y`` needs one of the two;
  ``( … )`` groups nest with the same rules; ``-word`` / ``NOT word`` exclude.

Computed exactly (no time limit) with the same scorer as search, so "matches"
means what search means by it. ``SearchIndex.match_all`` caches the result
per index generation (``cached``).
"""

from __future__ import annotations

from dataclasses import replace

from bot.core import budget
from bot.core.models import QueryError
from bot.search.query import parser
from bot.search.query.compile import Compiler
from bot.search.query.parser import QUOTES
from bot.search.query.plan import Plan
from bot.search.scoring.knobs import Ranking
from bot.search.scoring.rank import score
from bot.search.scoring.shared import Scoring

#: Generous: a topic is computed once per generation, never on a request path.
TIME_LIMIT_S = 60.0
MAX_DEPTH = 8


def match_all(searcher, gen, ranking: Ranking, text: str) -> list[str]:
    """Ids of the papers matching every part of ``text``, sorted.

    Args:
        searcher: an open searcher of generation ``gen``.
        gen: ``bot.search.index.generation.Generation`` (its lexicon and norms).
        ranking: query-time settings (its time limit is raised).
        text: the topic, e.g. ``reasoning``, ``"graph neural" OR GNN``.

    Raises:
        QueryError: the topic cannot run (empty, unbalanced, only stop words).
    """
    text, _ = parser.cut(text or "")
    if not text:
        raise QueryError("Give a topic: a few words the papers must contain.", example="reinforcement learning")
    matcher = _Matcher(searcher, gen, replace(ranking, time_limit_s=TIME_LIMIT_S))
    with budget.limit(TIME_LIMIT_S):  # never cut short by a request's budget (bot/core/budget.py)
        docs = matcher.match(text, 0)
    column = searcher.reader().column_reader("id")
    out = []
    for d in docs:
        value = column[d]
        out.append(value.decode("utf-8") if isinstance(value, bytes) else str(value))
    return sorted(out)


def cached(cache: dict, searcher, gen, ranking: Ranking, topic: str) -> list[str]:
    """``match_all`` through ``cache`` (keyed by generation name and the topic with
    its spaces collapsed; cleared past 256 entries), so a rebuild recomputes.

    Args:
        cache: the index's cache of match sets; changed in place.
        searcher: an open searcher of ``gen``.
        gen: the live ``Generation``.
        ranking: query-time settings.
        topic: the topic's text.
    """
    key = (gen.name, " ".join((topic or "").split()))
    if key not in cache:
        if len(cache) > 256:
            cache.clear()
        cache[key] = match_all(searcher, gen, ranking, key[1])
    return list(cache[key])


def tokens(text: str) -> list[tuple[str, str]]:
    """Split a topic into ``(kind, text)``: "word", "phrase" (with its quotes)
    or "group" (the text inside balanced parentheses).

    Raises:
        QueryError: an unbalanced quote or parenthesis.
    """
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in QUOTES:
            j = i + 1
            while j < n and text[j] not in QUOTES:
                j += 1
            if j >= n:
                raise QueryError("A quote is not closed.", example='"graph neural networks"')
            out.append(("phrase", text[i : j + 1]))
            i = j + 1
        elif ch == "(":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            if depth:
                raise QueryError("A parenthesis is not closed.", example="(diffusion OR flow) models")
            out.append(("group", text[i + 1 : j - 1]))
            i = j
        elif ch == ")":
            raise QueryError("A closing parenthesis has no opening one.", example="(diffusion OR flow) models")
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()" + QUOTES:
                j += 1
            out.append(("word", text[i:j]))
            i = j
    return out


class _Matcher:
    def __init__(self, searcher, gen, ranking: Ranking) -> None:
        self.searcher, self.gen, self.r = searcher, gen, ranking

    def match(self, text: str, depth: int) -> set:
        if depth > MAX_DEPTH:
            raise QueryError("The topic nests parentheses too deeply.", example="(a OR b) c")
        conjuncts, excluded = _structure(tokens(text))
        if not conjuncts:
            raise QueryError(
                "Add a word the papers must contain: -word and NOT only leave papers out.", example="attention -sparse"
            )
        result: set | None = None
        for alternatives in conjuncts:
            got: set = set()
            for kind, value in alternatives:
                got |= self.match(value, depth + 1) if kind == "group" else self.fragment(kind, value)
            result = got if result is None else result & got
            if not result:
                return set()
        for kind, value in excluded:
            result -= self.match(value, depth + 1) if kind == "group" else self.fragment(kind, value)
        return result

    def fragment(self, kind: str, text: str) -> set:
        """Papers with the phrase, or all the words, of ``text`` (no operators in it).

        A run of plain words matches as the compiler reads it (a compound or
        an acronym's expansion as one unit) or word by word, wherever each is.
        """
        docs = self._docs(self._compile(text))
        words = text.split()
        if kind == "word" and len(words) > 1:
            each: set | None = None
            for word in words:
                try:
                    got = self._docs(self._compile(word))
                except QueryError:  # a stop word alone: it asks for nothing
                    continue
                each = got if each is None else each & got
            docs |= each or set()
        return docs

    def _compile(self, text: str) -> Plan:
        return Compiler(self.searcher, self.gen.lexicon, self.r, all_words=True).compile(parser.parse(text)).plan

    def _docs(self, plan: Plan) -> set:
        return set(score(Scoring(self.searcher, self.gen.norms, self.r), _required(plan)).scores)


def _required(plan: Plan) -> Plan:
    """``plan`` with every group (and every nested group's groups) required."""
    groups = [(_required(node) if isinstance(node, Plan) else node, True) for node, _ in plan.groups]
    return Plan(groups=groups, excluded=list(plan.excluded), weights=list(plan.weights))


def _structure(toks: list[tuple[str, str]]):
    """Tokens → (conjuncts: [[alternative, …], …], excluded: [token, …]).

    ``x OR y`` puts y beside x; ``AND`` is the default and is dropped;
    ``NOT x`` / ``-x`` go to ``excluded``; runs of single plain words join
    into one fragment so a compound or an acronym's expansion can match.
    """
    conjuncts: list[list[tuple[str, str]]] = []
    excluded: list[tuple[str, str]] = []
    pending_or = pending_not = False
    for kind, value in toks:
        if kind == "word" and value in ("AND", "ANDMAYBE"):
            continue
        if kind == "word" and value == "OR":
            pending_or = bool(conjuncts)
            continue
        if kind == "word" and value in ("NOT", "ANDNOT"):
            pending_not = True
            continue
        if kind == "word" and value[:1] == "-" and len(value) > 1:
            kind, value, pending_not = "word", value[1:], True
        if kind == "word" and value[:1] == "+":
            value = value[1:] or value
        if pending_not:
            excluded.append((kind, value))
        elif pending_or:
            conjuncts[-1].append((kind, value))
        else:
            conjuncts.append([(kind, value)])
        pending_or = pending_not = False
    return _join_runs(conjuncts), excluded


def _join_runs(conjuncts):
    out: list = []
    prev_plain = False
    for alts in conjuncts:
        word = alts[0][1]
        plain = len(alts) == 1 and alts[0][0] == "word" and ":" not in word and not word.endswith("*")
        if plain and prev_plain:
            out[-1] = [("word", out[-1][0][1] + " " + word)]
        else:
            out.append(list(alts))
        prev_plain = plain
    return out
