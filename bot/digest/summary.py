"""The result of a digest run, and the error of a manual send that needs ``--force``."""

from __future__ import annotations

from dataclasses import dataclass, field


class DigestDateError(ValueError):
    """``send`` was asked for a date that needs ``force`` (message is user-facing)."""


@dataclass
class DigestSummary:
    """What a run did. ``str()`` gives the one-line summary the CLI prints.

    Attributes:
        posted: posts made.
        skipped: ``send``: channels that already had that date's post;
            ``run_due``: missed earlier days recorded as not back-filled.
        failed: posts that did not happen (or whose outcome is unknown).
        late: posts made more than ``LATE_AFTER`` after their post time.
        reconciled: stale claims resolved (found → posted, else unknown).
        deactivated: channel ids deactivated by this run.
        stopped: the workspace-wide error code that stopped the run (the first
            one), or None.
        stopped_teams: a distributed app's teams whose sends were stopped
            (the others went on).
    """

    posted: int = 0
    skipped: int = 0
    failed: int = 0
    late: int = 0
    reconciled: int = 0
    deactivated: list[str] = field(default_factory=list)
    stopped: str | None = None
    stopped_teams: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed and the run was not stopped."""
        return self.failed == 0 and self.stopped is None

    def __str__(self) -> str:
        line = f"posted {self.posted}, skipped {self.skipped}, failed {self.failed}"
        if self.deactivated:
            line += f", deactivated {len(self.deactivated)} ({', '.join(self.deactivated)})"
        if self.stopped:
            line += f"; stopped: {self.stopped}"
            if self.stopped_teams:
                line += f" for {', '.join(self.stopped_teams)}"
        return line
