"""The Groups page's fields for a new group: its name, the restarts count and the seeds, kept in agreement.

The seeds typed set the restarts count and a new count takes or adds seeds (seed_count: the rule, Qt-free); a
message about the group name under the list is checked again as the name is typed, so an earlier click's
"group name '' must be …" never stays beside a valid name.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSignalBlocker
from PySide6.QtWidgets import QLabel, QLineEdit, QSpinBox

from explorer.ui.groups.seed_count import count_of_seeds, seeds_for_count


class NewGroupFields(QObject):
    """The name box, the restarts box and the seeds box of a new group; ``message``: the line under the list
    where a message about the name is shown."""

    def __init__(self, message: QLabel, parent=None):
        super().__init__(parent)
        self.message = message
        self.name = QLineEdit()
        self.name.setPlaceholderText("new group name")
        self.name.textEdited.connect(self._name_edited)
        self._name_flagged = False   # a message about the name was shown: typing checks the name again
        self.restarts = QSpinBox()
        self.restarts.setRange(1, 100)
        self.restarts.setValue(3)
        self.restarts.setSuffix(" restarts")
        self.seeds = QLineEdit()
        self.seeds.setPlaceholderText("seeds, e.g. 1,2,3 (empty: generated)")
        self.seeds.setToolTip("The restarts' seeds (the restarts box follows their count, and a new count takes or "
                              "adds seeds); for the grid, every point runs once per seed. Empty: generated from the "
                              "Launch tab's seed.")
        self.seeds.textEdited.connect(self._seeds_edited)
        self.restarts.valueChanged.connect(self._restarts_changed)

    def _name_edited(self, text: str) -> None:
        """A message about the group name is checked again as it is typed."""
        from explorer.core.studies.groups import GroupError, check_group_name

        text_now = self.message.text()
        if text_now.startswith(("group name ", "A group named ")) or (self._name_flagged and not text_now):
            self._name_flagged = True
            try:
                check_group_name(text)
                self.message.setText("")
            except GroupError as exc:
                self.message.setText(str(exc))

    def _seeds_edited(self, text: str) -> None:
        """Seeds typed: the restarts box shows how many runs they make (seed_count.count_of_seeds)."""
        count = count_of_seeds(text)
        if count is not None and count != self.restarts.value():
            blocker = QSignalBlocker(self.restarts)
            self.restarts.setValue(min(count, self.restarts.maximum()))
            del blocker

    def _restarts_changed(self, count: int) -> None:
        """A new restarts count: the seeds typed follow it (seed_count.seeds_for_count); empty seeds stay empty."""
        seeds = seeds_for_count(count, self.seeds.text())
        if seeds is not None:
            self.seeds.setText(seeds)
