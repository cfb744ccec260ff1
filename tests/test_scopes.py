"""Scopes, events and code agree (issue 9 point 3): the table in
``bot/slack/scopes.py`` (docs/scopes.md) names every Web API method the code
calls and every listener, and each manifest asks for exactly the scopes,
events and commands the table needs — no more, no less."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.service.paper_links import UNFURL_DOMAINS
from bot.slack.listeners import shortcuts, slash_command
from bot.slack.scopes import COMMANDS, EVENTS, METHODS, SHORTCUTS, USES, markdown, needed_scopes
from tests.kit import ROOT
from tests.strict.scopes import MANIFESTS, Manifest

#: ``client.chat_postMessage`` / ``self._client.views_open`` → "chat.postMessage".
CALL = re.compile(r"\b_?client\.([a-z]+(?:_[A-Za-z]+)+)\b")
#: Attributes of the Socket Mode client that the scan would read as methods.
NOT_METHODS = {"socket_mode_request_listeners", "link_disabled"}
LISTENER = re.compile(r"\bapp\.(event|command|action|view|shortcut|options)\(\s*([^)]*)\)")


def code() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "bot").rglob("*.py"))}


#: slack_sdk helpers that make several Web API calls (docs/platform-facts.md "Files").
HELPERS = {"files_upload_v2": ("files.getUploadURLExternal", "files.completeUploadExternal")}


def called_methods() -> dict[str, str]:
    """Web API methods called in ``bot/`` → the first file calling each."""
    found: dict[str, str] = {}
    for path, text in code().items():
        for name in set(CALL.findall(text)) - NOT_METHODS:
            found.setdefault(name.replace("_", "."), path)
        for helper, methods in HELPERS.items():
            if f"client.{helper}(" in text:
                for method in methods:
                    found.setdefault(method, path)
    return found


def test_every_method_the_code_calls_has_a_row() -> None:
    called = called_methods()
    assert "chat.postMessage" in called and "views.publish" in called  # the scan works
    missing = {m: where for m, where in called.items() if m not in METHODS}
    assert not missing, f"add these to bot/slack/scopes.py: {missing}"
    says = [path for path, text in code().items() if re.search(r"\bsay\(", text)]
    assert not says or "chat.postMessage" in METHODS, says  # Bolt's say() posts


def test_every_method_row_is_called_by_the_code_or_by_bolt() -> None:
    by_bolt = {"auth.test"}  # Bolt's App() checks the token
    unused = set(METHODS) - set(called_methods()) - by_bolt
    assert not unused, f"rows no code needs: {unused}"


def test_every_listener_has_a_row() -> None:
    kinds: dict[str, set[str]] = {}
    for text in code().values():
        for kind, arg in LISTENER.findall(text):
            kinds.setdefault(kind, set()).add(arg.strip().strip("\"'"))
    assert {e.split(".")[0] for e in EVENTS} == kinds["event"]  # "message" ← message.im
    assert kinds["command"] == {"COMMAND"} and slash_command.COMMAND in COMMANDS
    interactions = {u.name for u in USES if u.kind == "interaction"}
    assert ("action" in kinds) == ("block_actions" in interactions)
    assert ("view" in kinds) == ("view_submission" in interactions)
    assert kinds["shortcut"] == {"RELATED_SHORTCUT", "SEARCH_SHORTCUT"}
    assert {shortcuts.RELATED_SHORTCUT, shortcuts.SEARCH_SHORTCUT} == set(SHORTCUTS)
    assert "options" not in kinds, "options need rows (and manifest entries)"


@pytest.mark.parametrize("path", MANIFESTS, ids=[m.name for m in MANIFESTS])
def test_the_manifest_asks_for_exactly_what_the_table_needs(path: Path) -> None:
    manifest = Manifest.load(path)
    assert not needed_scopes() - manifest.scopes, "the manifest lacks scopes the code needs"
    assert not manifest.scopes - needed_scopes(), "the manifest asks for scopes nothing uses"
    assert manifest.events == set(EVENTS)
    assert manifest.commands == set(COMMANDS)
    assert manifest.shortcuts == {
        (shortcuts.RELATED_SHORTCUT, "message"),  # [shortcut]
        (shortcuts.SEARCH_SHORTCUT, "global"),
    }
    assert manifest.interactive


@pytest.mark.parametrize("path", MANIFESTS, ids=[m.name for m in MANIFESTS])
def test_unfurl_domains_are_the_ones_the_bot_knows_and_within_slacks_rules(path: Path) -> None:
    """≤ 5 unique hosts, no scheme or path (docs/slack-rules.md [unfurl])."""
    domains = Manifest.load(path).unfurl_domains
    assert domains == UNFURL_DOMAINS and len(set(domains)) == len(domains) <= 5
    assert all(re.fullmatch(r"(?![.-])[-a-z0-9.]+[a-z0-9]", d) for d in domains)
    assert ("link_shared" in EVENTS) == bool(domains)


def test_docs_scopes_md_is_the_table() -> None:
    assert (ROOT / "docs" / "scopes.md").read_text(encoding="utf-8") == markdown(), (
        "regenerate: python -m bot.slack.scopes > docs/scopes.md"
    )


def test_every_row_cites_slacks_page() -> None:
    for use in USES:
        assert use.source.startswith(("https://docs.slack.dev/", "https://api.slack.com/")), use
