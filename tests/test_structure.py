"""The house rules as tests (docs/architecture.md "Layers"): module size, which
package may import each outside library, layers importing one way only, no
import cycle, and who may read the environment. Imports are read with ``ast`` from the source
(function-level and ``TYPE_CHECKING`` imports included), so nothing is imported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.kit import ROOT

#: Size follows responsibility (docs/architecture.md "Size"): a module has one
#: reason to change. Above MAX_LINES it almost surely has two, and the test
#: fails; above NOTE_LINES it is listed in the run's summary as a note, so the
#: next person to change it asks whether it has two jobs.
MAX_LINES = 500
NOTE_LINES = 400

#: Outside libraries (top-level import name) → the packages allowed to import them.
CLI = ("bot.cli", "bot.entry", "bot.__main__")
THIRD_PARTY = {
    # search engine and its text tools
    "whoosh": ("bot.search",),
    "numpy": ("bot.search", "bot.recommend"),
    # recommendations: the linear SVM and the sparse matrix it reads
    "sklearn": ("bot.recommend",),  # scikit-learn
    "scipy": ("bot.recommend",),
    "Stemmer": ("bot.search",),  # PyStemmer
    "wordfreq": ("bot.search",),  # word lists, should search take one
    "english_words": ("bot.search",),
    "spellchecker": ("bot.search",),  # pyspellchecker
    "symspellpy": ("bot.search",),
    # storage
    "sqlalchemy": ("bot.store",),
    "psycopg": ("bot.store",),  # SQLAlchemy loads it; never imported directly today
    "cryptography": ("bot.store.token_cipher",),  # Fernet: a distributed app's tokens sealed at rest
    # the digest clock
    "apscheduler": ("bot.digest.clock",),
    # Slack
    "slack_bolt": ("bot.slack",),
    "waitress": ("bot.slack",),
    # bot.render builds Block Kit with slack_sdk.models; bot.store.installations wraps
    # slack_sdk's SQLAlchemy installation and OAuth state stores
    "slack_sdk": ("bot.slack", "bot.render", "bot.store.installations"),
    # the corpus
    "pylatexenc": ("bot.corpus",),
    "lemminflect": ("bot.corpus.wordlists",),  # its part-of-speech word list: keywords are nouns
    # the command line
    "click": CLI,
    "dotenv": CLI,
}

#: Layers, highest first (docs/architecture.md "Layers"): one line per package.
#: A module may import its own layer or a lower one; in the adapter layers (1
#: and 3) a package may not import a sibling package ("rooms": search must not
#: import corpus, slack must not import digest).
LAYERS = {
    4: ("bot.entry", "bot.__main__", "bot.cli", "bot.runtime"),
    3: ("bot.slack", "bot.digest"),
    2: ("bot.service", "bot.recommend"),
    1: ("bot.render", "bot.search", "bot.store", "bot.corpus"),
    0: ("bot", "bot.core", "bot.daily"),
}
ROOM_LAYERS = (1, 3)
#: Modules that may read the process environment (everything else gets a ``Settings``).
ENV_READERS = ("bot.cli.main",)


def _py_files(*tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (ROOT / top).rglob("*.py") if ".venv" not in p.parts)


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    """True when ``name`` is a module or package in the repository."""
    where = ROOT / Path(*name.split("."))
    return where.is_dir() or where.with_suffix(".py").is_file()


def _import_nodes(path: Path, module: str):
    """``(node, base)`` for every import statement of ``path`` (the source of
    ``module``), at any depth (function-level and ``TYPE_CHECKING`` ones
    included); ``base`` is a ``from`` import's absolute module (relative
    imports resolved), None for a plain ``import``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield node, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            yield node, base


def _imports(path: Path, module: str) -> list[tuple[str, int]]:
    """Every module name ``path`` (the source of ``module``) imports, absolute,
    with its line. ``from bot import corpus`` also gives ``bot.corpus`` (a
    submodule); relative imports are resolved."""
    out = []
    for node, base in _import_nodes(path, module):
        if base is None:
            out += [(alias.name, node.lineno) for alias in node.names]
            continue
        out.append((base, node.lineno))
        out += [(f"{base}.{a.name}", node.lineno) for a in node.names if _is_module(f"{base}.{a.name}")]
    return out


def _needs(path: Path, module: str) -> set[str]:
    """The modules ``module``'s code uses, for the import graph: ``import
    a.b`` uses ``a.b``; ``from p import n`` uses ``p`` when ``n`` is a name
    defined in ``p``, and only ``p.n`` when ``n`` is a submodule (the pattern
    by which a package's ``__init__`` re-exports its modules' names and the
    modules import each other without running into it)."""
    out = set()
    for node, base in _import_nodes(path, module):
        if base is None:
            out.update(alias.name for alias in node.names)
            continue
        subs = [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]
        out.update(subs)
        if len(subs) < len(node.names):
            out.add(base)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (module -> modules it needs): each
    strongly connected component of two or more modules, or a module that
    needs itself, sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _import_graph(files: list[tuple[Path, str]]) -> dict[str, set[str]]:
    """Module -> the modules of ``files`` it needs (``_needs``)."""
    known = {module for _, module in files}
    return {module: _needs(path, module) & known for path, module in files}


def _layer(module: str) -> tuple[int, str] | None:
    """(layer, the matching prefix) for a ``bot`` module; None when in no layer."""
    best = None
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[1])):
                best = (layer, prefix)
    return best


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


BOT_FILES = _py_files("bot")
BOT_MODULES = [(p, _module(p)) for p in BOT_FILES]
ALL_FILES = _py_files("bot", "tests", "benchmarks")


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_size(path: Path) -> None:
    rel = str(path.relative_to(ROOT))
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, (
        f"{rel} has {lines} lines (at most {MAX_LINES}): it has more than one "
        "reason to change; split it by responsibility"
    )


def long_modules() -> list[tuple[str, int]]:
    """``(path, lines)`` of every module over ``NOTE_LINES`` (printed by tests/conftest.py
    at the end of a run)."""
    sizes = ((str(p.relative_to(ROOT)), len(p.read_text(encoding="utf-8").splitlines())) for p in ALL_FILES)
    return [(rel, n) for rel, n in sizes if n > NOTE_LINES]


def test_every_bot_module_has_a_layer() -> None:
    missing = [_module(p) for p in BOT_FILES if _layer(_module(p)) is None]
    assert not missing, f"add these modules to LAYERS in tests/test_structure.py: {missing}"


def _third_party_violations(files: list[tuple[Path, str]]) -> list[str]:
    bad = []
    for path, module in files:
        for name, line in _imports(path, module):
            top = name.split(".")[0]
            if not top or top == "bot" or top in sys.stdlib_module_names or top == "__future__":
                continue
            allowed = THIRD_PARTY.get(top)
            if allowed is None:
                bad.append(
                    f"{module}:{line} imports {top}, which is not in THIRD_PARTY: add it with "
                    "the one package allowed to use it"
                )
            elif not _within(module, allowed):
                bad.append(f"{module}:{line} imports {top}; only {', '.join(allowed)} may")
    return bad


def test_outside_libraries_stay_in_their_package() -> None:
    assert _third_party_violations(BOT_MODULES) == []


def _layer_violations(files: list[tuple[Path, str]]) -> list[str]:
    bad = []
    for path, module in files:
        mine = _layer(module)
        for name, line in _imports(path, module):
            if name != "bot" and not name.startswith("bot."):
                continue
            theirs = _layer(name)
            if mine is None or theirs is None:
                continue  # reported by test_every_bot_module_has_a_layer
            if theirs[0] > mine[0]:
                bad.append(f"{module}:{line} (layer {mine[0]}) imports {name} (layer {theirs[0]})")
            elif theirs[0] == mine[0] in ROOM_LAYERS and theirs[1] != mine[1]:
                bad.append(f"{module}:{line} imports its sibling {name} (both layer {mine[0]})")
    return bad


def test_layers_import_one_way() -> None:
    assert _layer_violations(BOT_MODULES) == []


#: The Slack listeners (docs/architecture.md "Layers"): one module per Slack surface.
#: What they share is in ``common`` (what clicks share: ``clicks``); no listener imports
#: another, and below them (delivery, transport) nothing imports a listener. Only the app
#: registers them.
LISTENERS = "bot.slack.listeners"
LISTENERS_SHARED = (LISTENERS, LISTENERS + ".common", LISTENERS + ".clicks")
LISTENERS_REGISTERED_BY = ("bot.slack.app",)


def _listener_violations(files: list[tuple[Path, str]]) -> list[str]:
    bad = []
    for path, module in files:
        if not _within(module, ("bot.slack",)) or _within(module, LISTENERS_REGISTERED_BY):
            continue
        mine = _within(module, (LISTENERS,))
        for name, line in _imports(path, module):
            if not _within(name, (LISTENERS,)) or name == module:
                continue
            if not mine:
                bad.append(f"{module}:{line} imports the listener {name}: only {LISTENERS_REGISTERED_BY} may")
            elif name not in LISTENERS_SHARED:
                bad.append(f"{module}:{line} imports the listener {name}: move what both need to {LISTENERS}.common")
    return bad


def test_no_listener_imports_another() -> None:
    listeners = [m for _, m in BOT_MODULES if _within(m, (LISTENERS,)) and m not in LISTENERS_SHARED]
    assert len(listeners) >= 11  # one per surface: the check below reads real modules
    assert _listener_violations(BOT_MODULES) == []


def test_the_listener_check_catches_a_listener_importing_another(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from bot.slack.listeners.common import SEARCHING\nfrom bot.slack.listeners import mention\n"
        "from bot.slack.listeners.buttons import BUTTONS\n",
        encoding="utf-8",
    )
    as_listener = _listener_violations([(probe, "bot.slack.listeners.probe")])
    as_delivery = _listener_violations([(probe, "bot.slack.delivery.probe")])
    assert len(as_listener) == 2 and "listener bot.slack.listeners.mention" in as_listener[0]
    assert "listener bot.slack.listeners.buttons" in as_listener[1]
    assert len(as_delivery) == 4 and all("only ('bot.slack.app',) may" in v for v in as_delivery)
    assert _listener_violations([(probe, "bot.slack.app")]) == []


def test_no_import_cycle_anywhere_in_bot() -> None:
    """No module of ``bot`` needs, through any chain of imports at module or
    function level, a module that needs it (docs/architecture.md "Layers")."""
    assert _cycles(_import_graph(BOT_MODULES)) == []


def test_the_cycle_check_sees_function_level_imports_and_not_package_reexports(tmp_path: Path) -> None:
    def probe(name: str, source: str) -> tuple[Path, str]:
        path = tmp_path / name / "__init__.py" if name.endswith("pkg") else tmp_path / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        return path, f"bot.search.{name}"

    # a.f() imports b, b imports a at module level: the cycle scorer <-> impacts was
    a = probe("probe_a", "def f():\n    from bot.search.probe_b import g\n    return g\n")
    b = probe("probe_b", "from bot.search.probe_a import f\n")
    # a package re-exporting a name of its module, which imports a sibling of the package
    pkg = probe("probe_pkg", "from bot.search.probe_pkg.inner import X\n")
    inner = (pkg[0].parent / "inner.py", "bot.search.probe_pkg.inner")
    inner[0].write_text("from bot.search import resolving\nX = resolving\n", encoding="utf-8")
    graph = _import_graph([a, b, pkg, inner, (ROOT / "bot/search/resolving.py", "bot.search.resolving")])
    assert _cycles(graph) == [["bot.search.probe_a", "bot.search.probe_b"]]
    assert graph["bot.search.probe_pkg.inner"] == {"bot.search.resolving"}


def _env_reads(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "environb", "getenv", "putenv")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and {a.name for a in node.names} & {"environ", "environb", "getenv"}
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_cli_reads_the_environment() -> None:
    bad = [f"{_module(p)}:{line}" for p in BOT_FILES if not _within(_module(p), ENV_READERS) for line in _env_reads(p)]
    assert bad == [], f"only {ENV_READERS} may read os.environ; pass Settings instead: {bad}"


def test_the_checks_catch_what_they_guard(tmp_path: Path) -> None:
    """Each check, fed a file that breaks its rule, reports it (so none passes vacuously)."""
    probe = tmp_path / "probe.py"  # read as if it were bot/search/probe.py
    probe.write_text(
        "import os\nimport whoosh\nimport requests\nfrom bot.corpus import acronyms\n"
        "from bot import service\nKEY = os.environ.get('X')\nimport click\n",
        encoding="utf-8",
    )
    as_search = [(probe, "bot.search.probe")]
    third = _third_party_violations(as_search)
    layers = _layer_violations(as_search)
    env = _env_reads(probe)
    assert len(third) == 2 and "requests, which is not in THIRD_PARTY" in third[0] and "click" in third[1]
    assert any("sibling bot.corpus" in v for v in layers) and any("bot.service (layer 2)" in v for v in layers)
    assert env == [6]
    assert _layer("bot.slack.listeners.mention") == (3, "bot.slack") and _layer("bot.cli.serving") == (4, "bot.cli")


_IMPORT_ALONE = textwrap.dedent("""
    import importlib, sys
    importlib.import_module(sys.argv[1])
    outside = sorted({m.partition(".")[0] for m, mod in list(sys.modules.items())
                      if "-packages" in (getattr(mod, "__file__", None) or "")})
    print(outside)
""")


def _import_alone(module: str) -> subprocess.CompletedProcess:
    """Import ``module`` in a Python started with ``-S``: no site-packages at all,
    as in a venv where slack_sdk, slack_bolt, whoosh, SQLAlchemy ... are absent;
    ``bot`` is found from the repository root (the working directory)."""
    return subprocess.run(
        [sys.executable, "-S", "-c", _IMPORT_ALONE, module], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_the_service_imports_without_any_outside_library() -> None:
    done = _import_alone("bot.service.service")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_site_packages_slack_sdk_is_really_absent() -> None:
    done = _import_alone("bot.render")  # builds Block Kit with slack_sdk
    assert done.returncode != 0 and "No module named 'slack_sdk'" in done.stderr
