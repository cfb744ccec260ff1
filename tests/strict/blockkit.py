"""Block Kit as Slack's servers validate it: blocks, elements, text objects.

Every rule has its Slack reference page in docs/slack-rules.md (rule names in
brackets there match the comments here). Problems are reported the way Slack
reports them in ``response_metadata.messages``: ``"[ERROR] <what>
[json-pointer:/blocks/3/elements/1/action_id]"`` (the shape reported in
https://github.com/incidentbot/incidentbot/issues/328; see docs/slack-rules.md).

Public entry point: ``check_blocks(blocks, path, surface, out)``.
"""

from __future__ import annotations

from typing import Any

#: Block types each surface accepts (docs/slack-rules.md [surfaces]).
SURFACE_BLOCKS = {
    "message": {"section", "header", "context", "actions", "divider", "image", "rich_text", "input", "video", "file"},
    "modal": {"section", "header", "context", "actions", "divider", "image", "rich_text", "input", "video"},
    "home": {"section", "header", "context", "actions", "divider", "image", "rich_text", "input", "video"},
}
#: [blocks-max]: 50 blocks in a message, 100 in a modal or Home tab.
BLOCKS_MAX = {"message": 50, "modal": 100, "home": 100}
ID_MAX = 255  # [ids] block_id, action_id
SECTION_TEXT_MAX = 3000  # [section]
FIELD_MAX = 2000
FIELDS_MAX = 10
HEADER_MAX = 150  # [header]
CONTEXT_MAX = 10  # [context]
ACTIONS_MAX = 25  # [actions]
BUTTON_TEXT_MAX = 75  # [button]
VALUE_MAX = 2000
URL_MAX = 3000
LABEL_MAX = 75  # accessibility_label
OPTION_TEXT_MAX = 75  # [option]
OPTION_VALUE_MAX = 150
OPTIONS_MAX = 100
INPUT_LABEL_MAX = 2000  # [input]
PLACEHOLDER_MAX = 150
ALT_TEXT_MAX = 2000  # [image]
CONFIRM_TITLE_MAX = 100  # [confirm] title; text 300; confirm and deny 30
CONFIRM_TEXT_MAX = 300
CONFIRM_BUTTON_MAX = 30
TEXT_TYPES = ("plain_text", "mrkdwn")


def err(out: list[str], what: str, path: str) -> None:
    """Append one Slack-style problem line."""
    out.append(f"[ERROR] {what} [json-pointer:{path}]")


def check_length(value: Any, path: str, out: list[str], most: int, *, least: int = 1) -> None:
    """A string of ``least``..``most`` characters (Slack counts characters)."""
    if not isinstance(value, str):
        err(out, "must be a string", path)
    elif len(value) < least:
        err(out, f"must be more than {least - 1} characters", path)
    elif len(value) > most:
        err(out, f"must be less than {most + 1} characters", path)


def check_text(obj: Any, path: str, out: list[str], most: int, *, plain: bool = False, least: int = 1) -> None:
    """A text object [text-object]: ``type`` plain_text or mrkdwn (plain_text only
    where ``plain``), ``text`` of ``least``..``most`` chars, ``emoji`` only on
    plain_text, ``verbatim`` only on mrkdwn."""
    if not isinstance(obj, dict):
        err(out, "must provide an object", path)
        return
    kind = obj.get("type")
    if kind not in TEXT_TYPES:
        err(out, "must be a valid enum value (plain_text, mrkdwn)", path + "/type")
        return
    if plain and kind != "plain_text":
        err(out, "must be a plain_text object", path + "/type")
    if "emoji" in obj and kind != "plain_text":
        err(out, "emoji is only allowed on plain_text", path + "/emoji")
    if "verbatim" in obj and kind != "mrkdwn":
        err(out, "verbatim is only allowed on mrkdwn", path + "/verbatim")
    check_length(obj.get("text"), path + "/text", out, most, least=least)


def check_unique(obj: dict, key: str, path: str, seen: set[str], out: list[str], scope: str) -> None:
    """``obj[key]`` (an id, when present) is ≤ 255 chars and not in ``seen`` [ids]."""
    value = obj.get(key)
    if value is None:
        return
    check_length(value, f"{path}/{key}", out, ID_MAX)
    if value in seen:
        err(out, f"{key} must be unique {scope}", f"{path}/{key}")
    seen.add(value)


def check_blocks(blocks: Any, path: str, surface: str, out: list[str]) -> None:
    """Check a ``blocks`` array for ``surface`` ("message", "modal", "home").

    Appends problems to ``out``; block_ids must be unique in the array [block-id].
    """
    if not isinstance(blocks, list):
        err(out, "must provide an array", path)
        return
    if len(blocks) > BLOCKS_MAX[surface]:
        err(out, f"no more than {BLOCKS_MAX[surface]} items allowed", path)
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        here = f"{path}/{i}"
        if not isinstance(block, dict):
            err(out, "must provide an object", here)
            continue
        check_unique(block, "block_id", here, seen, out, "within a message or view")
        kind = block.get("type")
        if kind not in SURFACE_BLOCKS[surface]:
            err(out, f"unsupported block type {kind!r} in a {surface}", here + "/type")
            continue
        checker = _BLOCKS.get(kind)
        if checker:
            checker(block, here, out)
        _response_url_enabled(block, here, surface, out)


def _response_url_enabled(block: dict, path: str, surface: str, out: list[str]) -> None:
    # [response-url-enabled] only on a conversations/channels select in an input block of a modal
    elements = (
        [(path + "/element", block.get("element"))]
        if block.get("type") == "input"
        else [(f"{path}/elements/{j}", e) for j, e in enumerate(block.get("elements") or [])]
        if block.get("type") == "actions"
        else [(path + "/accessory", block.get("accessory"))]
    )
    for here, el in elements:
        if not isinstance(el, dict) or "response_url_enabled" not in el:
            continue
        if (
            el.get("type") not in ("conversations_select", "channels_select")
            or block.get("type") != "input"
            or surface != "modal"
        ):
            err(
                out,
                "response_url_enabled is only allowed on a conversations_select or "
                "channels_select in an input block of a modal",
                here + "/response_url_enabled",
            )


def _section(block: dict, path: str, out: list[str]) -> None:
    # [section] text or fields required; text ≤3000; ≤10 fields of ≤2000
    if "text" not in block and "fields" not in block:
        err(out, "must define either `text` or `fields`", path)
    if "text" in block:
        check_text(block["text"], path + "/text", out, SECTION_TEXT_MAX)
    if "fields" in block:
        fields = block["fields"]
        if not isinstance(fields, list) or not fields:
            err(out, "must provide a non-empty array", path + "/fields")
        else:
            if len(fields) > FIELDS_MAX:
                err(out, f"no more than {FIELDS_MAX} items allowed", path + "/fields")
            for j, field in enumerate(fields):
                check_text(field, f"{path}/fields/{j}", out, FIELD_MAX)
    if "accessory" in block:
        check_elements([block["accessory"]], path + "/accessory", out, single=True)


def _header(block: dict, path: str, out: list[str]) -> None:
    # [header] plain_text ≤150
    if "text" not in block:
        err(out, "missing required field: text", path)
        return
    check_text(block["text"], path + "/text", out, HEADER_MAX, plain=True)


def _context(block: dict, path: str, out: list[str]) -> None:
    # [context] 1..10 elements: text objects or images
    elements = block.get("elements")
    if not isinstance(elements, list) or not elements:
        err(out, "must provide a non-empty array", path + "/elements")
        return
    if len(elements) > CONTEXT_MAX:
        err(out, f"no more than {CONTEXT_MAX} items allowed", path + "/elements")
    for j, el in enumerate(elements):
        here = f"{path}/elements/{j}"
        if isinstance(el, dict) and el.get("type") == "image":
            check_length(el.get("image_url", el.get("slack_file")), here + "/image_url", out, URL_MAX)
            check_length(el.get("alt_text"), here + "/alt_text", out, ALT_TEXT_MAX)
        else:
            check_text(el, here, out, SECTION_TEXT_MAX)


def _actions(block: dict, path: str, out: list[str]) -> None:
    # [actions] 1..25 interactive elements, action_ids unique within the block
    elements = block.get("elements")
    if not isinstance(elements, list) or not elements:
        err(out, "must provide a non-empty array", path + "/elements")
        return
    if len(elements) > ACTIONS_MAX:
        err(out, f"no more than {ACTIONS_MAX} items allowed", path + "/elements")
    check_elements(elements, path + "/elements", out)


def _input(block: dict, path: str, out: list[str]) -> None:
    # [input] label plain_text ≤2000, one element, optional hint ≤2000
    check_text(block.get("label"), path + "/label", out, INPUT_LABEL_MAX, plain=True)
    if "hint" in block:
        check_text(block["hint"], path + "/hint", out, INPUT_LABEL_MAX, plain=True)
    if "element" not in block:
        err(out, "missing required field: element", path)
    else:
        check_elements([block["element"]], path + "/element", out, single=True)


def _image(block: dict, path: str, out: list[str]) -> None:
    # [image] image_url ≤3000, alt_text ≤2000
    check_length(block.get("image_url"), path + "/image_url", out, URL_MAX)
    check_length(block.get("alt_text"), path + "/alt_text", out, ALT_TEXT_MAX)


_BLOCKS = {
    "section": _section,
    "header": _header,
    "context": _context,
    "actions": _actions,
    "input": _input,
    "image": _image,
}


def check_elements(elements: list, path: str, out: list[str], *, single: bool = False) -> None:
    """Interactive elements of one block; ``action_id`` unique among them [action-id]."""
    seen: set[str] = set()
    for j, el in enumerate(elements):
        here = path if single else f"{path}/{j}"
        if not isinstance(el, dict):
            err(out, "must provide an object", here)
            continue
        check_unique(el, "action_id", here, seen, out, "within a block")
        checker = _ELEMENTS.get(el.get("type"))
        if checker:
            checker(el, here, out)


def _button(el: dict, path: str, out: list[str]) -> None:
    # [button] text plain_text ≤75, value ≤2000, url ≤3000, style, accessibility_label ≤75
    check_text(el.get("text"), path + "/text", out, BUTTON_TEXT_MAX, plain=True)
    if "value" in el:
        check_length(el["value"], path + "/value", out, VALUE_MAX)
    if "url" in el:
        check_length(el["url"], path + "/url", out, URL_MAX)
    if "style" in el and el["style"] not in ("primary", "danger"):
        err(out, "must be a valid enum value (primary, danger)", path + "/style")
    if "accessibility_label" in el:
        check_length(el["accessibility_label"], path + "/accessibility_label", out, LABEL_MAX)
    if "confirm" in el:
        check_confirm(el["confirm"], path + "/confirm", out)


def check_confirm(dialog: Any, path: str, out: list[str]) -> None:
    """A confirmation dialog object [confirm]: ``title``, ``text``, ``confirm`` and
    ``deny`` required; title ≤100 plain_text, text ≤300, confirm and deny ≤30
    plain_text; ``style`` primary or danger."""
    if not isinstance(dialog, dict):
        err(out, "must provide an object", path)
        return
    check_text(dialog.get("title"), path + "/title", out, CONFIRM_TITLE_MAX, plain=True)
    check_text(dialog.get("text"), path + "/text", out, CONFIRM_TEXT_MAX)
    for key in ("confirm", "deny"):
        check_text(dialog.get(key), f"{path}/{key}", out, CONFIRM_BUTTON_MAX, plain=True)
    if "style" in dialog and dialog["style"] not in ("primary", "danger"):
        err(out, "must be a valid enum value (primary, danger)", path + "/style")


def _text_input(el: dict, path: str, out: list[str]) -> None:
    # [plain-text-input] placeholder ≤150, max_length ≤3000
    if "placeholder" in el:
        check_text(el["placeholder"], path + "/placeholder", out, PLACEHOLDER_MAX, plain=True)
    if "max_length" in el and not (isinstance(el["max_length"], int) and 0 < el["max_length"] <= 3000):
        err(out, "must be between 1 and 3000", path + "/max_length")


def _select(el: dict, path: str, out: list[str]) -> None:
    # [static-select] ≤100 options; [option] text plain_text ≤75, value 1..150
    options = el.get("options")
    if not isinstance(options, list) or not options:
        err(out, "must provide a non-empty array", path + "/options")
        return
    if len(options) > OPTIONS_MAX:
        err(out, f"no more than {OPTIONS_MAX} items allowed", path + "/options")
    for k, option in enumerate(options):
        check_option(option, f"{path}/options/{k}", out)


def check_option(option: Any, path: str, out: list[str]) -> None:
    """An option object [option]: plain_text ``text`` ≤75, ``value`` 1..150 chars."""
    if not isinstance(option, dict):
        err(out, "must provide an object", path)
        return
    check_text(option.get("text"), path + "/text", out, OPTION_TEXT_MAX, plain=True)
    check_length(option.get("value"), path + "/value", out, OPTION_VALUE_MAX)


def _conversations_select(el: dict, path: str, out: list[str]) -> None:
    # [conversations-select] placeholder ≤150; filter.include ⊆ im, mpim, private, public
    if "placeholder" in el:
        check_text(el["placeholder"], path + "/placeholder", out, PLACEHOLDER_MAX, plain=True)
    include = (el.get("filter") or {}).get("include", [])
    if not isinstance(include, list) or set(include) - {"im", "mpim", "private", "public"}:
        err(out, "must be a list of im, mpim, private, public", path + "/filter/include")


def _users_select(el: dict, path: str, out: list[str]) -> None:
    # [users-select] placeholder plain_text ≤150
    if "placeholder" in el:
        check_text(el["placeholder"], path + "/placeholder", out, PLACEHOLDER_MAX, plain=True)


_ELEMENTS = {
    "button": _button,
    "users_select": _users_select,
    "plain_text_input": _text_input,
    "static_select": _select,
    "overflow": _select,
    "conversations_select": _conversations_select,
}
