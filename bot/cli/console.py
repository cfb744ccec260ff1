"""``paperbot console`` — the whole bot in a terminal, no Slack workspace needed.

Reads lines like ``/paper search chess`` or ``@paperbot KIStego`` from a
stream (interactive or piped) and prints each reply as text through the same
``Service`` and ``bot.render`` code the Slack app uses (docs/interfaces.md "CLI").
Acts as team ``CONSOLE_TEAM`` (``bot.core.models``), channel ``C0CONSOLE``, user
``U0CONSOLE``. An entry point (docs/architecture.md "Layers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, TextIO

from bot.core.models import CONSOLE_TEAM, PAGE_SIZE, Context
from bot.core.parsing import user_text
from bot.core.ports import Message
from bot.core.replies import ResultsReply
from bot.render import render, to_text
from bot.render.related import NO_TEXT, RELATED_RESULTS, related_message
from bot.render.unfurl import unfurl
from bot.service.paper_links import PaperLinks
from bot.service.service import Service

CONTEXT = Context(team_id=CONSOLE_TEAM, channel_id="C0CONSOLE", user_id="U0CONSOLE", channel_name="console")

INTRO = (
    "paperbot console — type `/paper help`, `/paper search <words>`, `@paperbot <id|name|words>`,\n"
    "a link to a paper (its preview), `related <a message or paragraph>` (Find related papers),\n"
    "`more` / `back` to page through the last search, `save <id>` / `remove <id>` / `export`\n"
    "for the reading list, `/paper foryou` and `like <id>` / `nope <id>` (More like this / Not for me),\n"
    "`quit` to leave."
)
LINK = re.compile(r"https?://[^\s<>]+")
NO_PREVIEW = "(no preview: no paper in this index has that link; in Slack the link is left alone)"


class ConsolePoster:
    """A ``Poster`` that prints channel posts to the console output."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.count = 0

    def post(self, channel_id: str, message: Message, thread_ts: str | None = None) -> str:
        """Print ``message`` as a post in #console; returns a fake ``ts``.

        Args:
            channel_id: ignored: the console has one channel.
            message: the message to print.
            thread_ts: ignored.
        """
        self.count += 1
        self.write(f"── posted in #console ──\n{to_text(message)}\n")
        return f"{self.count}.000000"

    def find_recent_post(self, channel_id: str, marker: str, oldest_ts: float) -> str | None:
        """The console keeps no history: always None.

        Args:
            channel_id: ignored.
            marker: ignored.
            oldest_ts: ignored.
        """
        return None


@dataclass
class _LastSearch:
    query: str
    offset: int
    exact: bool


class Console:
    """Line-by-line driver. ``handle(line) -> str`` returns the text to print."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.last: _LastSearch | None = None
        self.links = PaperLinks(service.index)

    def handle(self, line: str) -> str | None:
        """Answer one input line; None for blank lines and comments. Surrogates
        (undecodable bytes, PEP 383) are read as U+FFFD, controls and bidi
        overrides are removed (``bot.core.parsing.user_text``), as from Slack."""
        line = user_text(line).strip()
        if not line or line.startswith("#"):
            return None
        low = line.lower()
        if low in ("more", "next", "back", "previous", "prev"):
            return self._page(+1 if low in ("more", "next") else -1)
        if low == "share" or low.startswith("share "):
            arg = line[5:].strip()
            if not arg or " " in arg:
                return "Usage: share <id> — shows what sharing that paper to the channel would post."
            return self._show(self.service.share(arg, CONTEXT, sharer="you"))
        if low == "related" or low.startswith("related "):
            return self._related(line[7:].strip())
        word, _, arg = line.partition(" ")
        if word.lower() in ("save", "remove", "like", "nope") and arg.strip() and " " not in arg.strip():
            return self._on_paper(word.lower(), arg.strip())
        if low == "export":
            export = self.service.reading_list.export(CONTEXT)
            if export is None:
                return "Your reading list is empty: nothing to export."
            return f"(to your DM)\n{export.markdown}\n── {export.filename} ──\n{export.bibtex}"
        if "@paperbot" in low:
            text = re.sub(r"@paperbot\b", " ", line, flags=re.I)
            return "(reply in thread)\n" + self._show(self.service.mention(text, CONTEXT))
        if not low.startswith("/paper") and LINK.search(line):
            return self._previews(LINK.findall(line))
        text = re.sub(r"^/paper\b", "", line, flags=re.I).strip()
        reply = self.service.command(text, CONTEXT)
        if isinstance(reply, ResultsReply) and reply.page is not None:
            q = reply.page.corrected_query or reply.page.query
            self.last = _LastSearch(q, reply.page.offset, False)
        return self._show(reply)

    def _on_paper(self, verb: str, paper_id: str) -> str:
        """``save``/``remove`` (the reading list), ``like`` (*More like this*) and ``nope``
        (*Not for me*: both record the signal, then show the picks again) of one paper."""
        if verb in ("save", "remove"):
            act = self.service.reading_list.save if verb == "save" else self.service.reading_list.remove
            return self._show(act(paper_id, CONTEXT))
        if self.service.index.get(paper_id) is None:
            return f"I have no paper with the id “{paper_id[:40]}”."
        kind = "more" if verb == "like" else "not_for_me"
        self.service.record_signal(CONTEXT.team_id, CONTEXT.user_id, paper_id, kind)
        return self._show(self.service.command("foryou", CONTEXT))

    def _page(self, step: int) -> str:
        if self.last is None:
            return "Nothing to page through yet: search first, e.g. `/paper search sparse attention`."
        if step < 0 and self.last.offset == 0:
            return "Already on the first page."
        offset = max(0, self.last.offset + step * PAGE_SIZE)
        reply = self.service.search(self.last.query, offset=offset, exact=True)
        if isinstance(reply, ResultsReply) and reply.page is not None:
            if step > 0 and not reply.page.hits:
                return "No more results."
            self.last.offset = reply.page.offset
        return self._show(reply)

    def _related(self, text: str) -> str:
        """What *Find related papers* (the message shortcut, bot.slack.listeners.shortcuts) answers."""
        if not any(c.isalnum() for c in text):
            return NO_TEXT
        reply = self.service.related(text, limit=RELATED_RESULTS)
        if isinstance(reply, ResultsReply) and reply.page is not None:
            return "(Find related papers)\n" + to_text(related_message(reply.page))
        return self._show(reply)

    def _previews(self, urls: list[str]) -> str:
        """What Slack would unfurl under a message with these links (bot.slack.listeners.unfurls)."""
        shown = []
        for url in dict.fromkeys(urls):
            paper = self.links.find(url)
            if paper is not None:
                card = Message(text=paper.title, blocks=tuple(unfurl(paper)["blocks"]))
                shown.append(f"(link preview: {url})\n{to_text(card)}")
        return "\n".join(shown[:5]) or NO_PREVIEW

    @staticmethod
    def _show(reply) -> str:
        return to_text(render(reply)).replace(":warning:", "⚠")


def _line_editor(stdin: TextIO) -> Callable[[], str]:
    """``input()`` with line editing and history (readline) on a terminal;
    returns "" at end of input, like ``readline()``."""
    try:
        import readline  # noqa: F401  (enables arrow keys and history for input())
    except ImportError:
        pass

    def read() -> str:
        try:
            return input("paperbot> ") + "\n"
        except EOFError:
            return ""

    return read


def run(service: Service, stdin: TextIO, write: Callable[[str], None], interactive: bool) -> int:
    """Read ``stdin`` to the end (or ``quit``), printing each reply. Returns 0.

    Args:
        service: the ``Service`` to ask.
        stdin: where the lines come from.
        write: prints one answer.
        interactive: a terminal: print the intro and edit lines.
    """
    console = Console(service)
    read = stdin.readline
    if interactive:
        write(INTRO + "\n")
        read = _line_editor(stdin)
    while True:
        try:
            line = read()
        except KeyboardInterrupt:  # Ctrl-C leaves quietly, like Ctrl-D
            write("\n")
            break
        if not line:
            if interactive:
                write("\n")
            break
        if line.strip().lower() in ("quit", "exit", ":q"):
            break
        try:
            out = console.handle(line)
        except Exception as e:  # one bad line never ends the session
            out = f"Sorry, that failed: {type(e).__name__}. The rest of the session is unaffected."
        if out is not None:
            write(out + "\n\n")
    return 0
