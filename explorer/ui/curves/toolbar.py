"""The Curves panel's controls (smoothing, log y, ignore outliers, last N steps, the x axis' unit, dev metrics,
export) and the CSV writer behind "Export CSV"."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QLabel, QMenu, QPushButton, QSlider, QSpinBox, QWidget)

from explorer.ui.curves.plotmath import DEFAULT_SMOOTHING
from explorer.core.runs.x_units import X_UNIT_CHOICES, X_UNITS
from explorer.ui.shell.flow_layout import FlowLayout
from explorer.ui.shell.menu_button import MenuToolButton


def _number(x) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def write_curves_csv(path: str | Path, rows: list[tuple[str, str, list, list]], unit: str = "step",
                     factors: dict | None = None) -> int:
    """rows: (run_id, series, xs in optimizer steps, ys) -> long-format CSV run_id,series,step,value; with a
    ``unit`` other than "step" (one of x_units.X_UNITS: what the Curves x axis shows) a column of that name between
    step and value holds step x the run's factor in ``factors`` (run id -> factor, x_units.XAxis.factors), so
    the file plots as the page does. Returns the data rows written."""
    factors = factors or {}
    extra = [] if unit == "step" else [unit]
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["run_id", "series", "step", *extra, "value"])
        for run_id, name, xs, ys in rows:
            factor = factors.get(run_id, 1.0)
            for x, y in zip(xs, ys):
                shown = [_number(round(float(x) * factor, 9))] if extra else []
                w.writerow([run_id, name, _number(x), *shown, repr(float(y))])
                n += 1
    return n


class CurvesToolbar(QWidget):
    """Widgets only; CurvesPanel connects them."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.smooth = QSlider(Qt.Orientation.Horizontal)
        self.smooth.setRange(0, 99)
        self.smooth.setValue(round(DEFAULT_SMOOTHING * 100))
        self.smooth.setFixedWidth(140)
        self.smooth.setToolTip("Smoothing of the training loss, like TensorBoard: an exponential moving average "
                               "with this weight, debiased so the first points follow the data. The raw loss "
                               "stays drawn faintly behind.")
        self.smooth_label = QLabel(f"{DEFAULT_SMOOTHING:.2f}")
        self.log_box = QCheckBox("Log y")
        self.log_box.setToolTip("Logarithmic y axis for the training plots (non-positive values are not drawn).")
        self.outlier_box = QCheckBox("Ignore outliers")
        self.outlier_box.setToolTip("Set each y range from the 2nd-98th percentiles of the visible points, "
                                    "so one loss spike does not flatten the curve.")
        self.last_n = QSpinBox()
        self.last_n.setRange(0, 10_000_000)
        self.last_n.setSingleStep(100)
        self.last_n.setSpecialValueText("all")
        self.last_n.setToolTip("Show only the last N optimizer steps (0 = all).")
        self.last_n.setFixedWidth(90)
        self.x_unit = QComboBox()   # what the x axis counts (CurvesModel.x_unit; remembered in the settings)
        for unit in X_UNITS:   # short entries: the toolbar stays one row at 1280 px; the axis says it in full
            self.x_unit.addItem(X_UNIT_CHOICES[unit], unit)
        self.x_unit.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.x_unit.setToolTip("What the x axis counts: optimizer steps, epochs (passes over each run's own "
                               "training rows) or training examples seen (steps x effective batch size). By epoch "
                               "or examples, runs of different batch or training-set sizes line up fairly.")
        self.x_note = QLabel()   # why the axis stayed in steps (a run without epochs or batch size)
        self.x_note.setObjectName("hint")
        self.x_note.setVisible(False)
        self.metrics_btn = MenuToolButton()   # instant popup, room for the arrow
        self.metrics_btn.setText("Dev metrics")
        self.metrics_btn.setToolTip("Which dev metrics, and which other scalars of the step events (\"step: …\"), "
                                    "get a plot (every value is kept; this only chooses what is drawn).")
        self.metrics_menu = QMenu(self)
        self.metrics_btn.setMenu(self.metrics_menu)
        self.png_btn = QPushButton("Export PNG…")
        self.png_btn.setToolTip("Save the plots as one PNG image.")
        self.csv_btn = QPushButton("Export CSV…")
        self.csv_btn.setToolTip("Save every point of the shown runs: run_id, series, step, value.")
        bar = FlowLayout(self)   # wraps onto a second row in a narrow window instead of widening it
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(QLabel("Smoothing"))
        bar.addWidget(self.smooth)
        bar.addWidget(self.smooth_label)
        bar.addSpacing(12)
        bar.addWidget(self.log_box)
        bar.addWidget(self.outlier_box)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Last N steps"))
        bar.addWidget(self.last_n)
        bar.addSpacing(12)
        bar.addWidget(self.x_unit)
        bar.addWidget(self.x_note)
        bar.addSpacing(12)
        bar.addWidget(self.metrics_btn)
        bar.addStretch(1)
        self.mouse_hint = QLabel("wheel: scroll · Ctrl+wheel: zoom · drag: pan")
        self.mouse_hint.setObjectName("hint")
        self.mouse_hint.setToolTip("Each plot's \"Reset view\" returns it to the automatic range.")
        self.mouse_hint.setWordWrap(False)   # the flow moves the whole hint to the next row in a narrow window
        bar.addWidget(self.mouse_hint)
        bar.addWidget(self.png_btn)
        bar.addWidget(self.csv_btn)
