"""Markdown emphasis markers (``**x**``, ``*x*``, ``_x_``) removed from plain text.

Follows CommonMark's delimiter-run rules (spec 0.31, section 6.2 "Emphasis"):
a run of ``*`` or ``_`` can open when it is left-flanking and close when it is
right-flanking (``_`` additionally not inside a word), and only runs that
pair up are removed. So "A* search", "2 * 3", "x_i" and "snake_case" keep
their characters, while "****H***indsight" and "**A**ttribute" lose them.
Simplifications: no "rule of 3"; a single ``*`` between two digits is
never a delimiter (``2*3*4``); an unpaired ``**`` touching a word is dropped
(a dangling bold marker is never meant literally).
"""

from __future__ import annotations

import re
import unicodedata

_RUN = re.compile(r"\*+|_+")


def _kind(ch: str) -> str:
    """'s' for whitespace (or text edge), 'p' for punctuation/symbols, 'w' otherwise."""
    if not ch or ch.isspace():
        return "s"
    return "p" if unicodedata.category(ch)[0] in "PS" else "w"


class _Run:
    __slots__ = ("start", "end", "char", "can_open", "can_close", "left")

    def __init__(self, m: re.Match, text: str) -> None:
        self.start, self.end, self.char = m.start(), m.end(), m.group()[0]
        self.left = self.end - self.start  # characters not yet matched
        before = _kind(text[self.start - 1] if self.start else "")
        after = _kind(text[self.end] if self.end < len(text) else "")
        left_flank = after != "s" and (after != "p" or before != "w")
        right_flank = before != "s" and (before != "p" or after != "w")
        if self.char == "*":
            self.can_open, self.can_close = left_flank, right_flank
            if (
                self.left == 1
                and text[self.start - 1 : self.start].isdigit()
                and text[self.end : self.end + 1].isdigit()
            ):
                self.can_open = self.can_close = False
        else:
            self.can_open = left_flank and (not right_flank or before == "p")
            self.can_close = right_flank and (not left_flank or after == "p")


def strip_emphasis(text: str) -> str:
    """Remove Markdown emphasis delimiters that pair up; keep every other ``*``/``_``.

    Args:
        text: plain text, possibly with ``**bold**``, ``*italic*``, ``_italic_``.

    Returns:
        The text without paired markers: ``"**MemOCR**, a"`` → ``"MemOCR, a"``,
        ``"****H***indsight ***e***xperience*"`` → ``"Hindsight experience"``;
        ``"A* search"`` and ``"x_i"`` are returned unchanged.
    """
    if "*" not in text and "_" not in text:
        return text
    runs = [_Run(m, text) for m in _RUN.finditer(text)]
    removed = [0] * len(runs)
    stack: list[int] = []
    for idx, run in enumerate(runs):
        if run.can_close:
            pos = len(stack) - 1
            while run.left and pos >= 0:
                opener = runs[stack[pos]]
                if opener.char != run.char:
                    pos -= 1
                    continue
                used = min(opener.left, run.left)
                opener.left -= used
                run.left -= used
                removed[stack[pos]] += used
                removed[idx] += used
                del stack[pos + (opener.left > 0) :]  # drop unmatched openers in between
                pos = len(stack) - 1
        if run.left and run.can_open:
            stack.append(idx)
    for idx, run in enumerate(runs):  # an unpaired "**" next to a word is still a marker
        if run.char == "*" and run.left >= 2 and (run.can_open or run.can_close):
            removed[idx] += run.left
    if not any(removed):
        return text
    out: list[str] = []
    last = 0
    for run, gone in zip(runs, removed):
        out.append(text[last : run.start])
        out.append(run.char * (run.end - run.start - gone))
        last = run.end
    out.append(text[last:])
    return "".join(out)
