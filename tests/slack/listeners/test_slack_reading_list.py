"""The reading list end to end (issue 13 point 5): Save on a paper card, the
list in ``/paper saved`` and the App Home, Remove, paging, and Export — all
through signed ``block_actions`` and commands on the real HTTP endpoint and
the strict fake Web API. The exported ``.bib`` is read back with bibtexparser.
"""

from __future__ import annotations

import json
from datetime import date

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors

from bot import search
from bot.core.models import Paper
from bot.render import (
    ACTION_READING_LIST_EXPORT,
    ACTION_READING_LIST_PAGE,
    ACTION_READING_LIST_REMOVE,
    ACTION_SAVE,
    render_digest,
)
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.slack.listeners.test_slack_app_home import home_opened, sent_view
from tests.slack.slackkit import SlackHarness, make_settings, shown_strings
from tests.strict.methods import dm_of


def values(body: dict, action_id: str) -> list[dict]:
    blocks = body.get("blocks") or []
    return [
        json.loads(e["value"])
        for b in blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e.get("action_id") == action_id
    ]


def test_save_buttons_are_on_results_details_and_the_digest(slack: SlackHarness):
    _, url = slack.command("search reasoning")
    (results,) = slack.replies(url)
    assert len(values(results, ACTION_SAVE)) == len(values(results, "paper_details")) > 0
    pid = values(results, ACTION_SAVE)[0]["id"]
    _, url = slack.command(f"show {pid}")
    assert pid in [v["id"] for v in values(slack.replies(url)[0], ACTION_SAVE)]
    digest = render_digest(slack.index.get(pid), date(2026, 12, 1))
    assert any(
        json.loads(e["value"]) == {"id": pid}
        for b in digest.blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == ACTION_SAVE
    )


def test_save_list_remove_and_export_a_reading_list(slack: SlackHarness):
    ids = slack.index.ids()[:7]
    for pid in ids:
        response, url = slack.click(ACTION_SAVE, {"id": pid})
        assert response.status == 200
        assert "Saved" in " ".join(shown_strings(slack.replies(url)[0]))
    _, url = slack.click(ACTION_SAVE, {"id": ids[0]})
    assert "already" in " ".join(shown_strings(slack.replies(url)[0]))
    # per user: Bob sees nothing of Alice's
    _, url = slack.command("saved", user="U0BOB")
    assert "empty" in " ".join(shown_strings(slack.replies(url)[0]))

    _, url = slack.command("saved")
    (page,) = slack.replies(url)
    shown = values(page, ACTION_READING_LIST_REMOVE)
    assert [v["id"] for v in shown] == list(reversed(ids))[:5]  # newest first, 5 a page
    older = values(page, ACTION_READING_LIST_PAGE)
    assert older == [{"o": 5}]
    _, url = slack.click(ACTION_READING_LIST_PAGE, {"o": 5})
    assert [v["id"] for v in values(slack.replies(url)[0], ACTION_READING_LIST_REMOVE)] == list(reversed(ids))[5:]
    _, url = slack.click(ACTION_READING_LIST_REMOVE, {"id": ids[-1]})
    after = slack.replies(url)[0]
    assert after.get("replace_original") is True and ids[-1] not in str(values(after, ACTION_READING_LIST_REMOVE))
    assert slack.store.reading_list_count(TEAM_ID, "U0ALICE") == 6

    # the App Home lists them (Remove / Details)
    assert slack.event(home_opened(), event_id="Ev0SAVEDHOME").status == 200
    slack.fake.wait_for("views.publish")
    home = sent_view(slack.fake.calls("views.publish")[-1])
    assert "Saved papers" in " ".join(shown_strings(home))
    assert [v["id"] for v in values(home, ACTION_READING_LIST_REMOVE)] == list(reversed(ids[:-1]))[:5]

    # Export: the Markdown list in the DM, then the .bib file in its thread
    _, url = slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    assert "BibTeX" in " ".join(shown_strings(slack.replies(url)[0]))
    (post,) = [c for c in slack.fake.calls("chat.postMessage")]
    assert post.body["channel"] == "U0ALICE" and post.answer["channel"] == dm_of("U0ALICE")
    (complete,) = slack.fake.calls("files.completeUploadExternal")
    assert complete.body["channel_id"] == dm_of("U0ALICE")
    (entry,) = slack.fake.files.values()
    assert entry["channel"] == dm_of("U0ALICE") and entry["filename"].endswith(".bib")
    saved = {e.paper_id: e for e in slack.store.reading_list_entries(TEAM_ID, "U0ALICE")}
    listed = post.body["text"].replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    assert all(e.title in listed and f"`{pid}`" in listed for pid, e in saved.items())
    library = bibtexparser.parse_string(
        entry["content"], append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors()]
    )
    assert not library.failed_blocks
    got = {b.key: b for b in library.entries}
    assert set(got) == set(saved)
    for pid, e in saved.items():
        assert got[pid]["title"] == e.title
        authors = got[pid].fields_dict.get("author")
        assert (list(authors.value) if authors else []) == list(e.authors)


def test_a_paper_removed_by_a_rebuild_still_exports_marked(slack_factory, fake_slack, seed_papers, tmp_path):
    index_dir = tmp_path / "ix"
    tricky = Paper(
        id="pauthors1",
        title="Sparse {braces} & 100% of_it: a $5 test #1 ~ back\\slash",
        abstract="A made-up paper whose fields need escaping in BibTeX. " * 3,
        authors=("Ada Lovelace", "José Ñúñez-García", "Jean-Luc O'Neil", "Li Wei"),
        venue="NeurIPS 2025",
        url="https://example.org/p?a=1&b=2",
    )
    search.build_index(index_dir, seed_papers + [tricky])
    settings = make_settings(fake_slack, tmp_path)
    store = Store(settings.database_url)
    service = Service(
        search.SearchIndex(index_dir), store, settings, announcer=PostingAnnouncer(SlackPoster(make_client(settings)))
    )
    slack = slack_factory(service=service)
    gone, kept = seed_papers[0], seed_papers[1]
    for p in (gone, kept, tricky):
        slack.click(ACTION_SAVE, {"id": p.id})
    slack.fake.wait_for("response_url", 3)
    search.build_index(index_dir, seed_papers[1:] + [tricky])  # a rebuild removes the first paper
    _, url = slack.command("saved")
    text = " ".join(shown_strings(slack.replies(url)[0]))
    assert "no longer in the index" in text
    slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    slack.fake.wait_for("files.completeUploadExternal")
    (entry,) = slack.fake.files.values()
    library = bibtexparser.parse_string(
        entry["content"], append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors()]
    )
    assert not library.failed_blocks
    notes = {b.key: b["note"] for b in library.entries}
    odd = {b.key: b for b in library.entries}[tricky.id]
    assert (odd["title"], list(odd["author"]), odd["year"]) == (tricky.title, list(tricky.authors), "2025")
    raw = {b.key: b for b in bibtexparser.parse_string(entry["content"]).entries}
    assert raw[tricky.id]["url"] == tricky.url  # a URL is kept verbatim, as the url package reads it
    assert "No longer in the paperbot index" in notes[gone.id]
    assert "No longer" not in notes[kept.id]
    assert {b.key: b["title"] for b in library.entries}[gone.id] == gone.title
    store.close()


def test_save_and_remove_in_the_home_tab_republish_it(slack: SlackHarness):
    ids = slack.index.ids()[:2]
    for n, pid in enumerate(ids, 1):
        assert slack.click(ACTION_SAVE, {"id": pid}, in_view="home")[0].status == 200
        slack.fake.wait_for("views.publish", n)
    home = sent_view(slack.fake.calls("views.publish")[-1])
    assert [v["id"] for v in values(home, ACTION_READING_LIST_REMOVE)] == list(reversed(ids))
    slack.click(ACTION_READING_LIST_REMOVE, {"id": ids[0]}, in_view="home")
    slack.fake.wait_for("views.publish", 3)
    slack.drain()
    home = sent_view(slack.fake.calls("views.publish")[-1])
    assert [v["id"] for v in values(home, ACTION_READING_LIST_REMOVE)] == [ids[1]]
    assert slack.fake.calls("views.open") == []  # no modal for these clicks


def test_bad_values_and_a_refused_upload_get_short_answers(slack: SlackHarness):
    _, url = slack.click(ACTION_SAVE, '{"id": 5}')
    assert "couldn't read that button" in " ".join(shown_strings(slack.replies(url)[0]))
    _, url = slack.click(ACTION_READING_LIST_PAGE, {"o": -3})
    assert "couldn't read that button" in " ".join(shown_strings(slack.replies(url)[0]))
    _, url = slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    assert "empty" in " ".join(shown_strings(slack.replies(url)[0]))
    slack.click(ACTION_SAVE, {"id": slack.index.ids()[0]})
    slack.fake.wait_for("response_url", 4)
    slack.fake.fail_method("files.completeUploadExternal", "not_in_channel")
    _, url = slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    assert "Slack refused the export (not_in_channel)" in " ".join(shown_strings(slack.replies(url)[0]))
    slack.drain()
    assert slack.store.reading_list_count(TEAM_ID, "U0ALICE") == 1
