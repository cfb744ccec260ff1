"""The package docstring of ``bot.search`` lists every module of the package,
and only modules that exist (issue 17: it once named one that did not)."""

from __future__ import annotations

import re

import bot.search
from tests.kit import ROOT


def test_the_package_docstring_names_every_module_and_only_those():
    listed = re.findall(r"^\* ``([a-z_.]+)``:", bot.search.__doc__, re.M)
    package = ROOT / "bot" / "search"
    real = {
        ".".join(p.relative_to(package).with_suffix("").parts) for p in package.rglob("*.py") if p.name != "__init__.py"
    }
    assert len(listed) == len(set(listed)) > 20
    assert set(listed) == real
