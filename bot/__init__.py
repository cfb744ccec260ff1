"""paperbot: a Slack app over a conference's papers (see README.md and docs/architecture.md)."""

__version__ = "0.1.0"
