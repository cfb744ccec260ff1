"""The one cut of what users type: at most ``MAX_INPUT`` characters are read.

A pasted paragraph or abstract is a query, so input is long by design; longer
input is cut — at a space when one is near, so no word is split — and the reply
says so once (docs/interfaces.md "Rules every reply obeys"; docs/search.md
"Long text"). Every layer that limits user text uses this module: the command
parser (``bot.core.parsing.parse_command``), the service's search
(``bot.service.service.Service.search``: page buttons and the search modal
bring text that did not pass the parser) and the store's kept queries
(``bot.store.queries``: nothing longer is ever searched, so nothing longer is
kept). Leaf module: standard library only.
"""

from __future__ import annotations

#: Longest input read, in characters.
MAX_INPUT = 4000
#: How far back from ``MAX_INPUT`` a space is looked for to cut at (characters).
SPACE_WINDOW = 40


def cut_input(text: str) -> tuple[str, bool]:
    """``(text, was_cut)``: ``text`` cut to ``MAX_INPUT`` characters and stripped.

    The cut falls at the last space within ``SPACE_WINDOW`` characters of the
    limit when there is one (so no word is split), else exactly at the limit.
    Text of ``MAX_INPUT`` characters or fewer is returned unchanged, with
    ``was_cut`` False.
    """
    if len(text) <= MAX_INPUT:
        return text, False
    head = text[:MAX_INPUT]
    space = head.rfind(" ", MAX_INPUT - SPACE_WINDOW)
    return (head[:space] if space > 0 else head).strip(), True
