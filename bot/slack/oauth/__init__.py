"""A distributed app: installs through "Add to Slack", a token per installation
(README "Distributed app (many workspaces)").

- ``flow``: Bolt's OAuth support set up for paperbot — the install pages, the
  state and installation stores, ``authorize``;
- ``rotation``: expiring tokens renewed by one process at a time;
- ``tokens``: each team's poster for the digest and the subscribe confirmation;
- ``uninstalls``: ``app_uninstalled`` / ``tokens_revoked`` forget the tokens and
  turn the subscriptions off (one-workspace mode uses it too, without tokens).
"""
