"""Builds the Bolt ``App``: the Web API client, the listener pool, the listeners.

The one place a Slack app object is put together (thin, as in Slack's
bolt-python starter template): ``make_client`` → ``build_app`` →
``register()`` of each listener module. Everything comes from ``Settings``;
nothing here reads ``os.environ``. Bolt itself does read a few ``SLACK_*``
variables: ``SLACK_SIGNING_SECRET`` only when no secret is passed (one always
is), ``SLACK_BOT_TOKEN`` only to warn "As you gave `client` as well, `token`
will be unused" (harmless), and ``SLACK_CLIENT_ID`` + ``SLACK_CLIENT_SECRET``
together switch it to multi-workspace OAuth with its own defaults
(slack_bolt/app/app.py) — so ``Settings.require`` refuses them beside a bot
token, and a distributed app passes its own OAuth set-up (``oauth``, from
``bot.slack.oauth.flow.app_options``).
"""

from __future__ import annotations

import contextlib
import logging
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.core.config import Settings
from bot.slack.delivery.event_keys import SeenKeys
from bot.slack.delivery.fair_slots import AckWindow, FairSlots
from bot.slack.delivery.fallback import pre_send_retry, quiet_unwritable
from bot.slack.delivery.intake import FORCED, asker, make_intake, release
from bot.slack.delivery.work_queue import WorkQueue
from bot.slack.listeners import (
    app_home,
    buttons,
    direct_message,
    foryou,
    mention,
    modal_search,
    reactions,
    reading_list,
    share,
    shortcuts,
    slash_command,
    unfurls,
    uninstall,
    welcome,
)

if TYPE_CHECKING:  # the service is the lead's; listeners call its public methods
    from bot.service.service import Service
    from bot.slack.delivery.journal import Journal
    from bot.slack.oauth.uninstalls import Uninstalls

log = logging.getLogger(__name__)


class _QuietTokenWarning(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN from the environment by itself and then warns
    that it is unused because we pass a configured client: noise, drop it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


logging.getLogger("slack_bolt.App").addFilter(_QuietTokenWarning())


class _FirstFailureIsAWarning(logging.Filter):
    """slack_sdk logs ERROR the moment one request fails ("Failed to send a
    request to Slack API server"); paperbot tries such a post again and logs
    ERROR itself only when it gives up (docs/architecture.md "Idempotency and
    the journal"), so slack_sdk's line is a WARNING here."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.ERROR and record.getMessage().startswith("Failed to send a request"):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


logging.getLogger("slack_sdk.web.base_client").addFilter(_FirstFailureIsAWarning())

#: Listener threads: the pool that runs the work acks promise
#: (``bot.slack.delivery.work_queue``). Bolt runs each ack on the request's own
#: thread (``process_before_response=True``), so a full pool delays replies,
#: never acks. docs/interfaces.md "Quality bars": 50 concurrent commands, each
#: waiting for a work slot on its own thread; 14 spare for events and for
#: ``respond()`` calls sleeping on a 429 ``Retry-After``.
LISTENER_THREADS = 64
#: Listeners allowed in the service (search + render) at once. Search and
#: rendering are pure-Python CPU work: beyond a few threads they only queue
#: on the GIL, and 50 runnable CPU-bound threads starve the threads that are
#: about to ``ack()``. Waiting on this semaphore costs no CPU, so acks stay
#: fast while the replies are computed two at a time (one per core of the
#: 2-core target; a second slot overlaps SQLite I/O). Measured on 2 cores,
#: 50 concurrent signed ``/paper`` commands over the seeds, client in its
#: own process, 8 rounds: ack p95 100–300 ms with 2 slots vs 480–630 ms
#: unbounded; all 50 replies delivered within 0.5–0.8 s either way.
WORK_SLOTS = 2
#: 429 retries per Web API call (each sleeps ``Retry-After`` + <1 s).
RATE_LIMIT_RETRIES = 2


class PaperbotApp(App):
    """Bolt's ``App``, which counts each dispatch as an ack in flight for the work slots
    (``acks``) and gives a request's unused place in the work queue
    back once its dispatch ends (``bot.slack.delivery.intake.release``): a Bolt
    middleware cannot wrap the listeners (its ``next()`` only marks the chain to
    go on), and HTTP, Socket Mode and the journal's retakes all go through
    ``dispatch``."""

    #: the work slots' ``AckWindow``: a dispatch is an ack in flight (set by ``build_app``)
    acks: AckWindow | None = None

    def dispatch(self, req: BoltRequest) -> BoltResponse:
        """``App.dispatch`` — counted as an ack in flight in ``acks``, so the work slots
        wait for it (``bot.slack.delivery.fair_slots``), unless it is the journal's retake
        (``FORCED``: nobody waits for its ack) — then ``release`` of the request's place."""
        counted = self.acks is not None and not (req.context or {}).get(FORCED)
        try:
            with self.acks.acking() if counted else contextlib.nullcontext():
                return super().dispatch(req)
        finally:
            release(req.context)


def make_client(settings: Settings) -> WebClient:
    """A Web API client for the bot token, retrying connection errors and 429s.

    Args:
        settings: uses ``bot_token`` and ``api_url`` (ends in "/": slack_sdk
            joins method names with ``urljoin``, docs/platform-facts.md).

    Returns:
        WebClient: with ``bot.slack.delivery.fallback.pre_send_retry()`` for errors raised
        before Slack could have the request (``URLError``: refused, DNS, a
        failed send) and ``RateLimitErrorRetryHandler(RATE_LIMIT_RETRIES)``
        (opt-in, docs/platform-facts.md). A connection dropped *after* the
        request was sent (``RemoteDisconnected``, ``ConnectionResetError`` —
        slack_sdk's default retries them) is not retried: Slack may have
        posted the message, and a retry would post it twice
        (tests/slack/delivery/test_slack_digest_recovery.py); the caller sees
        ``PostError("request_failed")`` and the digest reconciles the claim
        later. Bolt copies these handlers into the
        per-request ``client`` it passes to listeners.
    """
    return WebClient(
        token=settings.bot_token or None,
        base_url=settings.api_url,
        retry_handlers=[pre_send_retry(), RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)],
    )


def build_app(
    settings: Settings,
    service: "Service",
    *,
    client: WebClient | None = None,
    seen: Callable[..., bool] | None = None,
    listener_executor: Executor | None = None,
    journal: "Journal | None" = None,
    slots: FairSlots | None = None,
    oauth: dict | None = None,
    uninstalls: "Uninstalls | None" = None,
) -> App:
    """The Bolt app with every listener registered.

    Args:
        settings: ``bot_token`` (via the client), ``signing_secret`` (HTTP
            mode; unused in Socket Mode, where Bolt skips verification).
        service: answers ``command(text, ctx)`` and ``mention(text, ctx)``.
        client: the Web API client; default ``make_client(settings)``. Pass
            the same client the service's ``SlackPoster`` uses.
        seen: idempotency check for events, ``seen(*keys) -> True`` when
            any key was already handled (else records them all, atomically). Default: an
            in-memory ``bot.slack.delivery.event_keys.SeenKeys`` (one process, lost on restart);
            with the store: ``bot.runtime.processes.store_seen(store)``.
        listener_executor: where the work acks promise runs (through a
            ``bot.slack.delivery.work_queue.WorkQueue``); default a
            ``ThreadPoolExecutor(LISTENER_THREADS)``. Tests pass their own to
            wait for every job with ``shutdown(wait=True)``.
        slots: the work slots (default ``FairSlots(WORK_SLOTS)``); pass the
            ones the service's ``SlackPoster`` steps out of for Web API calls.
        journal: a ``bot.slack.delivery.journal.Journal``: its middleware records each
            answered event and command durably before the ack and claims it
            (then ``seen`` is not asked for journaled work).
        oauth: a distributed app's ``App`` options (``bot.slack.oauth.flow.app_options``:
            the install pages and ``authorize``); None for one workspace (``bot_token``).
        uninstalls: what ``app_uninstalled`` / ``tokens_revoked`` forget and turn
            off (``bot.slack.listeners.uninstall``); None: not listened for.

    Returns:
        slack_bolt.App: ``process_before_response=True``: Bolt runs each
        listener — which acks and hands its work to the work queue
        (``bot.slack.delivery.intake.later``) — on the request's own thread
        and answers when it returns, so no ack waits in the pool's queue behind
        anyone's work (docs/architecture.md "Acks never wait behind work").
        Global middleware in order: the intake (a place in the work queue, or
        "busy"), then the journal. A request no listener matches is answered
        200 with one WARNING a minute (``make_unhandled``).

    Raises:
        slack_bolt.error.BoltError: ``auth.test`` rejected the token (Bolt
            calls it once in the constructor; not for a distributed app).
        slack_sdk.errors.SlackClientError / OSError: the Web API is unreachable.
    """
    client = client or make_client(settings)
    executor = listener_executor or ThreadPoolExecutor(
        max_workers=LISTENER_THREADS, thread_name_prefix="paperbot-listener"
    )
    app = PaperbotApp(
        name="paperbot",
        client=client,
        signing_secret=settings.signing_secret,
        process_before_response=True,
        raise_error_for_unhandled_request=True,
        listener_executor=executor,
        **(oauth or {}),
    )
    slots = slots or FairSlots(WORK_SLOTS)
    app.acks = slots.acks  # work slots wait for the acks in flight (bot.slack.delivery.fair_slots)
    queue = WorkQueue(executor)
    quiet_unwritable(settings.database_url)
    app.error(make_unhandled(queue.told))
    app.middleware(make_intake(queue))
    if journal is not None:
        app.middleware(journal.middleware)
    register_listeners(app, service, seen=seen, slots=slots, uninstalls=uninstalls)
    return app


def make_unhandled(told: Callable[[str], bool]) -> Callable[..., BoltResponse | None]:
    """Bolt's error handler (``error, body, response``): a request no listener matches
    (a ``callback_id`` or ``action_id`` we never drew, an event we do not handle) is
    answered 200 and ignored, with one WARNING line per kind and user a minute
    (``told(key)``, ``WorkQueue.told``) — Bolt's own answer was a 404 (and a
    suggested code snippet in the log), which Slack shows the user as an error
    and which Socket Mode never acknowledges (docs/platform-facts.md "Bolt").
    Anything else is logged with its traceback (a defect) and keeps Bolt's 500.
    """

    def unhandled(error: Exception, body: dict, response: BoltResponse | None) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            user, what = asker(body or {})
            name = _listener_name(body or {})
            if told(f"unhandled {what}{name} {user}"):
                log.warning(
                    "no listener for a %s%s from %s; answered 200 and ignored (and more of them this minute, "
                    "without a line)",
                    what,
                    name,
                    user or "nobody",
                )
            return BoltResponse(status=200, body="")
        log.error("a Slack request failed (%s)", type(error).__name__, exc_info=error)
        return None

    return unhandled


def _listener_name(body: dict) -> str:
    """`` "x"`` — the callback or action id a request names, for the log ("" when none)."""
    view = body.get("view") if isinstance(body.get("view"), dict) else {}
    actions = body.get("actions") if isinstance(body.get("actions"), list) else []
    first = actions[0] if actions and isinstance(actions[0], dict) else {}
    name = body.get("callback_id") or view.get("callback_id") or first.get("action_id")
    return f" {str(name)[:80]!r}" if name else ""


def register_listeners(
    app: App,
    service: "Service",
    *,
    seen: Callable[..., bool] | None = None,
    slots: FairSlots | None = None,
    uninstalls: "Uninstalls | None" = None,
) -> None:
    """Wire every listener module of ``bot.slack.listeners`` to ``app``, one
    ``register()`` per Slack surface: ``/paper`` (``slash_command``),
    ``app_mention`` (``mention``), DMs (``direct_message``), the paper buttons
    (``buttons``), *Share* and *Share to…* (``share``), the search modal
    (``modal_search``), the shortcuts (``shortcuts``), the reading-list buttons
    (``reading_list``), the App Home (``app_home``), the bot joining a channel
    (``welcome``), link unfurls (``unfurls``), 👍 / 👎 on its posts (``reactions``) and the app leaving a workspace
    (``uninstall``, when ``uninstalls`` is given).

    Args:
        app: the Bolt app.
        service: see ``build_app``.
        seen: see ``build_app``.
        slots: see ``build_app``.
        uninstalls: see ``build_app``.
    """
    slots = slots or FairSlots(WORK_SLOTS)
    seen = seen or SeenKeys().seen  # one check for mentions, DMs and reactions
    slash_command.register(app, service, slots=slots)
    mention.register(app, service, seen=seen, slots=slots)
    direct_message.register(app, service, seen=seen, slots=slots)
    buttons.register(app, service, slots=slots)
    share.register(app, service, slots=slots)
    modal_search.register(app, service, slots=slots)
    shortcuts.register(app, service, slots=slots)
    reading_list.register(app, service, slots=slots)
    app_home.register(app, service, slots=slots)
    foryou.register(app, service, slots=slots)
    welcome.register(app, service)
    unfurls.register(app, service, slots=slots)
    reactions.register(app, service, seen=seen)
    if uninstalls is not None:
        uninstall.register(app, uninstalls)
