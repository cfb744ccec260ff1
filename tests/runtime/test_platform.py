"""Heroku-style deploys (README "Heroku-style platforms"): what the build needs, the Procfile,
``DYNO`` with SQLite, and the whole build → web + clock simulation on the seeds."""

import os
import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.clikit import run
from tests.kit import ROOT


def _pins() -> tuple[list[str], dict[str, str]]:
    lines = [
        ln.strip()
        for ln in (ROOT / "requirements.txt").read_text().splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    pins = {}
    for ln in lines:
        if "==" in ln:
            name, version = ln.split("==")
            pins[canonicalize_name(name)] = version
    return lines, pins


def test_requirements_install_the_project_with_postgres_and_pin_what_pyproject_asks():
    lines, pins = _pins()
    assert ".[postgres]" in lines
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["postgres"]
    for spec in map(Requirement, wanted):
        name = canonicalize_name(spec.name)
        assert name in pins, f"{spec.name} is not pinned in requirements.txt"
        assert spec.specifier.contains(pins[name]), f"{spec.name}=={pins[name]} is outside {spec.specifier}"


def test_python_version_is_pinned_to_one_the_project_supports():
    pinned = (ROOT / ".python-version").read_text().strip()
    assert re.fullmatch(r"3\.\d+", pinned), pinned
    minimum = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert minimum == ">=3.11" and int(pinned.split(".")[1]) >= 11


def test_procfile_has_no_release_phase_and_the_build_hook_builds_the_index():
    kinds = dict(ln.split(":", 1) for ln in (ROOT / "Procfile").read_text().splitlines() if ln.strip())
    assert set(kinds) == {"web", "clock"}
    assert "paperbot serve" in kinds["web"] and "$PORT" in kinds["web"]
    hook = ROOT / "bin" / "post_compile"
    assert os.access(hook, os.X_OK) and "paperbot index build" in hook.read_text()


@pytest.mark.parametrize("command", ["serve", "clock", "console"])
def test_dyno_with_sqlite_is_one_line(tmp_path, command):
    r = run(
        [command],
        tmp_path,
        stdin="/paper help\n",
        env_extra={"DYNO": "web.1", "SLACK_BOT_TOKEN": "xoxb-x", "SLACK_SIGNING_SECRET": "s"},
    )
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "SQLite" in r.stderr and "dyno web.1" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "index").exists(), "fails before building the index"


def test_sqlite_without_dyno_still_works(tmp_path):
    r = run(["console"], tmp_path, stdin="/paper help\n")
    assert r.returncode == 0, r.stderr


@pytest.mark.long_wall
def test_platform_simulation_on_the_seeds(pg_schema):
    """benchmarks/platform_sim.py end to end (its 5,000-paper run is in benchmarks/results/)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DYNO"))}
    env.pop("DATABASE_URL", None)
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "platform_sim.py"),
            "--python",
            sys.executable,
            "--subscribe",
            "store",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "FAIL" not in r.stdout
    for step in (
        "bin/post_compile built the index",
        "the Procfile has no release phase",
        "web.1 answers GET /healthz",
        "web.1 serves the slug's index",
        "results on the response_url",
        "clock.1 posted the paper of the day",
        "clock.1 uses the slug's index",
        "builds it at start",
        "DYNO + SQLite DATABASE_URL: exit 1, 1 line",
    ):
        assert any(ln.strip().startswith("PASS") and step in ln for ln in r.stdout.splitlines()), step
