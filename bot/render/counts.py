"""How a results page counts its papers (issue 18, "Counts a researcher can use").

For a query of a few words the headline counts the papers holding all of them
(``SearchPage.all_words``; a quoted phrase: the papers with it); the papers with
only some of the words follow, introduced by ``SOME_WORDS``. A pasted text
(``all_words`` None) has no count: nearly every paper shares a word with it, so
its results are "best matches" (docs/search.md "Counts").
"""

from __future__ import annotations

from bot.core.models import SearchPage

#: The line before the first paper that has only some of the query's words.
SOME_WORDS = "Papers with only some of the words:"


def headline(page: SearchPage, shown: str) -> str:
    """The first line of a results message, Slack mrkdwn (``page.total`` > 0).

    Args:
        page: the page of results.
        shown: the query as echoed, already escaped and quoted.
    """
    if page.all_words is None:
        return f"*Best matches* for {shown}"
    if page.all_words == 0:
        return f"No paper has all of {shown}; *{_papers(page.total)}* {'has' if page.total == 1 else 'have'} some of it"
    if page.all_words == page.total:
        return f"*{_papers(page.total)}* match {shown}" if page.total != 1 else f"*1 paper* matches {shown}"
    return f"*{_papers(page.all_words)}* with all of {shown} (and {page.total - page.all_words} with some of it)"


def plain_count(page: SearchPage) -> str:
    """The same count in plain text, for the terminal ("57 with all the words, 726 with some")."""
    if page.all_words is None:
        return f"best matches of {page.total}"
    if page.all_words == page.total:
        return _results(page.total)
    return f"{page.all_words} with all the words, {page.total - page.all_words} with some"


def divider_at(page: SearchPage) -> int | None:
    """The index in ``page.hits`` before which ``SOME_WORDS`` goes, or None
    (no such paper on this page, or the whole page is of them and the headline says so)."""
    if page.all_words is None or page.all_words == 0:
        return None
    k = page.all_words - page.offset
    return k if 0 < k < len(page.hits) or (k == 0 and page.hits) else None


def _papers(n: int) -> str:
    return f"{n} paper{'s' if n != 1 else ''}"


def _results(n: int) -> str:
    return f"{n} result{'s' if n != 1 else ''}"
