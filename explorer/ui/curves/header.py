"""The lines above the Curves plots: the legend strip, the notes on the shown runs and the progress line.

What they say is decided by the Qt-free :class:`~explorer.ui.curves.curves_model.CurvesModel`; this class holds
the widgets and writes into them only when the text changed (a label or progress bar that is set repaints).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QSizePolicy

from explorer.ui.curves.curves_model import NO_RUN_LEGEND, CurvesModel
from explorer.ui.curves.run_legend import LegendStrip
from explorer.ui.shell.elided_label import ElidedLabel


class CurvesHeader:
    """The legend strip (``legend``), the shown runs' notes (``run_notes``) and the focus run's progress bar and
    line (``progress``, ``progress_label``, laid out in ``progress_row``) of one Curves panel, filled from
    ``model``."""

    def __init__(self, model: CurvesModel):
        self.model = model
        self.legend = LegendStrip()
        self.legend.resized = self.update_legend   # a new width lays the entries out again
        # what a shown run's evaluations say about it (a classifier stuck on one class), under the legend
        self.run_notes = QLabel()
        self.run_notes.setTextFormat(Qt.TextFormat.RichText)
        self.run_notes.setWordWrap(True)
        self.run_notes.setStyleSheet("color: #8a5a00;")
        self.run_notes.setVisible(False)
        self.progress = QProgressBar()
        self.progress.setFixedWidth(220)
        # elides (the whole line in its tooltip) rather than clip "remaining …" at 1280x800
        self.progress_label = ElidedLabel(min_width=120, elide=Qt.TextElideMode.ElideMiddle)
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.progress_row = QHBoxLayout()
        self.progress_row.addWidget(self.progress)
        self.progress_row.addWidget(self.progress_label, 1)
        self._legend_key = None

    def update_legend(self) -> None:
        """Write the legend strip and the run notes, unless nothing they show changed (most live ticks)."""
        # the notes follow the evaluations (a step-0 figure above the best, a dev sample's points beside all rows')
        # and a run's dev rows found among its training rows (logged before its first evaluation)
        entries = self.model.legend_entries()   # made once: the key compares them, the strip shows them
        key = ([rich for _plain, rich in entries], self.legend.width(),
               getattr(self.model.focus_run(), "eval_plan", ""), tuple(len(s.evals) for s in self.model.runs),
               tuple(s.dev_overlap for s in self.model.runs))
        if key == self._legend_key:
            return
        self._legend_key = key
        text, tip = (NO_RUN_LEGEND, "") if not self.model.runs else self.legend.fit(entries)
        if text != self.legend.text():
            self.legend.setText(text)
        self.legend.setToolTip(tip)
        notes = self.model.run_notes()
        self.run_notes.setText("<br>".join(notes))
        self.run_notes.setVisible(bool(notes))

    def legend_parts(self) -> tuple[str, str]:
        """(the legend strip's rich text, its tooltip): one entry per shown run, "■ name (status · best …)", as
        many as fit in LEGEND_LINES lines of the strip's width, then "+N more"; the tooltip lists every run, one a
        line (LegendStrip.fit)."""
        return self.legend.fit(self.model.legend_entries())

    def update_progress(self) -> None:
        """Write the focus run's progress bar and line (CurvesModel.progress at the current time)."""
        (lo, hi, value, fmt), line = self.model.progress(time.time())
        self._set_bar(lo, hi, value, fmt)
        if line is None:
            self.progress_label.setText("")
            return
        name, parts, tip = line   # the Runs list's name; the step and the time left stay when the line is cut
        self.progress_label.set_parts(name, parts)
        self.progress_label.setToolTip(tip)

    def _set_bar(self, lo: int, hi: int, value: int, fmt: str) -> None:
        """Show ``value`` of ``lo..hi`` in the progress bar, with ``fmt`` (its text); nothing when it already does.
        QProgressBar.setValue (and setRange, past the value) repaint the bar at once (QWidget.repaint) when its
        text changes, and a repaint paints every pending update of the window in that call: after a new
        selection, the plots, which the refresh that follows then changes and has painted again. With updates
        off the bar is only marked for the next paint (re-enabling updates schedules it)."""
        bar = self.progress
        if (bar.minimum(), bar.maximum(), bar.value(), bar.format()) == (lo, hi, value, fmt):
            return
        bar.setUpdatesEnabled(False)
        try:
            bar.setRange(lo, hi)
            bar.setValue(value)
            bar.setFormat(fmt)
        finally:
            bar.setUpdatesEnabled(True)
