"""Short keys for long queries, so every button that pages through a search
stays under Slack's 2,000-character ``value`` limit (issue 11 point 2).

A query of up to 300 characters rides in the button as it always did
(``{"q": …}``, ``bot.core.replies.carried_inline``; buttons drawn before this
change hold such values and keep working). A longer one — a pasted
paragraph, up to 4,000 characters — is stored with ``Store.keep_query``
under ``key_of(text)``, the first 20 hex
digits of its SHA-256 (80 bits: two different queries sharing a key is not a
practical risk), and the button carries ``{"k": key}``. The text stored is the
query as the first page ran it, so a later page runs exactly that text and
ranks exactly as the first page did. Every use of a key moves its ``used_at``
on; keys unused for ``KEEP_DAYS`` are purged (at most once an hour per
process), after which such a button asks the user to search again
(docs/interfaces.md "Buttons, App Home, modal"). No Slack or SQL types here.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from datetime import datetime, timedelta
from typing import Callable, Iterable

from bot.core.models import SearchPage
from bot.core.replies import carried_inline
from bot.core.store_port import KeptQueries

log = logging.getLogger(__name__)

KEY_LENGTH = 20
KEY_RE = re.compile(r"[0-9a-f]{%d}" % KEY_LENGTH)
#: Days a key survives its last use (a page button in an old message).
KEEP_DAYS = 30
PURGE_EVERY_S = 3600.0


def key_of(text: str) -> str:
    """The key of a query text: the first ``KEY_LENGTH`` hex digits of SHA-256 of its UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_LENGTH]


class QueryKeys:
    """Keys for long queries, kept in the store.

    Args:
        store: the store's kept queries (``keep_query``, ``query_text``, ``purge_queries``).
        now: the clock (aware UTC datetimes).
        monotonic: seconds for spacing purges (tests inject one).
    """

    def __init__(
        self, store: KeptQueries, now: Callable[[], datetime], monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._now = now
        self._monotonic = monotonic
        self._purged_at: float | None = None

    def keys_for(self, texts: Iterable[str | None]) -> tuple[tuple[str, str], ...]:
        """``(text, key)`` for each text a button cannot carry itself
        (``carried_inline``), each kept or refreshed in the store; short texts
        and None are skipped."""
        out = []
        for text in dict.fromkeys(t for t in texts if t and not carried_inline(t)):
            key = key_of(text)
            self._store.keep_query(key, text, self._now())
            out.append((text, key))
        if out:
            self._purge()
        return tuple(out)

    def for_page(self, page: SearchPage) -> tuple[tuple[str, str], ...]:
        """``keys_for`` the page's query and correction when the page has
        results (else no button needs them). Never raises: when the store
        fails, the failure is logged and no key is given (the render then
        leaves the long query's page buttons out)."""
        if not page.total:
            return ()
        try:
            return self.keys_for((page.query, page.corrected_query))
        except Exception:  # noqa: BLE001 — paging is a bonus: never fail the results
            log.exception("long query not kept for its buttons")
            return ()

    def text_of(self, key: str) -> str | None:
        """The query stored under ``key``; None for a malformed, unknown or purged key."""
        if not isinstance(key, str) or not KEY_RE.fullmatch(key):
            return None
        return self._store.query_text(key)

    def _purge(self) -> None:
        now = self._monotonic()
        if self._purged_at is not None and now - self._purged_at < PURGE_EVERY_S:
            return
        self._purged_at = now
        self._store.purge_queries(self._now() - timedelta(days=KEEP_DAYS))
