"""Slack adapter: the Bolt app, its listeners, the poster and the two transports.

Owns everything that speaks Slack: ``app`` (builds the Bolt ``App``),
``commands`` / ``events`` (listeners, one ``register()`` each), ``poster``
(``bot.core.ports.Poster`` over ``chat.postMessage``), ``server`` (HTTP through
waitress), ``socket`` (Socket Mode) and ``errors`` (Slack's start-up errors as one
plain exception). What ``paperbot serve | socket | clock | digest send`` run
is built outside this package, in ``bot.runtime.processes`` (docs/architecture.md
"Layers"). ``text`` holds the pure text helpers
(entity decoding, mention-token stripping) and imports nothing from Slack.

slack_bolt / slack_sdk are imported only in this package (and in
``bot.render`` for Block Kit models).
"""
