"""The Web API methods the strict fake answers, as Slack does (docs/slack-rules.md).

A mixin for ``tests.fakeslack.FakeSlack``: each ``_api_<method>`` takes the
call's arguments and returns Slack's JSON answer; validation failures go
through ``self._reject`` so every one is recorded in ``fake.rejections``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.strict.files import FileMethods
from tests.strict.surfaces import check_message, check_unfurls, check_view, decoded
from tests.strict.visibility import thread_is_active

BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
TEAM_ID = "T0TEST"


def dm_of(user_id: str) -> str:
    """The fake's id of the bot's DM with ``user_id`` (``U0ALICE`` → ``D0ALICEDM``)."""
    return "D" + user_id[1:] + "DM"


@dataclass
class Channel:
    """A conversation as the fake knows it.

    Attributes:
        private: a private channel (``groups:*`` scopes; no ``chat:write.public``).
        bot_member: the bot is in it (its own DMs always).
        im: a DM or group DM between people (private; the bot cannot join it).
    """

    private: bool = False
    bot_member: bool = False
    im: bool = False


class SlackMethods(FileMethods):
    """``_api_*`` answers; needs ``history``, ``ephemerals``, ``outside``, ``user_tz``,
    ``memberships``, ``member_page_size``, ``granted``, ``triggers``, ``stacks``, ``shares``,
    ``unfurled``, ``channel()``, ``_reject``, ``defect()``,
    ``_ts``, ``_base_ts`` and ``_cond`` from the class it is mixed into."""

    def _api_auth_test(self, body: dict) -> dict:
        return {
            "ok": True,
            "url": "https://paperbot-test.slack.com/",
            "team": "Test",
            "user": "paperbot",
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _api_chat_postMessage(self, body: dict) -> dict:
        channel_id = str(body.get("channel", ""))
        if channel_id[:1] in ("U", "W"):
            # [dm-by-user-id] a user id posts to the app's DM with that user; the
            # answer's "channel" is the DM's D… id
            channel_id = dm_of(channel_id)
        channel = self.channel(channel_id)
        if not channel.bot_member:
            # [chat-write-public] private → channel_not_found; public needs chat:write.public
            if channel.private:
                return {"ok": False, "error": "channel_not_found"}
            if "chat:write.public" not in self.granted:
                return {"ok": False, "error": "not_in_channel"}
        problem = check_message(body)
        if problem:
            return self._reject("chat.postMessage", body, *problem)
        ts = f"{self._base_ts + next(self._ts)}.000100"
        message = {
            "type": "message",
            "ts": ts,
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "text": body.get("text", ""),
            "blocks": decoded(body.get("blocks")) or [],
        }
        if body.get("metadata"):
            message["metadata"] = decoded(body["metadata"])
        if body.get("thread_ts"):
            message["thread_ts"] = body["thread_ts"]
        with self._cond:
            self.history.setdefault(channel_id, []).append(message)
        return {"ok": True, "channel": channel_id, "ts": ts, "message": message}

    def _api_chat_postEphemeral(self, body: dict) -> dict:
        # [ephemeral] user required and in the channel; same message rules as chat.postMessage
        channel_id, user = str(body.get("channel", "")), str(body.get("user", ""))
        if not user:
            return self._reject(
                "chat.postEphemeral", body, "invalid_arguments", ["[ERROR] missing required field: user"]
            )
        channel = self.channel(channel_id)
        if channel.private and not channel.bot_member:
            return {"ok": False, "error": "channel_not_found"}
        if user in self.outside.get(channel_id, ()):
            return {"ok": False, "error": "user_not_in_channel"}
        problem = check_message(body)
        if problem:
            return self._reject("chat.postEphemeral", body, *problem)
        thread_ts = body.get("thread_ts")
        with self._cond:
            shown = not thread_ts or thread_is_active(self.history.get(channel_id, []), str(thread_ts))
        message = {
            "type": "message",
            "user": user,
            "text": body.get("text", ""),
            "blocks": decoded(body.get("blocks")) or [],
            "thread_ts": thread_ts,
            "shown": shown,
        }
        if not shown:  # [ephemeral-thread] accepted, never shown
            self.defect("chat.postEphemeral", "not_shown", f"{channel_id}: thread {thread_ts} has no replies", body)
        with self._cond:
            self.ephemerals.setdefault(channel_id, []).append(message)
        return {"ok": True, "message_ts": f"{self._base_ts + next(self._ts)}.000200"}

    def _api_chat_delete(self, body: dict) -> dict:
        # [chat-delete] the bot deletes its own message by channel + ts
        channel_id, ts = str(body.get("channel", "")), str(body.get("ts", ""))
        with self._cond:
            kept = self.history.get(channel_id, [])
            mine = [m for m in kept if m.get("ts") == ts and m.get("user") == BOT_USER_ID]
            if not mine:
                return {"ok": False, "error": "message_not_found"}
            kept.remove(mine[0])
        return {"ok": True, "channel": channel_id, "ts": ts}

    def _api_conversations_open(self, body: dict) -> dict:
        # [dm-membership] one user: the bot's own DM with them (D…), which it is in
        users = [u for u in str(body.get("users") or "").split(",") if u]
        if len(users) != 1:
            return self._reject("conversations.open", body, "invalid_arguments", ["[ERROR] one user id, please"])
        if users[0] in (BOT_USER_ID,) or users[0].startswith("B"):
            return {"ok": False, "error": "cannot_dm_bot"}
        channel_id = dm_of(users[0])
        with self._cond:
            self.channels[channel_id] = Channel(private=True, bot_member=True)
        return {"ok": True, "channel": {"id": channel_id}}

    def _api_chat_unfurl(self, body: dict) -> dict:
        # [unfurl] target by channel+ts or by unfurl_id+source, URLs of that share only
        if body.get("unfurl_id") or body.get("source"):
            share = self.shares.get(("unfurl_id", str(body.get("unfurl_id"))))
            if share is None or body.get("source") not in ("composer", "conversations_history"):
                return self._reject("chat.unfurl", body, "invalid_unfurl_id", [])
        else:
            share = self.shares.get(("ts", str(body.get("channel")), str(body.get("ts"))))
            if share is None:
                return self._reject("chat.unfurl", body, "cannot_unfurl_message", [])
        problem = check_unfurls(body.get("unfurls"), share)
        if problem:
            return self._reject("chat.unfurl", body, *problem)
        with self._cond:
            self.unfurled.append(decoded(body.get("unfurls")))
        return {"ok": True}

    def _api_users_info(self, body: dict) -> dict:
        user = str(body.get("user", ""))
        return {"ok": True, "user": {"id": user, "name": user.lower(), "tz": self.user_tz.get(user, "Europe/Berlin")}}

    def _api_conversations_history(self, body: dict) -> dict:
        channel_id = str(body.get("channel", ""))
        if not self.channel(channel_id).bot_member:
            return {"ok": False, "error": "not_in_channel"}  # [history]
        oldest = float(body.get("oldest") or 0)
        with_metadata = str(body.get("include_all_metadata", "")).lower() in ("1", "true")
        with self._cond:
            messages = [dict(m) for m in self.history.get(channel_id, []) if float(m["ts"]) > oldest]
        for m in messages:
            if not with_metadata:
                m.pop("metadata", None)
        return {"ok": True, "messages": list(reversed(messages)), "has_more": False}

    def _api_conversations_info(self, body: dict) -> dict:
        channel_id = str(body.get("channel", ""))
        channel = self.channel(channel_id)
        if channel.private and not channel.bot_member:  # [info] private: members only
            return {"ok": False, "error": "channel_not_found"}
        return {
            "ok": True,
            "channel": {
                "id": channel_id,
                "name": channel_id.lower(),
                "is_private": channel.private,
                "is_member": channel.bot_member,
            },
        }

    def _api_conversations_replies(self, body: dict) -> dict:
        channel_id, ts = str(body.get("channel", "")), str(body.get("ts") or "")
        if not self.channel(channel_id).bot_member:
            return {"ok": False, "error": "not_in_channel"}
        with self._cond:
            messages = [dict(m) for m in self.history.get(channel_id, []) if m["ts"] == ts or m.get("thread_ts") == ts]
        return {"ok": True, "messages": messages, "has_more": False}

    def _api_conversations_join(self, body: dict) -> dict:
        channel_id = str(body.get("channel", ""))
        channel = self.channel(channel_id)
        if channel.private:  # [join]
            return {"ok": False, "error": "method_not_supported_for_channel_type"}
        already = channel.bot_member
        channel.bot_member = True
        answer: dict[str, Any] = {"ok": True, "channel": {"id": channel_id, "is_member": True}}
        if already:
            answer["warning"] = "already_in_channel"
        return answer

    def _api_users_conversations(self, body: dict) -> dict:
        channels = self.memberships.get(str(body.get("user", "")), [])
        start = int(body.get("cursor") or 0)
        size = max(1, min(self.member_page_size, int(body.get("limit") or 100)))
        page = channels[start : start + size]
        more = start + size < len(channels)
        return {
            "ok": True,
            "channels": [{"id": c, "is_channel": True} for c in page],
            "response_metadata": {"next_cursor": str(start + size) if more else ""},
        }

    def _view_call(self, method: str, body: dict, view_id: str | None, *, trigger: bool) -> dict:
        problem = check_view(body.get("view"), method=method)
        if problem:  # checked first: a refused view leaves the trigger unspent (unverified)
            return self._reject(method, body, *problem)
        if trigger:
            error = self.triggers.use(body.get("trigger_id"))  # [trigger-id]
            if error:
                return self._reject(method, body, error, [])
        if view_id is None and method == "views.open":
            view_id = self.stacks.open()
        elif view_id is None:  # [view-stack] ≤ 3 deep
            view_id, error = self.stacks.push(self.triggers.view_of(body.get("trigger_id")))
            if error:
                return self._reject(method, body, error, [])
        return {"ok": True, "view": {"id": view_id, **(decoded(body.get("view")) or {})}}

    def _api_views_publish(self, body: dict) -> dict:
        if not body.get("user_id"):
            return self._reject("views.publish", body, "invalid_arguments", ["[ERROR] missing required field: user_id"])
        return self._view_call("views.publish", body, "V0HOME", trigger=False)

    def _api_views_open(self, body: dict) -> dict:
        return self._view_call("views.open", body, None, trigger=True)

    def _api_views_push(self, body: dict) -> dict:
        return self._view_call("views.push", body, None, trigger=True)

    def _api_views_update(self, body: dict) -> dict:
        if not (body.get("view_id") or body.get("external_id")):
            return self._reject(
                "views.update", body, "invalid_arguments", ["[ERROR] view_id or external_id is required"]
            )
        return self._view_call("views.update", body, body.get("view_id") or "V0EXT", trigger=False)
