"""Entry points for the Slack processes: ``serve``, ``socket``, ``clock`` and
``digest send`` — each builds its objects from ``Settings`` and runs.

The one place the Slack transports, the store-backed idempotency check, the
Slack ``Poster`` and the digest clock are put together (DESIGN.md
"Architecture": entry points build objects).
"""
from __future__ import annotations

import logging
import signal
from datetime import date

from bot import wiring
from bot.clock import run_clock, start_clock
from bot.config import Settings
from bot.digest import make_job, send, utc_now
from bot.slack.app import build_app, make_client
from bot.slack.poster import SlackPoster
from bot.slack.server import make_server
from bot.slack.socket import run_socket

log = logging.getLogger(__name__)


def _parts(settings: Settings):
    client = make_client(settings)
    poster = SlackPoster(client)
    service = wiring.build_service(settings, poster)
    return client, poster, service


def store_seen(store):
    """The idempotency check for events, backed by the store: ``seen(key)`` is
    True when ``key`` was already handled (by any process, before any restart)
    and records it otherwise (DESIGN.md "Rules": retries never answer twice)."""
    return lambda key: not store.first_time(key)


def build(settings: Settings):
    """The Bolt app over the real service, with events deduplicated in the store.

    Returns ``(app, service, poster)``. Raises what ``bot.slack.app.build_app``
    raises (e.g. ``auth.test`` rejected the token).
    """
    client, poster, service = _parts(settings)
    store = service.store
    app = build_app(settings, service, client=client, seen=store_seen(store))
    return app, service, poster


def serve(settings: Settings, host: str, port: int) -> None:
    """``paperbot serve``: HTTP on ``host:port`` until SIGTERM/Ctrl-C. Never runs the clock."""
    app, _, _ = build(settings)
    server = make_server(app, host=host, port=port)
    signal.signal(signal.SIGTERM, lambda *_: server.close())
    log.warning("paperbot serving on http://%s:%s/slack/events", host, server.port)
    try:
        server.run()
    except KeyboardInterrupt:
        server.close()


def socket(settings: Settings, with_clock: bool = True) -> None:
    """``paperbot socket``: Socket Mode, plus the digest clock unless ``with_clock`` is False."""
    app, service, poster = build(settings)
    scheduler = start_clock(make_job(service.store, service.index, poster)) if with_clock else None
    try:
        run_socket(app, settings.app_token)
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)


def clock(settings: Settings) -> None:
    """``paperbot clock``: the digest scheduler alone, in the foreground."""
    _, poster, service = _parts(settings)
    run_clock(make_job(service.store, service.index, poster))


def digest_send(settings: Settings, day: date | None, force: bool):
    """``paperbot digest send``: post ``day``'s paper now; returns the ``DigestSummary``.

    Raises:
        bot.digest.DigestDateError (a ValueError): a date other than a
            channel's today or yesterday without ``force``.
    """
    _, poster, service = _parts(settings)
    return send(service.store, service.index, poster, utc_now(), day=day, force=force)
