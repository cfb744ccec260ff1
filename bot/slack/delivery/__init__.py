"""Delivery and reliability: the journal, the poster, the ``response_url`` sender and its
fallback, fair work slots, event keys."""
