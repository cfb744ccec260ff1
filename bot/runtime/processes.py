"""The composition root of the long-running processes: ``serve``, ``socket``,
``clock`` and ``digest send`` — each builds its objects from ``Settings`` and runs.

The one place the Slack transports, the store-backed idempotency check, the
Slack ``Poster`` and the digest clock are put together (docs/architecture.md
"Layers": entry points build objects). It sits above the Slack adapter and the
clock/digest and imports no third-party library: Slack's own start-up errors
reach it as ``bot.slack.startup_errors.SlackUnavailable``.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from datetime import date
from typing import Callable

from bot import corpus, search
from bot.core.config import Settings, describe
from bot.daily.post_times import utc_now
from bot.digest import make_job, send
from bot.digest.clock import run_clock, start_clock
from bot.runtime import wiring
from bot.runtime.distributed import open_distributed
from bot.slack.app import WORK_SLOTS, build_app, make_client
from bot.slack.delivery.fair_slots import FairSlots
from bot.slack.delivery.journal import Journal
from bot.slack.delivery.poster import SlackPoster
from bot.slack.oauth.flow import INSTALL_PATH
from bot.slack.oauth.uninstalls import Uninstalls
from bot.slack.startup_errors import SlackUnavailable, slack_errors
from bot.slack.transport.http_server import make_server
from bot.slack.transport.socket_mode import run_socket
from bot.store import StoreError, TokenKeyError

log = logging.getLogger(__name__)


class StartupError(Exception):
    """The process cannot start; ``str(e)`` is one line for the operator."""


@contextlib.contextmanager
def startup(what: str):
    """Turn the errors a misconfigured start raises into one ``StartupError`` line.

    Covers: unreadable seeds (``CorpusError``), a build still in progress
    after the wait (``IndexBusy``), an index folder that cannot be written
    (``wiring.IndexUnwritable``), the database (``StoreError``), a rejected token and an
    unreachable Web API (``bot.slack.startup_errors.slack_errors``), a
    ``PAPERBOT_TOKEN_KEY`` that is no key or opens no stored token (``TokenKeyError``).
    """
    try:
        with slack_errors():
            yield
    except (
        corpus.CorpusError,
        search.IndexBusy,
        search.IndexMissing,
        wiring.IndexUnwritable,
        StoreError,
        SlackUnavailable,
        TokenKeyError,
    ) as e:
        raise StartupError(f"paperbot {what}: {e}") from None


def _parts(settings: Settings, slots: FairSlots | None = None):
    """``(client, poster, service, distributed)``: one ``SlackPoster`` with the bot
    token, or — for a distributed app — a poster per team (``distributed.posters``)."""
    client = make_client(settings)
    store = wiring.open_store(settings)  # first: a bad DATABASE_URL fails before a long index build
    distributed = open_distributed(settings, store, client, slots) if settings.distributed else None
    poster = distributed.posters if distributed is not None else SlackPoster(client, slots=slots)
    service = wiring.build_service(settings, poster, store=store)
    return client, poster, service, distributed


def _log_settings(settings: Settings) -> None:
    """The start-up line: each setting and its source (``bot.core.config.describe``), once
    the process has started — WARNING, like the "serving on" line, so it shows by default."""
    log.warning("%s", describe(settings, settings.sources))


def _exit_quietly(signum, frame) -> None:
    raise SystemExit(0)


def store_seen(store):
    """The idempotency check for events, backed by the store: ``seen(*keys)`` is
    True when any key was already handled (by any process, before any restart)
    and otherwise records them all in one transaction (``Store.claim_keys``;
    docs/architecture.md "Idempotency and the journal")."""
    return lambda *keys: not store.claim_keys(keys)


def build(settings: Settings):
    """The Bolt app over the real service, with every answered event and command
    journaled in the store before its ack (``bot.slack.delivery.journal``), and the journal's
    thread started: it finishes what a crashed process acknowledged but did not answer.

    A distributed app also gets Bolt's OAuth set-up (``/slack/install``,
    ``/slack/oauth_redirect``, ``authorize``); both modes listen for the app
    leaving a workspace (``bot.slack.oauth.uninstalls``).

    Returns ``(app, service, poster)``. Raises what ``bot.slack.app.build_app``
    raises (e.g. ``auth.test`` rejected the token).
    """
    slots = FairSlots(WORK_SLOTS)  # the service's confirmation posts step out of these
    client, poster, service, distributed = _parts(settings, slots)
    service.index.warm()  # the first command after start-up is then as fast as the others
    _warm_apart("similar's key-term counts", service.index.warm_similar)  # off the start-up path
    if service.recommendations.recommender is not None:  # the model's rows, off the start-up path
        _warm_apart("the recommender", service.recommendations.recommender.warm)
    store = service.store
    journal = Journal(store)
    app = build_app(
        settings,
        service,
        client=client,
        seen=store_seen(store),
        journal=journal,
        slots=slots,
        oauth=distributed.app_options(settings, store, client) if distributed is not None else None,
        uninstalls=Uninstalls(store, distributed.installations if distributed is not None else None),
    )
    journal.start(app)
    log.info("journal owner %s", journal.owner)
    return app, service, poster


def _warm_apart(what: str, warm: Callable[[], None]) -> None:
    """Run ``warm`` on a daemon thread of its own (``SearchIndex.warm_similar``,
    ``bot.runtime.recommending.IndexRecommender.warm``): a head start only — a failure
    is logged, and the first request that needs it does the work instead.

    Args:
        what: what is warmed, for the log line.
        warm: the callable, no arguments.
    """

    def run() -> None:
        try:
            warm()
        except Exception:  # noqa: BLE001 — only a head start
            log.exception("warming %s failed", what)

    threading.Thread(target=run, name="paperbot-warm", daemon=True).start()


def serve(settings: Settings, host: str, port: int) -> None:
    """``paperbot serve``: HTTP on ``host:port`` until SIGTERM/Ctrl-C. Never runs the clock.

    Args:
        settings: the process's settings.
        host: the interface to listen on.
        port: the HTTP port.

    Raises:
        StartupError: bad configuration (one line for the operator).
    """
    with startup("serve"):
        app, _, _ = build(settings)
        try:
            server = make_server(app, host=host, port=port)
        except OSError as e:
            raise StartupError(f"paperbot serve: cannot listen on {host}:{port} ({e.strerror or e})") from None
    signal.signal(signal.SIGTERM, lambda *_: server.close())
    _log_settings(settings)
    log.warning("paperbot serving on http://%s:%s/slack/events", host, server.port)
    if settings.distributed:
        log.warning("installs start at http://%s:%s%s (Add to Slack)", host, server.port, INSTALL_PATH)
    try:
        server.run()
    except KeyboardInterrupt:
        server.close()


def socket(settings: Settings, with_clock: bool = True) -> None:
    """``paperbot socket``: Socket Mode, plus the digest clock unless ``with_clock`` is False.

    Args:
        settings: the process's settings.
        with_clock: also run the digest clock in this process.
    """
    with startup("socket"):
        app, service, poster = build(settings)
    _log_settings(settings)
    scheduler = (
        start_clock(make_job(service.store, service.index, poster, learned=service.recommendations))
        if with_clock
        else None
    )
    try:
        with startup("socket"):
            run_socket(app, settings.app_token)
    except KeyboardInterrupt:
        pass
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)


def clock(settings: Settings) -> None:
    """``paperbot clock``: the digest scheduler alone, in the foreground."""
    with startup("clock"):
        _, poster, service, _ = _parts(settings)
    _log_settings(settings)
    log.warning("paperbot clock: posting due papers of the day (checks every 30 s; Ctrl-C to stop)")
    signal.signal(signal.SIGTERM, _exit_quietly)  # platforms stop processes with SIGTERM
    run_clock(make_job(service.store, service.index, poster, learned=service.recommendations))


def digest_send(settings: Settings, day: date | None, force: bool):
    """``paperbot digest send``: post ``day``'s paper now; returns the ``DigestSummary``.

    Args:
        settings: the process's settings.
        day: the date to send; None: each channel's local today.
        force: allow a date other than a channel's today or yesterday.

    Raises:
        bot.digest.DigestDateError (a ValueError): a date other than a
            channel's today or yesterday without ``force``.
    """
    with startup("digest send"):
        _, poster, service, _ = _parts(settings)
        return send(
            service.store, service.index, poster, utc_now(), day=day, force=force, learned=service.recommendations
        )
