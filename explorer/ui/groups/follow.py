"""A group of runs queued from the GUI followed in the Groups page's progress row (the shared JobBar): "2 of 5
runs of cv-sst2 done · about 12:30 left" and Cancel, which stops the group's queued and running members and
keeps the ones that ended. What to count and whom to stop: explorer.ui.runs.group_progress.GroupProgress."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.ui.inspectors.job_bar import JobBar
from explorer.ui.runs.group_progress import GroupProgress

CANCEL_TIP = "Stop the group: its queued runs are dropped and the running one cancelled; runs that ended stay"


class GroupFollower(QObject):
    """Follows one group at a time (the newest queued) through the run store's Qt signals ``store_events``
    (explorer.ui.runs.bridge.StoreBridge) and shows it in ``bar``.

    Signals:
        ended(str): the group has ended (every member finished, stopped, failed or cancelled): one sentence.
    """

    ended = Signal(str)

    def __init__(self, bar: JobBar, store_events, parent: QObject | None = None):
        super().__init__(parent)
        self.bar, self.events = bar, store_events
        self.group: GroupProgress | None = None
        store_events.changed.connect(lambda run_id, _series: self._changed(run_id))
        store_events.ended.connect(lambda run_id, _status: self._changed(run_id))
        bar.cancel_requested.connect(self.cancel)

    def follow(self, name: str, run_ids: list[str]) -> None:
        """Show group ``name`` of members ``run_ids`` (just queued) until it ends."""
        self.group = GroupProgress(name=name, run_ids=list(run_ids), state_of=self.events.store.get)
        self.bar.start("runs")
        self._update()

    def cancel(self) -> None:
        """Stop the group's queued and running members; those that ended stay."""
        if self.group is None:
            return
        self.group.cancelled_by_user = True
        for run_id in self.group.to_cancel():
            self.events.store.cancel(run_id)
        self._update()

    def _changed(self, run_id: str) -> None:
        if self.group is not None and run_id in self.group.run_ids:
            self._update()

    def _update(self) -> None:
        group = self.group
        if group is None:
            return
        self.bar.set_progress(*group.measure(), left=group.seconds_left())
        if group.is_over():
            self.group = None
            self.bar.finish()
            self.ended.emit(group.end_text())
