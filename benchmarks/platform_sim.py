#!/usr/bin/env python3
"""Heroku-style platform simulation: build once, run ``web`` and ``clock`` from fresh slug copies.

Usage::

    .venv/bin/python benchmarks/platform_sim.py [DATA --docs 5000] [--out FILE]
        [--python PY] [--subscribe web|store] [--no-fallback]

What a platform whose processes share no disk does, step by step (README "Heroku-style platforms"):

1. **source** — the repository's tracked and unignored files are copied into a build folder, as a
   ``git push`` would; with ``DATA --docs N`` the first N records of ``DATA/*.jsonl.gz`` (read now,
   never committed) become the app's corpus ``corpus/papers.jsonl`` and ``PAPERBOT_SEEDS`` names it.
2. **build** — a fresh virtualenv outside the build folder (the platform's ``/app/.heroku/python``)
   gets ``pip install -r requirements.txt``, run in the build folder; then ``bin/post_compile``
   runs there with the config vars and without ``DYNO``, as the Python buildpack does.
   ``--python PY`` skips the install and uses an existing interpreter (the test does this).
3. **release** — a ``release:`` line in the Procfile would run in a throwaway copy: its files are
   not kept. The Procfile must have none.
4. **run** — ``web`` and ``clock`` each start, with ``DYNO`` set, from their own fresh copy of the
   build folder, with PostgreSQL (a new schema on 127.0.0.1:5432, db ``test``) as ``DATABASE_URL``
   and the fake Slack Web API (``tests/fakeslack.py``) as ``SLACK_API_URL``. Measured: time from
   spawn to ``GET /healthz``; the platform allows 60 s. Then a signed ``/paper search`` is answered
   on its ``response_url`` and the clock posts the paper of the day to a subscribed channel —
   subscribed through ``web`` (``/paper subscribe`` for the next minute; up to 90 s) or, with
   ``--subscribe store``, written to the store as if subscribed yesterday (the clock posts at once).
5. **fallback** — a third web dyno starts from a copy without the index (what happens when
   ``PAPERBOT_SEEDS`` changes by a config var, which makes no new build): boot time including the
   start-up build. And ``DYNO`` with a SQLite ``DATABASE_URL`` must fail in one line.

Exit status 0 when every check passed, 1 otherwise (the report says which).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from platform_phases import SECRET, Dyno, copy_source, free_port, procfile, run, slash, write_slice  # noqa: E402
from report import publish  # noqa: E402  benchmarks/report.py (scripts run from benchmarks/)

from tests.fakeslack import TEAM_ID, FakeSlack  # noqa: E402

PG_DSN = os.environ.get("PAPERBOT_TEST_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
PG_URL = os.environ.get("PAPERBOT_SIM_PG_URL", "postgres://postgres@127.0.0.1:5432/test")
BOOT_LIMIT_S = 60.0
DIGEST_CHANNEL = "C0SIMDIGEST"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?", type=Path, help="folder of *.jsonl.gz (or one file); default: seeds/")
    ap.add_argument("--docs", type=int, default=5000, help="records to take from DATA (default 5000)")
    ap.add_argument("--query", default=None, help="the search to send (default depends on the corpus)")
    ap.add_argument("--python", type=Path, help="use this interpreter's environment instead of a fresh venv")
    ap.add_argument("--subscribe", choices=("web", "store"), default="web")
    ap.add_argument("--no-fallback", action="store_true", help="skip the start-up-build measurement")
    ap.add_argument("--out", type=Path, help="write the report here (and its .json twin)")
    args = ap.parse_args()
    import psycopg

    report = _Report(progress=sys.stderr if args.out else sys.stdout)
    say, check, data = report.say, report.check, report.data
    started = datetime.now(timezone.utc)
    say("paperbot platform simulation — build once, web and clock from fresh slug copies")
    say("=" * 78)
    say(
        f"started {started:%Y-%m-%d %H:%M:%S} UTC; python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs; load average at start {os.getloadavg()[0]:.2f}"
    )
    say("NOTE: this machine is shared with other sessions; wall times include waiting for a core.")
    tmp = Path(tempfile.mkdtemp(prefix="paperbot-platform-"))
    build, base = tmp / "build", tmp / "dynos"
    build.mkdir()
    base.mkdir()
    schema = f"pbsim_{uuid.uuid4().hex[:12]}"
    pg = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    pg.execute(f'CREATE SCHEMA "{schema}"')
    dynos: list[Dyno] = []
    fake = FakeSlack().start()
    try:
        say("\n1. source")
        n_files = copy_source(ROOT, build)
        config = {
            "SLACK_BOT_TOKEN": "xoxb-sim-token",
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": fake.api_url,
            "DATABASE_URL": f"{PG_URL}?options=-csearch_path%3D{schema}",
        }
        if args.data:
            n_docs = write_slice(args.data, args.docs, build / "corpus" / "papers.jsonl")
            config["PAPERBOT_SEEDS"] = "corpus/papers.jsonl"
            query = args.query or "search graph neural networks"
            say(
                f"  {n_files} files; corpus: first {n_docs} records of {os.path.relpath(args.data, ROOT)} -> corpus/papers.jsonl"
            )
        else:
            n_docs, query = None, args.query or "search image steganography"
            say(f"  {n_files} files; corpus: the repository's seeds/ (PAPERBOT_SEEDS unset)")
        data.update(files=n_files, records=n_docs, query=query, started=started.isoformat())

        say("\n2. build (slug compile)")
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_", "DYNO"))}
        base_env.pop("DATABASE_URL", None)
        if args.python:
            bindir = args.python.absolute().parent
            say(f"  install: skipped, using {args.python}")
        else:
            venv = tmp / "python"
            secs, done = run([sys.executable, "-m", "venv", str(venv)])
            secs2, done = run(
                [str(venv / "bin" / "pip"), "install", "-q", "-r", "requirements.txt"], cwd=build, env=base_env
            )
            if not check(
                done.returncode == 0, f"pip install -r requirements.txt into a fresh venv ({secs + secs2:.1f} s)"
            ):
                say(done.stderr[-2000:])
                return 1
            bindir = venv / "bin"
            data["install_s"] = round(secs + secs2, 1)
        env = {**base_env, **config, "PATH": f"{bindir}{os.pathsep}{base_env.get('PATH', '')}"}
        secs, done = run(["bash", "bin/post_compile"], cwd=build, env=env)
        data["post_compile_s"] = round(secs, 1)
        say("  " + "\n  ".join((done.stdout + done.stderr).strip().splitlines()[-3:]))
        if not check(
            done.returncode == 0 and (build / "index" / "CURRENT").exists(),
            f"bin/post_compile built the index into the slug ({secs:.1f} s)",
        ):
            return 1
        built_gen = (build / "index" / "CURRENT").read_text().strip()

        say("\n3. release")
        kinds = procfile(build)
        check("release" not in kinds, "the Procfile has no release phase (its files would not be kept)")
        check(
            set(kinds) >= {"web", "clock"} and "$PORT" in kinds.get("web", ""),
            f"process types {sorted(kinds)}; web binds $PORT",
        )

        say("\n4. run")
        port = free_port()
        web = Dyno("web.1", build, base, kinds["web"], {**env, "PORT": str(port)})
        dynos.append(web)
        boot = web.wait_healthy(port, BOOT_LIMIT_S)
        data["web_boot_s"] = boot and round(boot, 2)
        if not check(
            boot is not None,
            f"web.1 answers GET /healthz on $PORT within {BOOT_LIMIT_S:.0f} s (took {boot or 0:.2f} s)",
        ):
            say(web.stop()[-3000:])
            return 1
        check(web.generations() == [built_gen], f"web.1 serves the slug's index ({built_gen}), no build at start")
        status, url = slash(port, fake, query)
        reply = fake.wait_for("response_url", where=lambda c: url.endswith(c.path), timeout=30)[0]
        blocks = str(reply.body.get("blocks", ""))
        check(
            status == 200 and "Details" in blocks, f"signed /paper {query!r}: ack {status}, results on the response_url"
        )
        data["search_reply_text"] = reply.body.get("text", "")[:200]

        post_time = _subscribe(args.subscribe, port, fake, config["DATABASE_URL"], say)
        in_channel = lambda c: c.body.get("channel") == DIGEST_CHANNEL  # noqa: E731
        before = len([c for c in fake.calls("chat.postMessage") if in_channel(c)])  # the subscribe notice
        clock = Dyno("clock.1", build, base, kinds["clock"], env)
        dynos.append(clock)
        wait = max(0.0, (post_time - datetime.now(timezone.utc)).total_seconds()) + 45
        try:
            post = fake.wait_for("chat.postMessage", count=before + 1, timeout=wait, where=in_channel)[-1]
            after = time.perf_counter() - clock.started
            check(
                bool(post.body.get("blocks")),
                f"clock.1 posted the paper of the day to {DIGEST_CHANNEL} "
                f"for the {post_time:%H:%M} post time ({after:.0f} s after it started)",
            )
            data["digest_after_clock_start_s"] = round(after, 1)
            data["digest_text"] = post.body.get("text", "")[:200]
        except AssertionError as e:
            check(False, f"clock.1 posted the paper of the day ({e})")
            say(clock.stop()[-3000:])
        check(clock.generations() == [built_gen], "clock.1 uses the slug's index, no build at start")

        say("\n5. fallback and misconfiguration")
        if not args.no_fallback:
            port2 = free_port()
            cold = Dyno("web.2", build, base, kinds["web"], {**env, "PORT": str(port2)}, keep_index=False)
            dynos.append(cold)
            boot2 = cold.wait_healthy(port2, BOOT_LIMIT_S)
            data["web_boot_without_index_s"] = boot2 and round(boot2, 2)
            check(
                boot2 is not None,
                f"web.2 without the slug's index builds it at start and answers "
                f"/healthz within {BOOT_LIMIT_S:.0f} s (took {boot2 or 0:.2f} s)",
            )
        sqlite_env = {**env, "PORT": str(free_port()), "DATABASE_URL": "sqlite:///paperbot.db"}
        bad = Dyno("web.3", build, base, kinds["web"], sqlite_env)
        bad.proc.wait(timeout=60)
        out = bad.stop().strip().splitlines()
        check(
            bad.proc.returncode == 1 and len(out) == 1 and "SQLite" in out[0],
            f"DYNO + SQLite DATABASE_URL: exit {bad.proc.returncode}, {len(out)} line",
        )
        say(f"        {out[0] if out else ''}")
    finally:
        for d in dynos:
            d.stop()
        fake.stop()
        pg.execute(f'DROP SCHEMA "{schema}" CASCADE')
        pg.close()
        shutil.rmtree(tmp, ignore_errors=True)

    failed = [w for ok, w in report.checks if not ok]
    say(
        f"\n{len(report.checks) - len(failed)} of {len(report.checks)} checks passed"
        f"{'' if not failed else '; FAILED: ' + '; '.join(failed)}"
    )
    data["checks"] = [{"ok": ok, "what": w} for ok, w in report.checks]
    if args.out:
        publish(report.lines, args.out, data)
    return 1 if failed else 0


class _Report:
    """The report's lines as they are said, its checks and its JSON data.

    Args:
        progress: where each line is also printed as it goes (with ``--out``,
            ``publish`` prints the whole report again at the end).
    """

    def __init__(self, progress) -> None:
        self.progress = progress
        self.lines: list[str] = []
        self.checks: list[tuple[bool, str]] = []
        self.data: dict = {}

    def say(self, text: str = "") -> None:
        self.lines.append(text)
        print(text, file=self.progress, flush=True)

    def check(self, ok: bool, what: str) -> bool:
        self.checks.append((bool(ok), what))
        self.say(f"  {'PASS' if ok else 'FAIL'}  {what}")
        return ok


def _subscribe(how: str, port: int, fake, database_url: str, say) -> datetime:
    """Subscribe ``DIGEST_CHANNEL`` to the paper of the day — through web.1
    (a signed ``/paper subscribe`` for the next minute) or straight into the
    store (now, as if made yesterday) — and return its post time."""
    now = datetime.now(timezone.utc)
    if how == "web":
        post_time = (now + timedelta(minutes=1)).replace(second=0, microsecond=0)
        status, url = slash(port, fake, f"subscribe {post_time:%H:%M} UTC", channel=DIGEST_CHANNEL)
        fake.wait_for("response_url", where=lambda c: url.endswith(c.path), timeout=30)
        say(f"  /paper subscribe {post_time:%H:%M} UTC sent through web.1 (ack {status})")
        return post_time
    from bot.core.config import normalise_database_url
    from bot.store import Store

    post_time = now.replace(second=0, microsecond=0)
    store = Store(normalise_database_url(database_url))
    store.upsert_subscription(
        TEAM_ID, DIGEST_CHANNEL, f"{post_time:%H:%M}", "UTC", "U0SIM", now=now - timedelta(days=1)
    )
    store.close()
    say(f"  subscription {post_time:%H:%M} UTC written to the store as if made yesterday")
    return post_time


if __name__ == "__main__":
    sys.exit(main())
