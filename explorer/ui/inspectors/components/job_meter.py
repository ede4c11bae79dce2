"""How far a long job is and how long it has left, without Qt: "1,240 of 2,478 dev rows · about 0:40 left".

One model for every long operation of the GUI (dev-set scoring on the Classify, Tag and Spans & τ pages,
predictions and embeddings of a file, fetches, a cross-validation group); the bar that shows it is
explorer.ui.inspectors.job_bar.JobBar.

The rate is measured from the job's own progress reports (units done over the seconds since its first report,
so loading the model and reading the file do not count as work); the time left is the units left at that rate.
Until a few reports have measured it, the line says "estimating …": a rate from one batch (the first one
also warms the model up) would promise a time the job does not keep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from explorer.core.training.eval_plan import clock_text
from explorer.core.units import format_bytes

BYTES = "bytes"          # a ``what`` whose counts are shown as sizes ("12 MiB of 87 MiB")
ESTIMATING = "estimating …"


def count_text(n: float, what: str) -> str:
    """'1,240' for counted things, '12 MiB' for :data:`BYTES`."""
    return format_bytes(n) if what == BYTES else f"{int(n):,}"


@dataclass(kw_only=True)
class JobMeter:
    """Progress of one job counted in ``what`` ("dev rows", "windows", "texts", :data:`BYTES`).

    ``min_reports``: the reports after the first one before the time left is estimated (the first report only
    starts the clock), over at least ``min_seconds`` (a burst of reports in one turn measures no rate). ``now``
    is the clock (tests give a fake one). ``head`` (optional) replaces the "N of M what" part of the line, for
    jobs whose units are not what the user counts (a group of runs counted in shares of a run, shown as
    "2 of 5 runs of cv-sst2 done")."""

    what: str = "rows"
    min_reports: int = 2
    min_seconds: float = 1.0
    now: Callable[[], float] = time.monotonic
    first: tuple[float, float] | None = None      # (time, units done) of the first report
    reports: int = 0
    done: float = 0
    total: float = 0
    head: str = ""
    known_left: float | None = None   # seconds left as the job itself knows them (a group's members' clocks)

    def start(self) -> None:
        """A new job: nothing measured yet."""
        self.first, self.reports, self.done, self.total, self.head, self.known_left = None, 0, 0, 0, "", None

    def update(self, done: float, total: float, head: str = "", left: float | None = None) -> None:
        """A progress report: ``done`` of ``total`` units (total 0: unknown); ``left``: the seconds left where the
        job knows them (a group of runs from its members' time left), else None: the measured rate's."""
        if self.first is None or done < self.done:   # a job that starts over (a second model) measures again
            self.first, self.reports = (self.now(), done), 0
        else:
            self.reports += 1
        self.done, self.total, self.head, self.known_left = done, total, head, left

    def rate(self) -> float | None:
        """Units per second since the first report; None until ``min_reports`` reports measured it."""
        if self.first is None or self.reports < self.min_reports:
            return None
        t0, d0 = self.first
        elapsed, units = self.now() - t0, self.done - d0
        return units / elapsed if elapsed >= self.min_seconds and elapsed > 0 and units > 0 else None

    def seconds_left(self) -> float | None:
        """The seconds left the job said (``known_left``), else the units left at the measured rate; None before it
        is measured or while the total is unknown."""
        if self.known_left is not None:
            return max(0.0, self.known_left)
        rate = self.rate()
        if rate is None or not self.total:
            return None
        return max(0.0, self.total - self.done) / rate

    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    def text(self) -> str:
        """'1,240 of 2,478 dev rows · about 0:40 left'; '… · estimating …' before the rate is measured;
        'starting …' before the first report; '12,400 texts' while the total is unknown."""
        if self.first is None:
            return "starting …"
        if self.head:
            count = self.head
        elif not self.total:
            return f"{count_text(self.done, self.what)} {self.what if self.what != BYTES else ''}".rstrip()
        else:
            unit = "" if self.what == BYTES else f" {self.what}"
            count = f"{count_text(self.done, self.what)} of {count_text(self.total, self.what)}{unit}"
        left = self.seconds_left()
        if left is None:
            return f"{count} · {ESTIMATING}" if self.total else count
        return f"{count} · about {clock_text(left)} left"
