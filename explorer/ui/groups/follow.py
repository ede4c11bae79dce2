"""The groups of runs queued from the GUI followed in the Groups page's progress row (the shared JobBar): "2 of 5
runs of cv-sst2 done · about 12:30 left" and Cancel, which stops the group's queued and running members and
keeps the ones that ended. What to count and whom to stop: explorer.ui.runs.group_progress.GroupProgress. Which
group the row shows: :func:`shown_group`."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.ui.inspectors.job_bar import JobBar
from explorer.ui.runs.group_progress import GroupProgress

CANCEL_TIP = "Stop the group: its queued runs are dropped and the running one cancelled; runs that ended stay"


def shown_group(followed: dict[str, GroupProgress], selected: str | None) -> GroupProgress | None:
    """The group the progress row shows among ``followed`` (name -> its progress, oldest first; the groups queued
    here that have not ended): the one selected in the Groups page when it is one of them, else the newest."""
    if selected in followed:
        return followed[selected]
    return next(reversed(followed.values()), None)


class GroupFollower(QObject):
    """Follows the groups queued here through the run store's Qt signals ``store_events``
    (explorer.ui.runs.bridge.StoreBridge) and shows one in ``bar`` (:func:`shown_group`: the selected one, else the
    newest still running); Cancel stops the group shown.

    Signals:
        ended(str): a group has ended (every member finished, stopped, failed or cancelled): one sentence.
    """

    ended = Signal(str)

    def __init__(self, bar: JobBar, store_events, parent: QObject | None = None):
        super().__init__(parent)
        self.bar, self.events = bar, store_events
        self.followed: dict[str, GroupProgress] = {}   # name -> progress, oldest first; ended groups leave
        self.selected: str | None = None                # the group selected in the Groups page
        self._shown: str | None = None
        store_events.changed.connect(lambda run_id, _series: self._changed(run_id))
        store_events.ended.connect(lambda run_id, _status: self._changed(run_id))
        bar.cancel_requested.connect(self.cancel)

    @property
    def group(self) -> GroupProgress | None:
        """The group the row shows (None when no group queued here is running)."""
        return shown_group(self.followed, self.selected)

    def follow(self, name: str, run_ids: list[str]) -> None:
        """Follow group ``name`` of members ``run_ids`` (just queued) until it ends."""
        self.followed.pop(name, None)   # queued again: the newest
        self.followed[name] = GroupProgress(name=name, run_ids=list(run_ids), state_of=self.events.store.get)
        self._update()

    def select(self, name: str | None) -> None:
        """The group selected in the Groups page (None: none): the row shows it when it is one followed."""
        self.selected = name
        self._update()

    def cancel(self) -> None:
        """Stop the shown group's queued and running members; those that ended stay."""
        group = self.group
        if group is None:
            return
        group.cancelled_by_user = True
        for run_id in group.to_cancel():
            self.events.store.cancel(run_id)
        self._update()

    def _changed(self, run_id: str) -> None:
        if any(run_id in group.run_ids for group in self.followed.values()):
            self._update()

    def _update(self) -> None:
        for name, group in list(self.followed.items()):
            if group.is_over():
                del self.followed[name]
                self.ended.emit(group.end_text())
        group = self.group
        if group is None:
            if self._shown is not None:
                self._shown = None
                self.bar.finish()
            return
        if group.name != self._shown:   # another group in the row: its own rate from now
            self._shown = group.name
            self.bar.start("runs")
        self.bar.set_progress(*group.measure(), left=group.seconds_left())
