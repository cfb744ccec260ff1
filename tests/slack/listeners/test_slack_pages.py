"""Issue 19 points 5 and 7 end to end: through the real HTTP server, signed as Slack
signs, against the strict fake Slack (which refuses what Slack refuses), over a real
index of the seeds plus ``tests/data/pages.jsonl`` (arXiv, OpenReview, DOI and plain
pages):

- ``/paper search`` results link each title to its page;
- the BibTeX export's DM lists the papers as Slack links ``<url|title>`` (Markdown's
  ``[title](url)`` shows literally in Slack), and its ``.bib`` — read back with
  bibtexparser — has ``year``, ``eprint`` / ``archivePrefix`` / ``primaryClass`` for
  arXiv papers and ``doi`` where the source gives one;
- the App Home says each subscription's days and papers per post, links the titles and
  has one primary button;
- subscribing a private channel the bot is not in says how to invite it once.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors

from bot.render import ACTION_READING_LIST_EXPORT, ACTION_SAVE
from bot.render.announce import PostingAnnouncer
from bot.service.service import Service
from bot.slack.app import make_client
from bot.slack.delivery.poster import SlackPoster
from bot.store import Store
from tests.fakeslack import TEAM_ID
from tests.render.test_render_pages import PAGES
from tests.slack.listeners.test_slack_app_home import checked, home_opened, sent_view
from tests.slack.slackkit import SlackHarness, make_settings, shown_strings

LINK = re.compile(r"<(https?://[^|<>]+)\|([^<>]*)>")


@pytest.fixture
def slack(slack_factory, fake_slack, pages_index, tmp_path) -> SlackHarness:
    settings = make_settings(fake_slack, tmp_path)
    store = Store(settings.database_url)
    service = Service(pages_index, store, settings, announcer=PostingAnnouncer(SlackPoster(make_client(settings))))
    yield slack_factory(service=service)
    store.close()


def links(text: str) -> dict[str, str]:
    """``{url: label}`` of the Slack links in mrkdwn ``text``."""
    return {url: label for url, label in LINK.findall(text)}


def test_search_results_link_each_paper_to_its_page(slack: SlackHarness) -> None:
    _, url = slack.command("search glacier")
    (reply,) = slack.replies(url)
    found = links("\n".join(shown_strings(reply.get("blocks"))))
    for pid, page in PAGES.items():
        assert page in found, pid
        assert found[page].startswith(slack.service.index.get(pid).title[:10]), found[page]


def test_the_export_lists_slack_links_and_complete_bibtex(slack: SlackHarness) -> None:
    seed = next(i for i in slack.service.index.ids() if i not in PAGES)
    for pid in [*PAGES, seed]:
        slack.click(ACTION_SAVE, {"id": pid})
    slack.fake.wait_for("response_url", len(PAGES) + 1)
    slack.click(ACTION_READING_LIST_EXPORT, {"all": 1})
    slack.fake.wait_for("files.completeUploadExternal")
    slack.drain()

    (post,) = slack.fake.calls("chat.postMessage")
    text = post.body["text"]
    assert "](" not in text  # no Markdown link, which Slack shows as typed
    found = links(text)
    for pid, page in PAGES.items():
        assert page in found and f"`{pid}`" in text, pid
    assert found[PAGES["2503.98765"]].startswith("Glacier Calving Fronts &amp; &lt;Ice&gt; Mélange")
    seed_line = next(line for line in text.splitlines() if f"`{seed}`" in line)
    assert "<http" not in seed_line.split("`")[0]  # a seed: its title, no link

    (bib,) = slack.fake.files.values()
    library = bibtexparser.parse_string(
        bib["content"], append_middleware=[LatexDecodingMiddleware(), SeparateCoAuthors()]
    )
    assert not library.failed_blocks
    got = {e.key: {k: f.value for k, f in e.fields_dict.items()} for e in library.entries}
    assert set(got) == {*PAGES, seed}
    calving, melt = got["2503.98765"], got["2406.97531"]
    assert (calving["year"], calving["eprint"], calving["archivePrefix"], calving["primaryClass"]) == (
        "2025",
        "2503.98765",
        "arXiv",
        "cs.CV",
    )
    assert calving["title"] == slack.service.index.get("2503.98765").title
    assert (melt["year"], melt["eprint"], melt["doi"]) == ("2024", "2406.97531", "10.1029/2024GL199999")
    assert got["chi-glacier-1"]["doi"] == "10.1145/3613904.3699999" and got["chi-glacier-1"]["year"] == "2024"
    assert got["GlacNet0rv"]["year"] == "2025" and "eprint" not in got["GlacNet0rv"]
    assert got["GlacNet0rv"]["url"] == PAGES["GlacNet0rv"]
    assert got["pmlr-glacier"]["year"] == "2024" and got["pmlr-glacier"]["url"] == PAGES["pmlr-glacier"]
    assert not {"eprint", "doi", "url"} & set(got[seed])  # a seed: nothing made up


def test_the_app_home_says_days_and_papers_per_post_and_has_one_primary_button(slack: SlackHarness) -> None:
    now = datetime.now(timezone.utc)
    slack.store.upsert_subscription(
        TEAM_ID, "C0DIGEST", "10:00", "Europe/London", "U0ALICE", now, days=(0,), papers=3, topic="glacier"
    )
    slack.fake.memberships["U0ALICE"] = ["C0DIGEST"]
    slack.click(ACTION_SAVE, {"id": "GlacNet0rv"})
    slack.fake.wait_for("response_url")
    assert slack.event(home_opened(), event_id="Ev0PAGESHOME").status == 200
    (publish,) = slack.fake.wait_for("views.publish")
    slack.drain()
    view = checked(sent_view(publish))
    text = "\n".join(shown_strings(view))
    assert "<#C0DIGEST> · 3 papers about “glacier” on Mondays at 10:00 (Europe/London)" in text
    assert PAGES["GlacNet0rv"] in links(text)  # the reading list links its titles
    buttons = [e for b in view["blocks"] for e in b.get("elements") or [] if e.get("type") == "button"]
    assert [e["text"]["text"] for e in buttons if e.get("style") == "primary"] == ["Search papers"]


def test_subscribing_a_private_channel_without_the_bot_says_the_invite_once(slack: SlackHarness) -> None:
    slack.fake.add_channel("G0SECRET", private=True)
    _, url = slack.command("subscribe 09:30 UTC", channel="G0SECRET")
    (reply,) = slack.replies(url)
    shown = "\n".join(shown_strings(reply))
    assert reply.get("response_type", "ephemeral") == "ephemeral"
    said = "\n".join(dict.fromkeys(shown.splitlines()))  # text and blocks say the same once each
    assert said.count("/invite @paperbot") == 1, said
    assert slack.store.get_subscription(TEAM_ID, "G0SECRET") is None
