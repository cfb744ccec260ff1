"""LaTeX fragments to plain Unicode. The only module that imports pylatexenc.

``bot.corpus.clean`` calls this on math spans (``$…$``) and on backslash
command spans only — never on whole abstracts — so ordinary text ("$5",
"50%", "C++") is never seen by a LaTeX parser. A small recursive converter
handles what abstracts actually contain (fonts, symbols, sub/superscripts,
``\\frac``); pylatexenc's ``LatexNodes2Text`` converts the rare macro that
takes arguments (accents, ``\\hat``…), and its macro table supplies the
symbol names (``\\ge`` → ≥). Every call is cached and failure-proof: any
exception falls back to a conservative regex clean.
"""

from __future__ import annotations

import functools
import logging
import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

#: One-argument macros whose output is just their (converted) argument.
_FONT = frozenset(
    """text textbf textit texttt textsc textrm textsf textup textmd textsl textnormal
    emph mathrm mathbf mathit mathsf mathtt mathcal mathscr mathfrak mathnormal boldsymbol bm
    operatorname underline uline mbox hbox ensuremath textsuperscript textsubscript boxed
    mathop mathbin mathrel url""".split()
)
#: Macros dropped together with their arguments (references, layout, colour).
_DROP = {
    "cite": 1,
    "citep": 1,
    "citet": 1,
    "citealp": 1,
    "citeauthor": 1,
    "ref": 1,
    "eqref": 1,
    "autoref": 1,
    "cref": 1,
    "Cref": 1,
    "label": 1,
    "footnote": 1,
    "hspace": 1,
    "vspace": 1,
    "color": 1,
    "includegraphics": 1,
    "thanks": 1,
    "newline": 0,
    "linebreak": 0,
    "today": 0,
    "begin": 1,
    "end": 1,
}
#: Font switches and sizing without arguments: ``{\\bf x}`` → x.
_SWITCH = frozenset(
    """bf it em sc tt rm sf sl bfseries itshape ttfamily scshape rmfamily sffamily
    mdseries upshape normalfont slshape displaystyle textstyle scriptstyle limits nolimits
    nonumber noindent centering small footnotesize tiny large Large huge normalsize xspace
    left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr phantom relax""".split()
)
_OVERRIDES = {
    "quad": " ",
    "qquad": " ",
    "colon": ":",
    "arg": "arg",
    "det": "det",
    "Pr": "Pr",
    "gets": "←",
    "iff": "⟺",
    "land": "∧",
    "neg": "¬",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "S": "§",
    "P": "¶",
    "ddag": "‡",
    "copyright": "©",
    "degree": "°",
    "checkmark": "✓",
    "dag": "†",
    "prime": "′",
    "lor": "∨",
}
_ESCAPES = {
    "%": "%",
    "&": "&",
    "_": "_",
    "#": "#",
    "$": "$",
    "{": "{",
    "}": "}",
    ",": " ",
    ";": " ",
    ":": " ",
    "!": "",
    " ": " ",
    "|": "‖",
    "\\": " ",
    "-": "",
    "/": "",
}
_SUP = dict(zip("0123456789+-−=()nijkmtTxyzabcdefghloprsuvw*′'", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱʲᵏᵐᵗᵀˣʸᶻᵃᵇᶜᵈᵉᶠᵍʰˡᵒᵖʳˢᵘᵛʷ*′′"))
_SUB = dict(zip("0123456789+-−=()aeoxhklmnpstijruv", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ"))
_DOUBLE_STRUCK = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ"}
_PLAIN = re.compile(r"[^\\{}^_~]+")
_NAME = re.compile(r"\\([A-Za-z]+)\*?|\\(.)", re.S)
_FALLBACK_CMD = re.compile(r"\\([A-Za-z]+)\*?|\\(.)", re.S)


def _simple_macros() -> dict[str, str]:
    """Argument-less macros with a plain-string replacement, from pylatexenc's table."""
    table: dict[str, str] = {}
    walker_db = latexwalker.get_default_latex_context_db()
    text_db = get_default_latex_context_db()
    for category in text_db.categories():
        for spec in text_db.iter_macro_specs([category]):
            repl = spec.simplify_repl
            if not isinstance(repl, str) or "%" in repl:
                continue
            walk = walker_db.get_macro_spec(spec.macroname)
            if walk is not None and walk.args_parser.argspec:
                continue
            table[spec.macroname] = repl
    for name in _DROP:
        table.pop(name, None)
    table.update(_OVERRIDES)
    return table


# pylatexenc logs a warning for macros it cannot substitute; our fallback covers them.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)
_SIMPLE = _simple_macros()
_WALKER_DB = latexwalker.get_default_latex_context_db()
_L2T = LatexNodes2Text(math_mode="text")


class _Parser:
    """Recursive-descent converter over one fragment (brace groups, macros, scripts)."""

    def __init__(self, source: str, math: bool) -> None:
        self.s, self.i, self.n, self.math = source, 0, len(source), math

    def run(self, closing: bool = False) -> str:
        out: list[str] = []
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c == "}":
                self.i += 1
                if closing:
                    break
            elif c == "{":
                self.i += 1
                out.append(self.run(closing=True))
            elif c == "\\":
                out.append(self.macro())
            elif c in "^_" and self.math:
                self.i += 1
                out.append(self.script(c))
            elif c == "~":
                self.i += 1
                out.append(" ")
            elif c in "^_":
                self.i += 1
                out.append(c)
            else:
                m = _PLAIN.match(s, self.i)
                out.append(m.group())
                self.i = m.end()
        return "".join(out)

    def _skip_space(self) -> None:
        while self.i < self.n and self.s[self.i].isspace():
            self.i += 1

    def arg(self) -> str:
        """One argument, converted: a brace group, a macro or a single character."""
        self._skip_space()
        if self.i >= self.n:
            return ""
        c = self.s[self.i]
        if c == "{":
            self.i += 1
            return self.run(closing=True)
        if c == "\\":
            return self.macro()
        self.i += 1
        return c

    def raw_arg(self, kind: str) -> str:
        """The source text of one argument of kind ``{``, ``[`` or ``*`` (may be empty)."""
        start = self.i
        self._skip_space()
        if kind == "*":
            if self.i < self.n and self.s[self.i] == "*":
                self.i += 1
                return "*"
            self.i = start
            return ""
        if kind == "[":
            if self.i < self.n and self.s[self.i] == "[":
                end = self.s.find("]", self.i)
                self.i = self.n if end < 0 else end + 1
                return self.s[start : self.i]
            self.i = start
            return ""
        self.arg()
        return self.s[start : self.i]

    def macro(self) -> str:
        m = _NAME.match(self.s, self.i)
        if m is None:  # a lone trailing backslash
            self.i += 1
            return ""
        self.i = m.end()
        name = m.group(1)
        if name is None:
            char = m.group(2)
            if char in _ESCAPES:
                return _ESCAPES[char]
            return _via_pylatexenc("\\" + char + self.raw_arg("{"))
        known = self._with_arguments(name)
        if known is not None:
            return known
        if name in _SIMPLE:
            return _SIMPLE[name]
        spec = _WALKER_DB.get_macro_spec(name)
        if spec is not None and spec.args_parser.argspec:
            raw = "".join(self.raw_arg(k) for k in spec.args_parser.argspec)
            return _via_pylatexenc(m.group(0) + raw)
        # Unknown macro: a custom word (\ours, \ours{}) or a formatting command before a group.
        if self.s.startswith("{}", self.i):
            self.i += 2
            return name
        return "" if self.s.startswith("{", self.i) else name

    def _with_arguments(self, name: str) -> str | None:
        """The text of a macro whose arguments are read here (fonts, links, colours,
        dropped commands, sizing switches, fractions, roots); None for any other."""
        if name in _FONT:
            return self.arg()
        if name == "mathbb":
            content = self.arg()
            return _DOUBLE_STRUCK.get(content, content)
        if name in ("href", "textcolor"):  # the target or colour, then the text shown
            self.raw_arg("{")
            return self.arg()
        if name == "texorpdfstring":
            content = self.arg()
            self.raw_arg("{")
            return content
        if name in _DROP:
            self.raw_arg("*")
            self.raw_arg("[")
            for _ in range(_DROP[name]):
                self.raw_arg("{")
            return ""
        if name in _SWITCH:
            if name in ("left", "right", "middle") or name.startswith(("big", "Big")):
                self._skip_space()
                if self.i < self.n and self.s[self.i] == ".":
                    self.i += 1
            return ""
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            return f"{_wrap(self.arg())}/{_wrap(self.arg())}"
        if name == "sqrt":
            self.raw_arg("[")
            return "√" + _wrap(self.arg())
        return None

    def script(self, mark: str) -> str:
        content = self.arg().strip()
        table = _SUP if mark == "^" else _SUB
        if content and all(ch in table for ch in content):
            return "".join(table[ch] for ch in content)
        if len(content) <= 1 or content.isalnum():
            return mark + content
        return f"{mark}({content})"


def _wrap(text: str) -> str:
    text = text.strip()
    return f"({text})" if len(text) > 1 and any(c in text for c in " +-−*/·×") else text


def _via_pylatexenc(fragment: str) -> str:
    try:
        return _L2T.latex_to_text(fragment)
    except Exception:  # noqa: BLE001 — pylatexenc raises assorted errors on odd input
        return fallback(fragment)


def fallback(fragment: str) -> str:
    """Conservative regex clean of a LaTeX fragment, used when parsing fails.

    Args:
        fragment: LaTeX source, e.g. ``"\\\\textbf{x"`` (unbalanced).

    Returns:
        The fragment with each macro replaced by its symbol (``\\\\ge`` → ≥) or
        dropped, escaped characters unescaped and braces removed. Never raises.
    """

    def repl(m: re.Match) -> str:
        if m.group(1) is not None:
            return _SIMPLE.get(m.group(1), "")
        return _ESCAPES.get(m.group(2), m.group(2))

    return _FALLBACK_CMD.sub(repl, fragment).replace("{", "").replace("}", "")


@functools.lru_cache(maxsize=65536)
def convert_math(content: str) -> str:
    """Convert the inside of one math span to Unicode text.

    Args:
        content: the text between the delimiters, e.g. ``"O(\\\\log n)"``.

    Returns:
        Plain Unicode, e.g. ``"O(log n)"``; ``"\\\\ge"`` → ``"≥"``,
        ``"\\\\sigma_1"`` → ``"σ₁"``, ``"\\\\mathcal{O}(n^2)"`` → ``"O(n²)"``.
        Never raises: on any parse failure the regex ``fallback`` is used.
    """
    try:
        out = _Parser(content, math=True).run()
    except Exception:  # noqa: BLE001 — no abstract may crash parsing (RecursionError…)
        out = fallback(content)
    return " ".join(out.split())


@functools.lru_cache(maxsize=65536)
def convert_command(span: str) -> str:
    """Convert one text-mode LaTeX command span (macro plus its arguments).

    Args:
        span: e.g. ``"\\\\textbf{A}"``, ``"\\\\emph{x}"``, ``"\\\\%"``, ``"\\\\'{e}"``.

    Returns:
        Its text: ``"A"``, ``"x"``, ``"%"``, ``"é"``. Whitespace inside is kept
        as is (the caller normalises). Never raises.
    """
    try:
        return _Parser(span, math=False).run()
    except Exception:  # noqa: BLE001
        return fallback(span)
