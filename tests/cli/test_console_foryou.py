"""``paperbot console`` as a new user tries issue 22: ``/paper foryou`` with nothing saved, three
saves, the picks with why, ``nope <id>`` (*Not for me*) and ``like <id>`` — real subprocess, the
real model over the seed index."""

import re

from tests.cli.test_cli import run


def test_console_foryou_from_nothing_to_picks_that_say_why(tmp_path):
    saves = "".join(f"save {pid}\n" for pid in ("p4x4f", "p8qw5", "pzd02"))
    r = run(["console"], tmp_path, stdin=f"/paper foryou\n{saves}/paper for you\n")
    out = r.stdout
    assert r.returncode == 0 and "Traceback" not in out + r.stderr
    assert "you have 0 so far" in out and "For example, from the index:" in out
    picks = out.split("*Picked for you*")[1]
    assert picks.count("Why: because you saved *") == 5
    first = re.search(r"\[Not for me: nope (\w+)\]", picks).group(1)
    again = run(["console"], tmp_path, stdin=f"nope {first}\nlike zzzz\n").stdout
    assert f"nope {first}]" not in again and "Picked for you" in again
    assert "I have no paper with the id “zzzz”." in again
