"""Whole messages, ``response_url`` bodies and views as Slack's servers check
them, plus the two one-shot tokens: ``trigger_id`` and ``response_url``.

Rules and their Slack pages: docs/slack-rules.md. ``check_message`` and
``check_view`` return ``None`` when Slack would accept, else ``(error,
messages)`` — the ``error`` of Slack's ``{"ok": false}`` answer and its
``response_metadata.messages``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any, Callable

from tests.strict.blockkit import check_blocks, check_length, check_text, err

TEXT_MAX = 40_000  # [message-text] longer → msg_too_long
VIEW_TITLE_MAX = 24  # [view] title, submit, close
PRIVATE_METADATA_MAX = 3000
CALLBACK_ID_MAX = 255
TRIGGER_TTL_S = 3.0  # [trigger-id] once, within 3 s
STACK_MAX = 3  # [view-stack] views in one modal stack
RESPONSE_URL_USES = 5  # [response-url] 5 uses within 30 minutes
RESPONSE_URL_TTL_S = 30 * 60
EVENT_TYPE = re.compile(r"^[a-zA-Z0-9_]{1,255}$")  # [metadata]
Problem = tuple[str, list[str]]


def decoded(value: Any) -> Any:
    """A JSON argument as slack_sdk may send it: already parsed, or a JSON string."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def check_message(body: dict[str, Any], *, response_url: bool = False) -> Problem | None:
    """A ``chat.postMessage`` / ``chat.postEphemeral`` / ``chat.update`` body, or
    (``response_url``) a body posted to a ``response_url`` [response-url]."""
    blocks = decoded(body.get("blocks"))
    text = body.get("text")
    if response_url and body.get("delete_original") in (True, "true"):
        return None
    if not blocks and not (isinstance(text, str) and text.strip()):
        return "no_text", []
    if isinstance(text, str) and len(text) > TEXT_MAX:
        return "msg_too_long", []
    out: list[str] = []
    if blocks:
        check_blocks(blocks, "/blocks", "message", out)
    if out:
        return "invalid_blocks", out
    if response_url and body.get("response_type") not in (None, "ephemeral", "in_channel"):
        return "invalid_payload", ["[ERROR] response_type must be ephemeral or in_channel"]
    metadata = decoded(body.get("metadata"))
    if metadata is not None:
        if (
            not isinstance(metadata, dict)
            or not EVENT_TYPE.match(str(metadata.get("event_type", "")))
            or not isinstance(metadata.get("event_payload", {}), dict)
        ):
            return "invalid_metadata_format", []
    return None


def check_view(view: Any, *, method: str) -> Problem | None:
    """The ``view`` argument of ``views.publish`` (a Home tab) or ``views.open`` /
    ``views.push`` / ``views.update`` (a modal) [view]. Slack answers
    ``invalid_arguments`` with the problems for a bad view."""
    view = decoded(view)
    out: list[str] = []
    if not isinstance(view, dict):
        return "invalid_arguments", ["[ERROR] must provide an object [json-pointer:/view]"]
    kind = view.get("type")
    wanted = ("home",) if method == "views.publish" else ("modal",) if method != "views.update" else ("modal", "home")
    if kind not in wanted:
        err(out, f"must be {' or '.join(wanted)}", "/view/type")
    surface = "home" if kind == "home" else "modal"
    check_blocks(view.get("blocks"), "/view/blocks", surface, out)
    if kind == "modal":
        if "title" not in view:
            err(out, "missing required field: title", "/view")
        for key in ("title", "submit", "close"):
            if key in view:
                check_text(view[key], f"/view/{key}", out, VIEW_TITLE_MAX, plain=True)
        blocks = view.get("blocks") if isinstance(view.get("blocks"), list) else []
        if any(isinstance(b, dict) and b.get("type") == "input" for b in blocks) and "submit" not in view:
            err(out, "submit is required when a view has input blocks", "/view")
    if "private_metadata" in view:
        check_length(view["private_metadata"], "/view/private_metadata", out, PRIVATE_METADATA_MAX, least=0)
    for key in ("callback_id", "external_id"):
        if key in view:
            check_length(view[key], f"/view/{key}", out, CALLBACK_ID_MAX, least=0)
    return ("invalid_arguments", out) if out else None


class Triggers:
    """``trigger_id``s the fake has handed out: each works once, within 3 s [trigger-id].

    Args:
        clock: seconds, monotonic (tests pass their own to age a trigger).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._issued: dict[str, float] = {}
        self._views: dict[str, str] = {}
        self._used: set[str] = set()
        self._n = 0
        self._lock = threading.Lock()

    def issue(self, view: str | None = None) -> str:
        """A fresh trigger id, valid for ``TRIGGER_TTL_S`` from now; ``view``: the
        modal it was clicked in (``views.push`` stacks onto that modal's stack)."""
        with self._lock:
            self._n += 1
            trigger = f"{1337 + self._n}.4242.{self._n:08x}"
            self._issued[trigger] = self._clock()
            if view:
                self._views[trigger] = view
            return trigger

    def view_of(self, trigger: Any) -> str | None:
        """The modal ``trigger`` came from, or None."""
        with self._lock:
            return self._views.get(trigger)

    def age(self, trigger: str, seconds: float) -> None:
        """Pretend ``trigger`` was issued ``seconds`` earlier."""
        with self._lock:
            self._issued[trigger] -= seconds

    def use(self, trigger: Any) -> str | None:
        """Spend ``trigger``; the Slack error when it cannot be used, else None."""
        with self._lock:
            if trigger not in self._issued:
                return "invalid_trigger_id"
            if trigger in self._used:
                return "exchanged_trigger_id"
            self._used.add(trigger)
            if self._clock() - self._issued[trigger] > TRIGGER_TTL_S:
                return "expired_trigger_id"
            return None


class ResponseUrls:
    """``response_url``s the fake has handed out: 5 uses within 30 min each [response-url]."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._issued: dict[str, list[float]] = {}
        self._origins: dict[str, Any] = {}
        self._lock = threading.Lock()

    def issue(self, path: str, origin: Any = None) -> None:
        """Register ``path`` ("/response/3") as a fresh response URL; ``origin``: the
        message it was clicked in (``tests.strict.visibility.ClickOrigin``), or None."""
        with self._lock:
            self._issued[path] = [self._clock(), 0]
            self._origins[path] = origin

    def origin(self, path: str) -> Any:
        """The ``origin`` given to ``issue(path)`` (None when none)."""
        with self._lock:
            return self._origins.get(path)

    def use(self, path: str) -> str | None:
        """Count one use of ``path``; ``"expired_url"`` when Slack would refuse it."""
        with self._lock:
            entry = self._issued.get(path)
            if entry is None or entry[1] >= RESPONSE_URL_USES or self._clock() - entry[0] > RESPONSE_URL_TTL_S:
                return "expired_url"
            entry[1] += 1
            return None


class Stacks:
    """Modal stacks: ``views.open`` starts one, ``views.push`` adds to it, at
    most ``STACK_MAX`` views deep (``push_limit_reached``) [view-stack]."""

    def __init__(self) -> None:
        self._root: dict[str, str] = {}
        self._depth: dict[str, int] = {}
        self._n = 0
        self._lock = threading.Lock()

    def open(self) -> str:
        """A new stack's root view id ("V0MODAL", then "V0MODAL2", …)."""
        with self._lock:
            self._n += 1
            view = "V0MODAL" if self._n == 1 else f"V0MODAL{self._n}"
            self._root[view], self._depth[view] = view, 1
            return view

    def push(self, onto: str | None) -> tuple[str | None, str | None]:
        """``(new view id, None)``, or ``(None, error)`` when the stack is full.
        A view the fake never opened counts as the root of a one-view stack."""
        with self._lock:
            onto = onto or "V0UNKNOWN"
            root = self._root.setdefault(onto, onto)
            self._depth.setdefault(root, 1)
            if self._depth[root] >= STACK_MAX:
                return None, "push_limit_reached"
            self._depth[root] += 1
            self._n += 1
            view = f"V0PUSHED{self._n}"
            self._root[view] = root
            return view, None

    def depth(self, view: str) -> int:
        """How many views the stack holding ``view`` has (0: unknown)."""
        with self._lock:
            root = self._root.get(view)
            return self._depth.get(root, 0) if root else 0


UNFURL_BLOCK_TYPES_REFUSED = ("rich_text",)  # [unfurl] rich_text blocks → invalid_blocks


def check_unfurls(unfurls: Any, allowed: set[str]) -> Problem | None:
    """``chat.unfurl``'s ``unfurls`` [unfurl]: a JSON object mapping each URL of
    the shared message (``allowed``) to ``{"blocks": [...]}`` or an attachment
    with ``text``; blocks as in a message, without ``rich_text``."""
    unfurls = decoded(unfurls)
    if not isinstance(unfurls, dict) or not unfurls or not all(isinstance(v, dict) for v in unfurls.values()):
        return "invalid_unfurls_format", []
    for url in unfurls:
        if url not in allowed:
            return "cannot_unfurl_url", []
    out: list[str] = []
    for url, entry in unfurls.items():
        blocks = entry.get("blocks")
        if blocks is None:
            if not str(entry.get("text") or entry.get("title") or "").strip():
                return "invalid_unfurls_format", []
            continue
        check_blocks(blocks, f"/unfurls/{url}/blocks", "message", out)
        for i, block in enumerate(blocks if isinstance(blocks, list) else []):
            if isinstance(block, dict) and block.get("type") in UNFURL_BLOCK_TYPES_REFUSED:
                err(out, "rich_text blocks cannot be used in unfurls", f"/unfurls/{url}/blocks/{i}")
    return ("invalid_blocks", out) if out else None
