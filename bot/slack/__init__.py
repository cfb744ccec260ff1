"""Slack adapter: the Bolt app, its listeners, the poster and the two transports.

Owns everything that speaks Slack: ``app`` (builds the Bolt ``App``),
``commands`` / ``events`` (listeners, one ``register()`` each), ``poster``
(``bot.ports.Poster`` over ``chat.postMessage``), ``server`` (HTTP through
waitress), ``socket`` (Socket Mode) and ``runtime`` (what ``paperbot serve |
socket | clock | digest send`` run). ``text`` holds the pure text helpers
(entity decoding, mention-token stripping) and imports nothing from Slack.

slack_bolt / slack_sdk are imported only in this package (and in
``bot.render`` for Block Kit models).
"""
