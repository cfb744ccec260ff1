"""What paperbot asks Slack for, and why: every Web API method the code calls
(including the calls Bolt makes for us), every event, command and
interaction it listens for, with the bot scopes each needs and Slack's page.

This table is the source of ``docs/scopes.md`` (``markdown()`` writes it;
tests/test_scopes.py checks the file, both manifests and the code against it:
a ``client.<method>(`` call or a listener without a row here fails, and so
does a manifest scope no row needs). The strict fake Slack in the tests
answers ``missing_scope`` from the same rows.

Scope rules: https://docs.slack.dev/reference/scopes and each method's page
(``https://docs.slack.dev/reference/methods/<method>``).
"""

from __future__ import annotations

from dataclasses import dataclass

D = "https://docs.slack.dev/reference"


@dataclass(frozen=True)
class Use:
    """One thing paperbot does on Slack.

    Attributes:
        kind: "method" (Web API), "event" (Events API bot event), "command"
            (slash command), "shortcut" (a manifest shortcut's callback id),
            "interaction" (interactivity payload) or
            "response_url" (no token, no scope), "app_token" (a method called
            with the app-level token; its scope is not a bot scope),
            "client_credentials" (a method called with the app's client id and
            secret instead of a token: a distributed app's OAuth).
        name: "chat.postMessage", "app_mention", "/paper", "block_actions".
        scopes: the bot scopes this use needs, all of them.
        source: Slack's reference page for it.
        why: where paperbot uses it.
    """

    kind: str
    name: str
    scopes: tuple[str, ...]
    source: str
    why: str


USES: tuple[Use, ...] = (
    Use(
        "method",
        "auth.test",
        (),
        f"{D}/methods/auth.test",
        "Bolt checks the token once at start; SlackPoster reads its own bot id",
    ),
    Use(
        "method",
        "chat.postMessage",
        ("chat:write", "chat:write.public"),
        f"{D}/methods/chat.postMessage",
        "mention and DM answers, subscribe confirmations, the digest; chat:write.public "
        "lets the digest post in public channels it never joined "
        f"({D}/scopes/chat.write.public)",
    ),
    Use(
        "method",
        "chat.delete",
        ("chat:write",),
        f"{D}/methods/chat.delete",
        "reading-list Export: the list message goes again when its .bib upload fails (one message per export)",
    ),
    Use(
        "method",
        "conversations.open",
        ("im:write",),
        f"{D}/methods/conversations.open",
        "Share to… a person: the bot's own DM with them, when Slack gives no response_url for the DM picked",
    ),
    Use(
        "method",
        "chat.postEphemeral",
        ("chat:write",),
        f"{D}/methods/chat.postEphemeral",
        "help, 'did you mean' and no-match answers to a mention: the asker only, in the mention's thread "
        "if it has one (else Slack would not show it)",
    ),
    Use(
        "method",
        "conversations.history",
        ("channels:history", "groups:history"),
        f"{D}/methods/conversations.history",
        "digest crash recovery: find the post of an ambiguous run (public and private channels)",
    ),
    Use(
        "method",
        "conversations.info",
        ("channels:read", "groups:read"),
        f"{D}/methods/conversations.info",
        "Share to…: the #name in 'Invite @paperbot to #x first' (a channel the bot cannot join)",
    ),
    Use(
        "method",
        "conversations.replies",
        ("channels:history", "groups:history", "im:history"),
        f"{D}/methods/conversations.replies",
        "journal recovery: before answering again a mention left unanswered by a crash, look for "
        "the bot's own reply in its thread",
    ),
    Use(
        "method",
        "conversations.join",
        ("channels:join",),
        f"{D}/methods/conversations.join",
        "digest crash recovery: join a public channel posted into with chat:write.public, "
        "whose history answers not_in_channel otherwise; Share into a public channel the bot is not in",
    ),
    Use(
        "method",
        "files.getUploadURLExternal",
        ("files:write",),
        f"{D}/methods/files.getUploadURLExternal",
        "reading-list Export: step 1 of slack_sdk's files_upload_v2 (the .bib file)",
    ),
    Use(
        "method",
        "files.completeUploadExternal",
        ("files:write",),
        f"{D}/methods/files.completeUploadExternal",
        "reading-list Export: step 3 of files_upload_v2, sharing the file in the user's DM "
        "(channel = the D… id chat.postMessage answered)",
    ),
    Use(
        "method",
        "chat.unfurl",
        ("links:write",),
        f"{D}/methods/chat.unfurl",
        "link unfurls: a compact card for a paper link (posted message or composer preview)",
    ),
    Use(
        "method",
        "users.info",
        ("users:read",),
        f"{D}/methods/users.info",
        "the subscriber's time zone for /paper subscribe",
    ),
    Use(
        "method",
        "users.conversations",
        ("channels:read", "groups:read"),
        f"{D}/methods/users.conversations",
        "App Home: the viewer's public and private channels with a paper of the day",
    ),
    Use("method", "views.publish", (), f"{D}/methods/views.publish", "the App Home tab"),
    Use(
        "method",
        "views.open",
        (),
        f"{D}/methods/views.open",
        "the search modal; answers to buttons clicked in the Home tab",
    ),
    Use("method", "views.push", (), f"{D}/methods/views.push", "answers to buttons clicked inside a modal"),
    Use("method", "views.update", (), f"{D}/methods/views.update", "search modal results; a modal stack that is full"),
    Use(
        "app_token",
        "apps.connections.open",
        (),
        f"{D}/methods/apps.connections.open",
        "Socket Mode (slack_sdk calls it): an app-level token with connections:write, not a bot scope",
    ),
    Use(
        "client_credentials",
        "oauth.v2.access",
        (),
        f"{D}/methods/oauth.v2.access",
        "distributed app (Bolt calls it): an install's code for its tokens, and a rotating token "
        "renewed with its refresh token (grant_type=refresh_token)",
    ),
    Use(
        "response_url",
        "response_url",
        (),
        "https://docs.slack.dev/interactivity/handling-user-interaction",
        "Bolt's respond(): /paper replies and button answers (5 uses in 30 min)",
    ),
    Use("event", "app_mention", ("app_mentions:read",), f"{D}/events/app_mention", "@paperbot in a channel"),
    Use(
        "event",
        "app_home_opened",
        (),
        f"{D}/events/app_home_opened",
        "the App Home tab; the first open of the Messages tab gets a hello (once per user)",
    ),
    Use(
        "event",
        "member_joined_channel",
        ("channels:read", "groups:read"),
        f"{D}/events/member_joined_channel",
        "onboarding: a hello when the bot itself is added to a public or private channel",
    ),
    Use(
        "event",
        "link_shared",
        ("links:read",),
        f"{D}/events/link_shared",
        "a link to arxiv.org, openreview.net, doi.org, github.com or huggingface.co (the manifests' unfurl_domains)",
    ),
    Use("event", "message.im", ("im:history",), f"{D}/events/message.im", "direct messages to the bot"),
    Use(
        "event",
        "reaction_added",
        ("reactions:read",),
        f"{D}/events/reaction_added",
        "a 👍 / 👎 on the bot's post about one paper: a signal for the user and the channel (issue 22)",
    ),
    Use(
        "event",
        "reaction_removed",
        ("reactions:read",),
        f"{D}/events/reaction_removed",
        "that reaction taken away: the signal is taken back",
    ),
    Use(
        "event",
        "app_uninstalled",
        (),
        f"{D}/events/app_uninstalled",
        "the app left a workspace: its subscriptions are turned off (a distributed app also deletes its tokens)",
    ),
    Use(
        "event",
        "tokens_revoked",
        (),
        f"{D}/events/tokens_revoked",
        "the bot token was revoked: as app_uninstalled",
    ),
    Use("command", "/paper", ("commands",), f"{D}/scopes/commands", "the slash command"),
    Use(
        "interaction",
        "block_actions",
        (),
        f"{D}/interaction-payloads/block_actions-payload",
        "buttons (needs Interactivity on, no scope)",
    ),
    Use(
        "shortcut",
        "find_related_papers",
        ("commands",),
        "https://docs.slack.dev/interactivity/implementing-shortcuts",
        "message shortcut 'Find related papers' (message_action payload)",
    ),
    Use(
        "shortcut",
        "search_papers",
        ("commands",),
        "https://docs.slack.dev/interactivity/implementing-shortcuts",
        "global shortcut 'Search papers': the search modal from anywhere",
    ),
    Use(
        "interaction",
        "view_submission",
        (),
        f"{D}/interaction-payloads/view-interactions-payload",
        "the search modal's Search; the share modal's Share (with response_urls)",
    ),
)

#: Web API methods by name (``chat.postMessage`` → its ``Use``).
METHODS = {u.name: u for u in USES if u.kind == "method"}
#: Bot events by name, as a manifest's ``settings.event_subscriptions.bot_events`` lists them.
EVENTS = {u.name: u for u in USES if u.kind == "event"}
#: Slash commands by name.
COMMANDS = {u.name: u for u in USES if u.kind == "command"}
#: Shortcuts by callback id, as a manifest's ``features.shortcuts[].callback_id`` lists them.
SHORTCUTS = {u.name: u for u in USES if u.kind == "shortcut"}
#: Methods called with the app's client id and secret (a distributed app's OAuth), by name.
CLIENT_METHODS = {u.name: u for u in USES if u.kind == "client_credentials"}


def needed_scopes() -> frozenset[str]:
    """Every bot scope some row needs: exactly what a manifest should ask for."""
    return frozenset(s for u in USES for s in u.scopes)


def markdown() -> str:
    """``docs/scopes.md``: the table above as Markdown (one row per use)."""
    lines = [
        "# Scopes, events and the code",
        "",
        "Generated from `bot/slack/scopes.py` (`python -m bot.slack.scopes > docs/scopes.md`);",
        "`tests/test_scopes.py` fails when this file, a manifest (`manifest.yml`,",
        "`manifest.http.yml`, `manifest.oauth.yml`) or a `client.<method>(` call in `bot/` disagrees with it.",
        "Bot scopes asked for: " + ", ".join(f"`{s}`" for s in sorted(needed_scopes())) + ".",
        "Bolt's `say()` would call `chat.postMessage` (its row below); the code does not use it.",
        "",
        "| kind | name | bot scopes | why | Slack's page |",
        "|---|---|---|---|---|",
    ]
    for u in USES:
        scopes = ", ".join(f"`{s}`" for s in u.scopes) or "none"
        lines.append(f"| {u.kind} | `{u.name}` | {scopes} | {u.why} | {u.source} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover — regenerates docs/scopes.md
    print(markdown(), end="")
