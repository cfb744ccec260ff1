"""Abstract text to clean Unicode: LaTeX, Markdown emphasis, TeX dashes and quotes.

Rules (docs/interfaces.md "Papers"): ``\\textbf{A}symmetric`` → Asymmetric, ``$\\ge$`` → ≥,
``\\href{u}{t}`` → t (u kept as a link), ``**x**``/``*x*`` → x, ``--`` → –,
while "$5", "50%", "A*" and "C++" in ordinary text survive. How:

1. A fast pre-check (substring tests, no regex): text without
   ``\\ $ * _ ` --``, ``''`` or ``](`` is only whitespace-normalised (about
   80% of arXiv abstracts). Each later regex also runs only when its
   trigger substring occurs, so the cost stays near zero for plain text.
2. URLs, ``\\href``/``\\url`` and Markdown links are set aside first, so no
   later step touches them; link targets are reported for ``code_urls``.
3. Math spans (``$…$`` by Pandoc's rule — opening ``$`` followed by a
   non-space, closing ``$`` preceded by one and not followed by a digit —
   plus ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``) and backslash command spans go to
   ``bot.corpus.latex``; their results are held in placeholders.
4. Markdown emphasis (``bot.corpus.markdown``), then dashes and TeX quotes,
   run on what is left; placeholders are put back; whitespace normalised.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.corpus import latex
from bot.corpus.markdown import strip_emphasis
from bot.corpus.urls import BARE_URL_RE, URL_RE, has_bare_url, has_url, trim

_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(_PH_OPEN + r"(\d+)" + _PH_CLOSE)
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"  # braces nested up to 3 deep
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}\s*(" + _GROUP + ")")
_URL_CMD = re.compile(r"\\url\s*\{([^{}]*)\}")
_MD_LINK = re.compile(r"\[([^\[\]]{1,300})\]\((https?://[^()\s]+)\)")
# Every alternative starts with "$" or "\\" so the regex engine skips other characters fast.
_MATH = re.compile(
    r"\$\$(.{1,2000}?)\$\$"
    r"|\\\[(.{1,2000}?)\\\]"
    r"|\\\((.{1,2000}?)\\\)"
    r"|\$(?=[^\s$])([^$]{0,600}?[^\s$\\])\$(?![\d$])",
    re.S,
)
_BRACE_SWITCH = re.compile(
    r"\{\\(?:bf|it|em|sc|tt|rm|sf|sl|bfseries|itshape|ttfamily|scshape)(?![A-Za-z])\s*"
    r"((?:[^{}]|\{[^{}]*\})*)\}"
)
_COMMAND = re.compile(
    r"\\(?:[A-Za-z]+\*?(?:\s*\[[^\[\]{}]{0,200}\])?(?:\s*" + _GROUP + r")*"
    r"|['\"`^~=.](?:[A-Za-z]|\{[^{}]*\})"
    r"|[^A-Za-z\s])"
)
_LEFTOVER_MACRO = re.compile(r"\\[A-Za-z]+\*?")
_EM_DASH = re.compile(r"---+")
_EN_DASH = re.compile(r"--(?![->])")
_HALF_QUOTED = re.compile(r"“([^“”\"]{1,200})\"|\"([^“”\"]{1,200})”")


def has_markup(raw: str) -> bool:
    """The pre-check: could ``raw`` hold LaTeX, Markdown, TeX dashes/quotes or links?"""
    return (
        "\\" in raw or "$" in raw or "*" in raw or "_" in raw or "`" in raw or "--" in raw or "''" in raw or "](" in raw
    )


@dataclass(frozen=True)
class Cleaned:
    """Result of ``clean``.

    Attributes:
        text: the clean Unicode abstract, whitespace-normalised.
        link_urls: targets of ``\\href``/``\\url``/Markdown links, in order
            (the visible text keeps only the link text).
    """

    text: str
    link_urls: tuple[str, ...] = ()


class _Held:
    """Pieces set aside behind placeholders while the rest of the text is processed."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def hold(self, text: str) -> str:
        self.pieces.append(text)
        return f"{_PH_OPEN}{len(self.pieces) - 1}{_PH_CLOSE}"

    def restore(self, text: str) -> str:
        for _ in range(4):  # pieces can hold placeholders (math inside \textbf{…})
            if _PH_OPEN not in text:
                break
            text = _PLACEHOLDER.sub(lambda m: self.pieces[int(m.group(1))], text)
        return text.replace(_PH_OPEN, "").replace(_PH_CLOSE, "")


def clean(raw: str) -> Cleaned:
    """Clean one abstract (or title) to Unicode text; never raises on odd input.

    Args:
        raw: text from a seed file or a JSON Lines/CSV field.

    Returns:
        ``Cleaned(text, link_urls)``. Example: ``"We present \\\\textbf{AAD-1},
        an \\\\textbf{A}symmetric …"`` → ``"We present AAD-1, an Asymmetric …"``.
    """
    if not raw.isascii():
        raw = unicodedata.normalize("NFC", raw)  # "spa\u0301rse" → "spárse", as queries are
    if not has_markup(raw):
        return Cleaned(" ".join(raw.split()))
    try:
        return _clean(raw)
    except Exception:  # noqa: BLE001 — no abstract may crash a build; stay conservative
        text = latex.fallback(raw) if "\\" in raw or "$" in raw else raw
        return Cleaned(" ".join(strip_emphasis(text).split()))


def clean_text(raw: str) -> str:
    """``clean(raw).text``: LaTeX/Markdown → Unicode, safe for "$5", "50%", "A*".

    Args:
        raw: text, e.g. ``"achieving $\\\\ge$ 99\\\\% of accuracy, **MemOCR**"``.

    Returns:
        E.g. ``"achieving ≥ 99% of accuracy, MemOCR"``. Never raises.
    """
    return clean(raw).text


def _clean(raw: str) -> Cleaned:
    held = _Held()
    links: list[str] = []
    text = raw.replace("\\$", held.hold("$")) if "\\$" in raw else raw
    has_latex = "\\" in text or "$" in text
    text = _hold_links(text, held, links)
    text = _hold_latex(text, held)
    text = strip_emphasis(text)
    text = _dashes_and_quotes(text)
    text = held.restore(text)
    if has_latex:
        text = _latex_leftovers(text)
    return Cleaned(" ".join(text.split()), tuple(links))


def _hold_links(text: str, held: _Held, links: list[str]) -> str:
    """``text`` with LaTeX links (``\\href``, ``\\url``), Markdown links and URLs held
    out of the later steps; each link target is appended to ``links``."""

    def href(m: re.Match) -> str:
        links.append(m.group(1).strip())
        return held.hold(latex.convert_command(m.group(2)))

    def url_cmd(m: re.Match) -> str:
        links.append(m.group(1).strip())
        return held.hold(m.group(1).strip())

    def md_link(m: re.Match) -> str:
        links.append(m.group(2))
        return m.group(1)

    if "\\href" in text:
        text = _HREF.sub(href, text)
    if "\\url" in text:
        text = _URL_CMD.sub(url_cmd, text)
    if "](" in text:
        text = _MD_LINK.sub(md_link, text)
    if has_url(text):
        text = URL_RE.sub(lambda m: _hold_url(m.group(), held), text)
        if has_bare_url(text):
            text = BARE_URL_RE.sub(lambda m: _hold_url(m.group(), held), text)
    return text


def _hold_latex(text: str, held: _Held) -> str:
    """``text`` with its math, brace switches (``{\\bf x}``) and commands converted to
    Unicode and held out of the later steps."""
    if "$" in text or "\\[" in text or "\\(" in text:
        text = _MATH.sub(lambda m: held.hold(latex.convert_math(next(g for g in m.groups() if g is not None))), text)
    if "{\\" in text:
        text = _BRACE_SWITCH.sub(lambda m: held.hold(latex.convert_command(m.group(1))), text)
    if "\\" in text:
        text = _COMMAND.sub(lambda m: held.hold(latex.convert_command(m.group())), text)
    return text


def _latex_leftovers(text: str) -> str:
    """What LaTeX input leaves after conversion: unknown macros, TeX grouping
    braces ({GPT}-4, unbalanced input), the space a dropped \\cite{…} leaves before a mark."""
    if "\\" in text:
        text = _LEFTOVER_MACRO.sub(lambda m: latex.fallback(m.group()), text)
    if "{" in text or "}" in text:
        text = text.replace("{", "").replace("}", "")
    for mark in ",.;:!?":  # "word ." → "word."
        if " " + mark in text:
            text = text.replace(" " + mark, mark)
    return text


def _hold_url(url: str, held: _Held) -> str:
    core = trim(url)
    return held.hold(core) + url[len(core) :]


def _keeps_hyphens(text: str, at: int) -> bool:
    """ "--" that is not a dash: an arrow ("<--", "!--") or a command-line flag (" --verbose")."""
    before = text[at - 1] if at else " "
    after = text[at + 2 : at + 3]
    return before in "-!<" or (before.isspace() and after.islower())


def _dashes_and_quotes(text: str) -> str:
    if "--" in text:
        if "---" in text:
            text = _EM_DASH.sub("—", text).replace(" — ", "—").replace(" —", "—").replace("— ", "—")
        text = _EN_DASH.sub(lambda m: m.group() if _keeps_hyphens(text, m.start()) else "–", text)
    if "``" in text or "''" in text:
        text = re.sub(r"(?<=\S)''", "”", text.replace("``", "“"))
        # TeX quote on one side, a plain " on the other: ``x" → “x”, "x'' → “x”
        text = _HALF_QUOTED.sub(lambda m: f"“{m.group(1) or m.group(2)}”", text)
    return text
