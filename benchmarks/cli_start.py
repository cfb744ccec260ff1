"""How long ``paperbot --help`` takes to start, cold process by cold process.

Runs ``python -m bot --help`` N times in fresh processes for each checkout
given (``--tree PATH``, the checkout's ``bot/`` is imported: the working
directory comes first on ``sys.path``), alternating between them so both see
the same load, beside ``python -c pass`` (the interpreter alone). Reports the
median and p90 wall time of each, the ratio of each tree to the first one
(the named reference), the modules imported and ``-X importtime``'s
cumulative figure for ``bot.cli.main`` (one extra run each), and the load
average before and after.

    .venv/bin/python benchmarks/cli_start.py --tree /path/to/main --tree . --runs 20 \\
        --out benchmarks/results/cli_start.txt
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _once(argv: list[str], cwd: Path) -> float:
    """Wall seconds of one fresh process (output discarded; a failure raises)."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _imports(cwd: Path) -> tuple[int, float]:
    """(modules imported, cumulative µs of ``bot.cli.main``) from one ``-X importtime`` run."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "--help"], cwd=cwd, capture_output=True, text=True, check=True
    )
    rows = [line.split("|") for line in r.stderr.splitlines() if line.startswith("import time:") and "|" in line]
    rows = [row for row in rows if row[1].strip().isdigit()]
    main = next(int(row[1]) for row in rows if row[2].strip() == "bot.cli.main")
    return len(rows), main / 1e6


def _name(tree: Path) -> str:
    """The checkout as its commit (``git describe --always --dirty``), not its path."""
    r = subprocess.run(["git", "-C", str(tree), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return f"commit {r.stdout.strip()}" if r.returncode == 0 else tree.name


def main() -> None:
    """Time the cold starts and print (and with ``--out`` write) the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", type=Path, required=True, help="checkout to time (first: reference)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    trees = [t.resolve() for t in args.tree]
    load_before = os.getloadavg()
    names = {t: _name(t) for t in trees}
    times: dict[str, list[float]] = {"python -c pass": []} | {names[t]: [] for t in trees}
    for _ in range(args.runs):
        times["python -c pass"].append(_once([sys.executable, "-c", "pass"], trees[0]))
        for t in trees:
            times[names[t]].append(_once([sys.executable, "-m", "bot", "--help"], t))
    imports = {names[t]: _imports(t) for t in trees}
    load_after = os.getloadavg()

    ref = statistics.median(times[names[trees[0]]])
    out = [
        f"paperbot --help, cold processes ({args.runs} each, alternating), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; {os.cpu_count()} cores",
        "",
        f"{'what':<48} {'median s':>9} {'p90 s':>7} {'x ref':>6} {'modules':>8} {'import bot.cli.main s':>22}",
    ]
    result = {"runs": args.runs, "load_before": load_before, "load_after": load_after, "rows": []}
    for name, xs in times.items():
        med, p90 = statistics.median(xs), sorted(xs)[int(0.9 * (len(xs) - 1))]
        n, main_s = imports.get(name, (None, None))
        out.append(
            f"{name:<48} {med:>9.3f} {p90:>7.3f} {med / ref:>6.2f} {n if n is not None else '':>8} "
            f"{f'{main_s:.3f}' if main_s is not None else '':>22}"
        )
        result["rows"].append({"what": name, "median_s": med, "p90_s": p90, "modules": n, "import_main_s": main_s})
    report = "\n".join(out)
    print(report)
    if args.out:
        args.out.write_text(report + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
