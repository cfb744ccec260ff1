"""Slack adapter: everything that speaks Slack, in three parts (docs/architecture.md "Layers").

- ``listeners/``: one module per Slack surface, each with its ``register()``;
  what they share is in ``listeners.common`` (no listener imports another).
- ``delivery/``: getting work done once and replies out — the journal, event
  keys, the poster, ``response_url`` replies, the plain version of what Slack
  refuses, work slots.
- ``transport/``: how requests arrive — the HTTP server, request shapes,
  Socket Mode, Slack's text as it arrives.

``app`` builds the Bolt ``App`` and registers each listener; ``scopes`` is the
table of what paperbot asks Slack for; ``startup_errors`` turns Slack's start-up
errors into one plain exception. What ``paperbot serve | socket | clock | digest
send`` run is built outside this package, in ``bot.runtime.processes``.
slack_bolt / slack_sdk are imported only in this package (and in ``bot.render``
for Block Kit models).
"""
