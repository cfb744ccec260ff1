"""The README documents every command, and CI runs the README's test command verbatim;
docs/ and the README name only modules and functions that exist, and docs/architecture.md's
"Layers" table is the structure test's ``LAYERS``."""

import ast
import re
from pathlib import Path

from tests.kit import ROOT

README = (ROOT / "README.md").read_text()


def test_every_cli_command_is_in_the_readme():
    from bot.cli.main import main

    names = []
    for name, cmd in main.commands.items():
        subs = getattr(cmd, "commands", None)
        names += [f"paperbot {name} {s}" for s in subs] if subs else [f"paperbot {name}"]
    assert {"paperbot console", "paperbot index build", "paperbot search", "paperbot digest send"} <= set(names)
    for name in names:
        assert name in README, name


def test_every_env_variable_is_documented():
    example = (ROOT / ".env.example").read_text()
    for var in (
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_APP_TOKEN",
        "SLACK_API_URL",
        "DATABASE_URL",
        "PAPERBOT_INDEX_DIR",
        "PAPERBOT_SEEDS",
        "PAPERBOT_DEFAULT_TIME",
        "PAPERBOT_DEFAULT_TZ",
        "PORT",
    ):
        assert f"{var}=" in example and var in README


def test_quick_start_has_two_commands_and_ci_runs_the_test_one_verbatim():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", quick, re.S)
    assert len(blocks) == 2
    assert "paperbot console" in blocks[0] and "pytest" in blocks[1]
    assert blocks[1] in (ROOT / ".ci" / "run").read_text()


def test_every_slash_subcommand_is_in_the_readme():
    from bot.core.parsing import ALONE_ONLY, WITH_ARGUMENT

    assert {"search", "subscribe", "help"} <= set(ALONE_ONLY + WITH_ARGUMENT)
    for sub in ALONE_ONLY + WITH_ARGUMENT:
        assert f"/paper {sub}" in README, sub


# ---------------------------------------------------------------- docs/ and citations
DOCS = ROOT / "docs"
#: Where code, tests and benchmarks live, plus the README: what a newcomer reads.
CITING = [ROOT / "README.md"] + [
    p
    for top in ("bot", "tests", "benchmarks")
    for p in sorted((ROOT / top).rglob("*"))
    if p.is_file() and p.suffix in (".py", ".md", ".txt", ".json", ".toml", ".yml", ".yaml", ".cfg", ".csv", ".jsonl")
]
#: Documents that exist only outside this repository (names split so this file does not cite them).
OUTSIDE_DOCS = ["DES" + "IGN.md", "PLATFORM-" + "FACTS", "INTER" + "FACES.md", "FIND" + "INGS.md", "STY" + "LE.md"]
#: Absolute paths of a build machine (``../shared/...`` relative to the repository is fine).
MACHINE_PATH = re.compile(
    r"(?<![\w.])/(?:" + "|".join(["wo" + "rk", "ho" + "me", "Us" + "ers", "ro" + "ot", "m" + "nt"]) + r")/"
)
_CITE = re.compile(r"docs/([\w-]+)\.md(?:#([\w-]+))?(?:\)|,)?\s*(?:\"([^\"\n]+(?:\n[^\"\n]+)?)\")?")
_LINK = re.compile(r"\]\(([\w-]+)\.md(?:#([\w-]+))?\)")


def _headings(name: str) -> list[str]:
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    return [line.lstrip("#").strip().replace("`", "") for line in text.splitlines() if line.startswith("#")]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _check_cite(name: str, anchor: str | None, quoted: str | None, where: str) -> None:
    assert (DOCS / f"{name}.md").exists(), f"{where} cites docs/{name}.md, which does not exist"
    heads = _headings(name)
    if anchor:
        assert anchor in {_slug(h) for h in heads}, f"{where}: no heading for #{anchor} in docs/{name}.md"
    if quoted:
        wanted = " ".join(quoted.split()).lower()
        assert any(" ".join(h.split()).lower() == wanted for h in heads), (
            f"{where}: docs/{name}.md has no heading {quoted!r}"
        )


def test_the_docs_folder_has_the_three_core_pages():
    for name in ("architecture", "interfaces", "platform-facts"):
        assert (DOCS / f"{name}.md").stat().st_size > 2000, name


def test_architecture_answers_the_three_first_questions_first():
    """A reader given only the page finds the ack, the mention claim and the digest claim
    in its first three sections, each heading naming the file and the function."""
    heads = _headings("architecture")
    assert [h.split(":")[0] for h in heads[1:4]] == [
        "Where a slash command is acknowledged",
        "Where a mention is claimed",
        "Where a digest is claimed",
    ]
    assert heads[1].endswith("bot/slack/listeners/slash_command.py: paper_command")
    assert heads[2].endswith("bot/store/claims.py: ClaimStore.journal_claim")
    assert heads[3].endswith("bot/store/claims.py: ClaimStore.claim_delivery")
    for head in heads[1:4]:
        path, name = head.split(": ", 1)[1].split(": ")
        assert name in _defined(ROOT / path), head


# ---------------------------------------------------------------- docs against the code
#: Pages that name modules of ``bot/`` for a reader: every one they name must exist.
NAMING = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted(DOCS.glob("*.md"))]
_BOT_PATH = re.compile(r"(?<![\w./-])bot/(?:\w+/)*(?:\w+\.py)?")
_BOT_NAME = re.compile(r"(bot/(?:\w+/)*\w+\.py):\s*([A-Za-z_][\w.]*\w)")


def _defined(path: Path) -> set[str]:
    """Names a reader can look up in ``path``: functions and classes at any depth,
    ``Class.member`` for their methods and attributes, and module-level assignments."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {t for node in tree.body for t in _targets(node)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        out.add(f"{node.name}.{sub.name}")
                    out.update(f"{node.name}.{target}" for target in _targets(sub))
    return out


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def test_every_module_path_the_docs_name_exists():
    seen, missing = 0, []
    for page in NAMING:
        text = page.read_text(encoding="utf-8")
        for m in _BOT_PATH.finditer(text):
            seen += 1
            if not (ROOT / m.group()).exists():
                missing.append(f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}")
    assert not missing, "\n".join(missing)
    assert seen > 100  # the pages do name modules: a pattern that matched nothing would pass vacuously


def test_every_function_the_docs_name_is_in_its_module():
    seen, missing = 0, []
    for page in NAMING:
        text = page.read_text(encoding="utf-8")
        for m in _BOT_NAME.finditer(text):
            path = ROOT / m.group(1)
            seen += 1
            if path.exists() and m.group(2) not in _defined(path):
                missing.append(f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}")
    assert not missing, "\n".join(missing)
    assert seen > 50


def _layers_rows() -> list[tuple[int, str, str]]:
    """``(layer, package, what it holds)`` for each row of the "Layers" table of docs/architecture.md."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1].strip("`"), cells[2]))
    return rows


def test_the_layers_table_is_the_structure_tests():
    from tests.test_structure import LAYERS

    rows = _layers_rows()
    table: dict[int, list[str]] = {}
    for layer, package, _ in rows:
        table.setdefault(layer, []).append(package)
    assert {layer: sorted(p) for layer, p in table.items()} == {layer: sorted(p) for layer, p in LAYERS.items()}
    named = [package for _, package, _ in rows]
    assert len(named) == len(set(named))  # one row per package
    for package in named:
        path = ROOT / package.replace(".", "/")
        assert (path / "__init__.py").exists() or path.with_suffix(".py").exists(), package


def test_the_layers_table_names_every_sub_package_in_its_package_row():
    holds = {package: cell for _, package, cell in _layers_rows()}
    subs = sorted(p.parent for p in (ROOT / "bot").glob("*/*/__init__.py"))
    assert len(subs) >= 6  # slack's three parts and search's three
    for sub in subs:
        package = "bot." + sub.parent.name
        assert f"`{sub.name}/`" in holds[package], f"{package}'s row does not name {sub.name}/"


def test_the_top_of_bot_holds_packages_only():
    loose = sorted(p.name for p in (ROOT / "bot").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "entry.py"]


def test_no_file_cites_a_document_or_a_path_outside_the_repository():
    offenders = []
    for path in CITING:
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if any(doc in line for doc in OUTSIDE_DOCS) or MACHINE_PATH.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not offenders, "\n".join(offenders)


def test_every_cited_docs_page_and_heading_exists():
    seen = 0
    for path in CITING:
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _CITE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            _check_cite(m.group(1), m.group(2), m.group(3), f"{path.relative_to(ROOT)}:{line}")
            seen += 1
    assert seen > 50  # the code does cite docs/: a pattern that matched nothing would pass vacuously


def test_links_between_docs_pages_resolve():
    seen = 0
    for page in sorted(DOCS.glob("*.md")):
        for m in _LINK.finditer(page.read_text(encoding="utf-8")):
            name, anchor = m.group(1), m.group(2)
            if name == "README":
                continue
            _check_cite(name, anchor, None, f"docs/{page.name}")
            seen += 1
        for m in re.finditer(r"\]\(#([\w-]+)\)", page.read_text(encoding="utf-8")):
            _check_cite(page.stem, m.group(1), None, f"docs/{page.name}")
            seen += 1
    assert seen > 10


def test_the_readme_gives_the_real_input_limits():
    """The README's figures for how much text is read are the code's (issue: it spoke of a
    "search window" of 3,000 characters while replies said 4,000)."""
    from bot.core.parsing import MAX_INPUT
    from bot.render.home import MODAL_INPUT_MAX

    flat = " ".join(README.split())
    assert f"read up to {MAX_INPUT:,} characters" in flat
    assert f"*Search papers* box takes up to {MODAL_INPUT_MAX:,}" in flat
    assert "search window" not in flat
