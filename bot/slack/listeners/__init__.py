"""The listeners: one module per Slack surface, each with its ``register(app, …)``; what they share is in ``common``."""
