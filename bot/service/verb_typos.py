"""A mistyped sub-command (``/paper subscibe 09:30 Europe/Berlin``): asked about, not searched.

Rule (docs/interfaces.md "/paper slash command", "A mistyped sub-command"): the first word
is read as a typo of a sub-command ``verb`` (``bot.core.parsing.VERBS``) when all hold:

1. it is not a sub-command itself and is only letters, at least 4 of them;
2. it is close to exactly one ``verb`` — one edit (a letter added, dropped, changed, or two
   neighbours swapped) of a verb of 5 or more letters, two edits of one of 8 or more
   (``subscribe``, ``unsubscribe``), only a swap of the 4-letter ``show`` and ``help``;
3. the rest fits that verb: nothing but filler for a verb that stands alone (``stauts``,
   ``tody please``; ``unsubscibe me``), some words for ``search``/``show``/``similar``, and
   the subscribe grammar (``bot.daily.subscribe_grammar``) for ``subscribe``;
4. the word is in no paper of the index (searched alone, as typed, without spelling
   correction): "status of diffusion", "search engines" and any word of the corpus
   stay searches;
5. the whole text is at most ``PASSAGE_MIN`` characters (a pasted passage is never a command).

The answer is "Did you mean `/paper subscribe 09:30 Europe/Berlin`?" (``did_you_mean``), as for
``/paper today?`` (``bot.core.parsing.SUGGEST``, ``alone_meant``). Pure apart from the one index look-up.
"""

from __future__ import annotations

from bot.core import parsing
from bot.core.index_port import ServiceIndex
from bot.core.models import QueryError
from bot.core.replies import NoticeReply
from bot.daily import subscribe_grammar

#: Longest text (characters) read as a possible mistyped command (``bot.service.service.PASSAGE_MIN``).
PASSAGE_MIN = 300
#: Fewest letters of a first word read as a possible typo.
MIN_LETTERS = 4


def did_you_mean(cmd: parsing.Command, text: str, prefix: str, index: ServiceIndex) -> NoticeReply | None:
    """ "Did you mean `/paper subscribe …`?" when ``cmd`` is a search whose first word is a
    mistyped sub-command (``meant_command``), else None.

    Args:
        cmd: ``text`` parsed (``bot.core.parsing.parse_command``).
        text: what followed ``/paper`` (or ``@paperbot``; a DM's whole text).
        prefix: "/paper", "@paperbot", or "" in a DM.
        index: for ``meant_command``'s look-up.
    """
    if cmd.name != "search" or cmd.cut:
        return None
    meant = meant_command(text, index)
    if meant is None:
        return None
    return NoticeReply(
        text=f"Did you mean `{parsing.as_typed(prefix, meant)}`? To search for these words instead: "
        f"`{parsing.as_typed(prefix, 'search ' + cmd.arg)}`."
    )


def alone_meant(verb: str, prefix: str) -> NoticeReply:
    """ "Did you mean `/paper status`?" for a sub-command that stands alone, typed with
    only filler after it (``bot.core.parsing.SUGGEST``: ``/paper today?``).

    Args:
        verb: the sub-command meant.
        prefix: "/paper", "@paperbot", or "" in a DM.
    """
    return NoticeReply(
        text=f"Did you mean `{parsing.as_typed(prefix, verb)}`? Type it alone to run it, "
        f"or `{parsing.as_typed(prefix, 'search …')}` to search for these words."
    )


def meant_command(text: str, index: ServiceIndex) -> str | None:
    """The command ``text`` most likely meant ("subscribe 09:30 Europe/Berlin"), or None
    when it is not a mistyped sub-command by the module's rule.

    Args:
        text: what followed ``/paper`` (or ``@paperbot``), decoded.
        index: where rule 4 looks the first word up (``search(word, correct=False)``).
    """
    words = " ".join((text or "").split())
    if not words or len(words) > PASSAGE_MIN:
        return None
    first, _, rest = words.partition(" ")
    typed = first.lower().rstrip("?!.,;:…")
    if typed in parsing.VERBS or not typed.isalpha() or len(typed) < MIN_LETTERS:
        return None
    verb = nearest_verb(typed)
    if verb is None or not _fits(verb, rest) or _in_corpus(typed, index):
        return None
    if verb in parsing.ALONE_ONLY and (verb, rest.lower()) not in parsing.PAIRS:
        return verb  # the filler falls away: "tody please" meant `today`
    return f"{verb} {rest}".strip()


def nearest_verb(word: str) -> str | None:
    """The one sub-command ``word`` is a typo of (rule 2 of the module doc), else None.

    ``"subscibe"`` → ``"subscribe"``, ``"stauts"`` → ``"status"``, ``"hlep"`` →
    ``"help"``; ``"stats"`` → ``"status"``; ``"shot"`` → None (a 4-letter verb
    takes only a swap).
    """
    close = [verb for verb in parsing.VERBS if _close(word, verb)]
    return close[0] if len(close) == 1 else None


def _close(word: str, verb: str) -> bool:
    if len(verb) <= 4:
        return len(word) == len(verb) and edits(word, verb) == 1 and sorted(word) == sorted(verb)
    return edits(word, verb) <= (2 if len(verb) >= 8 else 1)


def edits(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions and
    swaps of two neighbouring letters, each one edit
    (https://en.wikipedia.org/wiki/Damerau%E2%80%93Levenshtein_distance).

    Args:
        a: a word.
        b: another word.
    """
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


def _fits(verb: str, rest: str) -> bool:
    """Rule 3: ``rest`` reads as ``verb``'s arguments."""
    if verb == "subscribe":
        try:
            subscribe_grammar.parse_spec(rest)
        except parsing.SubscribeError:
            return False
        return True
    if verb in parsing.WITH_ARGUMENT:
        return bool(rest)
    return (verb, rest.lower()) in parsing.PAIRS or parsing.only_filler(rest)


def _in_corpus(word: str, index: ServiceIndex) -> bool:
    """Rule 4: some paper holds ``word`` (a query the index refuses holds none)."""
    try:
        return index.search(word, limit=1, correct=False).total > 0
    except QueryError:
        return False
