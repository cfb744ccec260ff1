"""Delivery and reliability: the journal, the poster, replies through a
``response_url`` (``response_url``), the plain version of what Slack refuses
(``fallback``), fair work slots, event keys."""
