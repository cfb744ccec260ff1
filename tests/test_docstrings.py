"""House rule (docs/architecture.md "Layers"; the team's rules): a public function
or method with two or more parameters says what each one means in a Google
``Args:`` section — a class's in its own docstring for ``__init__``. Read with
``ast`` from the source, so nothing is imported.

Checked in every module of ``bot/`` (``CHECKED``), none left out (``PENDING``).
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from tests.kit import ROOT

CHECKED = ("bot",)
#: Modules not checked yet (paths from the repository root): none.
PENDING: tuple[str, ...] = ()
_SECTION_END = r"^\s*(?:Returns|Raises|Yields|Attributes|Examples?|Notes?)\b[^\n]*:\s*$"


def args_section(doc: str | None) -> str | None:
    """The text of the docstring's ``Args:`` section, or None when it has none."""
    m = re.search(rf"^\s*Args:\s*$(.*?)(?={_SECTION_END}|\Z)", doc or "", re.M | re.S)
    return m.group(1) if m else None


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return [n for n in names if n not in ("self", "cls")]


def undocumented(source: str, where: str) -> list[str]:
    """``"<where>:<line> name: missing [params]"`` for each public function or method
    of ``source`` with two or more parameters whose ``Args:`` section leaves one out."""
    bad = []

    def visit(body: list[ast.stmt], owner: ast.ClassDef | None) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("_") and node.name != "__init__":
                    continue
                params = _parameters(node)
                if len(params) < 2:
                    continue
                doc_of = owner if node.name == "__init__" else node
                section = args_section(ast.get_docstring(doc_of) if doc_of is not None else None) or ""
                missing = [p for p in params if not re.search(rf"(?<!\w){re.escape(p)}(?!\w)", section)]
                if missing:
                    name = f"{owner.name}.{node.name}" if owner else node.name
                    bad.append(f"{where}:{node.lineno} {name}: missing {missing}")

    visit(ast.parse(source).body, None)
    return bad


FILES = sorted(p for top in CHECKED for p in (ROOT / top).rglob("*.py") if str(p.relative_to(ROOT)) not in PENDING)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_say_what_each_parameter_means(path: Path) -> None:
    assert undocumented(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))) == []


def test_the_check_finds_a_parameter_left_out() -> None:
    source = textwrap.dedent('''
        def two(a, b):
            """No section."""

        def named(a, b):
            """Both.

            Args:
                a: one.

            Returns:
                b is only named here, after the section.
            """

        class Thing:
            """A thing.

            Args:
                size: how big.
            """

            def __init__(self, size, colour):
                pass

            def one(self, a):
                """One parameter: no section needed."""

        def _private(a, b):
            pass
    ''')
    assert [b.split(" ", 1)[1] for b in undocumented(source, "probe.py")] == [
        "two: missing ['a', 'b']",
        "named: missing ['b']",
        "Thing.__init__: missing ['colour']",
    ]
