"""``paperbot console`` with the issue-13 forms: a topic subscription, the
reading list (save / remove / export), a personal feed — real subprocess."""

from tests.cli.test_cli import run


def test_console_topic_subscription_and_reading_list(tmp_path):
    lines = (
        "/paper subscribe weekly mon 10:00 Europe/London 3 papers about reasoning\n"
        "/paper status\n/paper subscribe about zzqxv\n/paper search KIStego\n"
        "save p4x4f\nsave p4x4f\n/paper saved\nexport\nremove p4x4f\n/paper saved\n"
        "/paper subscribe me 08:00 about RL\n/paper unsubscribe me\n/paper subscribe 6 papers\n"
    )
    r = run(["console"], tmp_path, stdin=lines)
    out = r.stdout
    assert r.returncode == 0 and "Traceback" not in out + r.stderr
    assert "3 papers about “reasoning”" in out and "on Mondays at 10:00 (Europe/London)" in out
    assert "No paper matches “zzqxv”" in out
    assert "[Save: save p4x4f]" in out and "already in your reading list" in out
    assert "@inproceedings{p4x4f," in out and "paperbot-reading-list.bib" in out
    assert "Removed “" in out and "” from your reading list." in out and "reading list is empty" in out
    assert "personal feed" in out and "personal feed is stopped" in out
    assert "1 to 5 papers" in out
