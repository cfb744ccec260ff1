"""Digest test fixtures: papers and their index (the databases, ``sqlite_url``,
``pg_url`` and ``db_url``, come from tests/conftest.py). Helpers live in
``digestkit``.
"""

from __future__ import annotations

import pytest

from bot.core.models import Paper
from tests.digest.digestkit import ListIndex, make_papers


@pytest.fixture
def papers() -> list[Paper]:
    return make_papers()


@pytest.fixture
def index(papers) -> ListIndex:
    return ListIndex(papers)
