"""Long queries in replies (issue 11 point 2): the echo is shortened, the
buttons carry a key, and one note says what happened.

- ``echo(text)``: user text as a reply repeats it — whole up to ``ECHO_MAX``
  characters, else its first ``ECHO_MAX`` or so (cut at a space) and "…".
- ``length_note(reply)``: the one note for an input that was cut
  (``Reply.cut_to``) and/or a query echoed shortened — a single sentence
  when both happened, never two notes (docs/interfaces.md "Rules every reply obeys").
- ``query_value(text, keys)``: the part of a button value that names the query:
  ``{"q": text}`` for a short one (the format of every button drawn before),
  ``{"k": key}`` for a long one the service stored (``ResultsReply.query_keys``,
  ``bot.service.query_keys``), None when a long query has no key (then the button is
  left out: its value could pass Slack's 2,000 characters, docs/slack-rules.md).
"""

from __future__ import annotations

from bot.core.replies import PickListReply, Reply, ResultsReply, carried_inline
from bot.render import mrkdwn as md

#: Longest user text repeated whole in a reply (characters).
ECHO_MAX = 100


def echo(text: str) -> str:
    """``text`` (plain, not escaped) shortened for repeating it in a reply."""
    text = text or ""
    if len(text) <= ECHO_MAX:
        return text
    head = text[:ECHO_MAX]
    space = head.rfind(" ", ECHO_MAX // 2)
    return (head[:space] if space > 0 else head).rstrip() + md.ELLIPSIS


def echoed(reply: Reply) -> tuple[str, ...]:
    """The user texts ``reply`` repeats (its query, the correction)."""
    if isinstance(reply, ResultsReply) and reply.page is not None:
        return tuple(t for t in (reply.page.query, reply.page.corrected_query) if t)
    if isinstance(reply, PickListReply):
        return (reply.query,)
    return ()


def length_note(reply: Reply) -> str | None:
    """The note for a cut input and/or a shortened echo (plain text), or None."""
    long = max((len(t) for t in echoed(reply) if len(t) > ECHO_MAX), default=0)
    if reply.cut_to and long:
        return (
            f"Your input was cut to {reply.cut_to:,} characters, all of them searched; "
            f"this reply repeats only the first {ECHO_MAX}."
        )
    if reply.cut_to:
        return f"Your input was cut to {reply.cut_to:,} characters."
    if long:
        return f"All {long:,} characters of your query were searched; this reply repeats only the first {ECHO_MAX}."
    return None


def query_value(text: str, keys: tuple[tuple[str, str], ...] = ()) -> dict | None:
    """``{"q": text}``, ``{"k": key}`` or None (see the module doc).

    Args:
        text: the query a button repeats.
        keys: ``(text, key)`` pairs of long queries (``ResultsReply.query_keys``).
    """
    key = dict(keys).get(text)
    if key:
        return {"k": key}
    return {"q": text} if carried_inline(text) else None
