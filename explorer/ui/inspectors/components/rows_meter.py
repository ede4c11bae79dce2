"""How far a long job over rows is and how long it has left, without Qt: "1,240 of 2,478 rows · about 0:40 left".

The rate is measured from the job's own progress reports (rows done over seconds since its first report, so
loading the model and reading the file do not count as scoring); the time left is the rows left at that rate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from explorer.core.training.eval_plan import clock_text


@dataclass
class RowsMeter:
    """Progress of one job over ``what`` ("rows", "sentences"); ``now`` is the clock (tests give a fake one)."""

    what: str = "rows"
    now: Callable[[], float] = time.monotonic
    first: tuple[float, int] | None = None      # (time, rows done) of the first report
    done: int = 0
    total: int = 0
    started: float = field(default=0.0)

    def start(self) -> None:
        self.first, self.done, self.total, self.started = None, 0, 0, self.now()

    def update(self, done: int, total: int) -> None:
        """A progress report: ``done`` of ``total`` rows (total 0: unknown)."""
        if self.first is None:
            self.first = (self.now(), done)
        self.done, self.total = done, total

    def seconds_left(self) -> float | None:
        """Rows left at the measured rate; None before two reports measured one."""
        if self.first is None or not self.total:
            return None
        t0, d0 = self.first
        elapsed, rows = self.now() - t0, self.done - d0
        if elapsed <= 0 or rows <= 0:
            return None
        return max(0, self.total - self.done) * elapsed / rows

    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0

    def text(self) -> str:
        """'1,240 of 2,478 rows · about 0:40 left' ('starting …' before the first report)."""
        if self.first is None:
            return "starting …"
        if not self.total:
            return f"{self.done:,} {self.what}"
        left = self.seconds_left()
        tail = f" · about {clock_text(left)} left" if left is not None else ""
        return f"{self.done:,} of {self.total:,} {self.what}{tail}"
