"""The training clock: seconds spent in training steps, for the time-budgeted schedule.

A run with ``time_budget_minutes`` > 0 ends when this clock reaches the budget, and its learning rate
follows the clock (recipe.time_schedule) rather than the step count. Evaluations and checkpoint saves
are measurement and bookkeeping, so the loop pauses the clock around them (``with clock.paused():``);
the seconds before a resume travel in ``training_state.pt`` (``train_seconds``).
"""

from __future__ import annotations

import time
from contextlib import contextmanager


class TrainClock:
    """A pausable stopwatch in seconds (``time.perf_counter``).

    Args:
        before: seconds already counted (a resumed run's ``train_seconds``).
    """

    def __init__(self, before: float = 0.0):
        self.before = float(before)
        self._since: float | None = None

    def start(self) -> None:
        """Start (or keep) counting."""
        if self._since is None:
            self._since = time.perf_counter()

    def pause(self) -> None:
        """Stop counting; the seconds so far are kept."""
        if self._since is not None:
            self.before += time.perf_counter() - self._since
            self._since = None

    def seconds(self) -> float:
        """Seconds counted so far."""
        running = time.perf_counter() - self._since if self._since is not None else 0.0
        return self.before + running

    @contextmanager
    def paused(self):
        """Leave the enclosed block (an evaluation, a save) out of the count."""
        was_running = self._since is not None
        self.pause()
        try:
            yield
        finally:
            if was_running:
                self.start()
