"""Sign request bodies exactly as Slack does (v0 HMAC-SHA256).

basestring = ``f"v0:{timestamp}:{body}"``; signature = ``"v0=" +
hex(HMAC_SHA256(signing_secret, basestring))``; sent as
``X-Slack-Signature`` with ``X-Slack-Request-Timestamp`` (Unix seconds).
Source: docs.slack.dev "Verifying requests from Slack" and
``slack_sdk/signature/__init__.py`` (docs/platform-facts.md "Slack request signing"). Written with
hashlib/hmac on purpose, not slack_sdk, so the tests check Bolt against an
independent implementation.
"""

from __future__ import annotations

import hashlib
import hmac
import time

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def signature(secret: str, timestamp: int | str, body: str) -> str:
    """``"v0=<hex>"`` for ``body`` sent at ``timestamp`` (Unix seconds)."""
    base = f"v0:{timestamp}:{body}".encode("utf-8")
    return "v0=" + hmac.new(secret.encode("utf-8"), base, hashlib.sha256).hexdigest()


def signed_headers(
    secret: str, body: str, *, timestamp: int | None = None, content_type: str = FORM, age_s: int = 0
) -> dict[str, str]:
    """Headers Slack would send with ``body``.

    Args:
        secret: the app's signing secret.
        body: the exact request body (form-encoded or JSON text).
        timestamp: Unix seconds; default now minus ``age_s``.
        content_type: FORM for commands and interactivity, JSON for events.
        age_s: how old the request claims to be, seconds (360 = 6 minutes).
    """
    ts = int(time.time()) - age_s if timestamp is None else timestamp
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": signature(secret, ts, body),
    }
