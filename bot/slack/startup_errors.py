"""Slack's start-up errors as one plain exception type, so the composition root
(``bot.runtime.processes``) can report them without importing slack_bolt or slack_sdk
(docs/architecture.md "Layers").

``slack_errors()`` wraps the code that builds the Bolt app or connects
(``auth.test`` runs in Bolt's ``App`` constructor; ``apps.connections.open``
when Socket Mode connects) and turns Slack's exceptions into ``SlackUnavailable``.
"""

from __future__ import annotations

import contextlib
import urllib.error
from typing import Iterator

from slack_bolt.error import BoltError
from slack_sdk.errors import SlackApiError, SlackClientError


class SlackUnavailable(Exception):
    """Slack refused the token or cannot be reached; ``str(e)`` is one line
    for the operator, naming what to check (never a token)."""


@contextlib.contextmanager
def slack_errors() -> Iterator[None]:
    """Re-raise Slack's start-up errors as ``SlackUnavailable``.

    Covers: a rejected token (Bolt's ``auth.test`` → ``BoltError``, the Web
    API → ``SlackApiError``) and an unreachable Web API (``SlackClientError``,
    ``urllib.error.URLError``, ``ConnectionError``). Anything else propagates.

    Raises:
        SlackUnavailable: one of the above, as one line.
    """
    try:
        yield
    except SlackApiError as e:
        code = e.response.get("error") if e.response is not None else "error"
        raise SlackUnavailable(f"Slack refused the token ({code}); check SLACK_BOT_TOKEN / SLACK_APP_TOKEN") from None
    except BoltError as e:
        text = str(e)
        hint = "invalid_auth" if "invalid_auth" in text else text.splitlines()[0][:160]
        raise SlackUnavailable(f"Slack refused the token ({hint}); check SLACK_BOT_TOKEN") from None
    except (urllib.error.URLError, SlackClientError, ConnectionError) as e:
        reason = getattr(e, "reason", None) or e
        raise SlackUnavailable(
            f"cannot reach the Slack Web API ({reason}); check SLACK_API_URL and the network"
        ) from None
