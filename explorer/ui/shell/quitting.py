"""What quitting does with the runs the window drives and follows, decided without Qt.

:class:`QuitPlan` holds the runs of this machine (training, queued) and the remote runs followed when the user
quits; it says whether the quit question is asked and, for the answer (explorer.ui.shell.detach: LEAVE, STOP,
CANCEL), which runs are cancelled, stopped early or left training. A remote run is never acted on: it goes on
on its host and is followed again at the next start, which the question says (detach.quit_text), also when it
is the only active run (quitting then said nothing, and the user could believe the remote run ended with the
window). explorer.ui.shell.main_window.MainWindow asks and carries it out.
"""

from __future__ import annotations

import dataclasses

__all__ = ["CANCEL", "LEAVE", "STOP", "QuitPlan"]

LEAVE, STOP, CANCEL = "leave", "stop", "cancel"   # the quit question's answers: leave training, stop early, cancel


@dataclasses.dataclass(kw_only=True)
class QuitPlan:
    """The runs at quit time: ``running`` and ``queued`` (run ids driven on this machine) and ``remote`` ((run id,
    host name) of the remote runs followed that have not ended)."""

    running: list[str]
    queued: list[str]
    remote: list[tuple[str, str]]

    @classmethod
    def of(cls, active: list[str], queued: list[str], remote: list[tuple[str, str]]) -> QuitPlan:
        """The plan from the run manager's active runs (queued ones included), its queued ones and the remote
        runs followed."""
        return cls(running=[r for r in active if r not in queued], queued=list(queued), remote=list(remote))

    @property
    def asks(self) -> bool:
        """Whether quitting asks first: a run of this machine is active, or a remote run is followed (then only
        to say that it goes on on its host)."""
        return bool(self.running or self.queued or self.remote)

    def cancels_all(self, choice: str) -> bool:
        """Whether ``choice`` ends every run of this machine now (CANCEL while one is active: "Quit" with none, after
        they ended while the question was open, leaves the workers that reported their end to exit as a quit
        without the question does); the queued ones are cancelled whatever the choice (they would never start)."""
        return choice == CANCEL and bool(self.running or self.queued)

    def stopped(self, choice: str) -> list[str]:
        """The runs told to stop early (STOP: the window closes once they have saved and ended)."""
        return list(self.running) if choice == STOP else []

    def left_training(self, choice: str) -> list[str]:
        """The runs whose workers go on without the window (LEAVE)."""
        return list(self.running) if choice == LEAVE else []
