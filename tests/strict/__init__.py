"""The strict fake Slack's rule set: what Slack's servers check (docs/slack-rules.md).

``blockkit`` checks blocks, elements and text objects; ``surfaces`` checks
whole messages, ``response_url`` bodies and views, and keeps trigger ids and
response URLs; ``scopes`` reads a manifest and says which scope a call needs.
"""
