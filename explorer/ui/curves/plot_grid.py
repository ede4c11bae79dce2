"""The Curves page's plots in a scrolling grid of two columns, rows sharing the page's height.

Each row gets the scroll area's visible height shared among the rows, never less than MIN_PANEL_HEIGHT (then the
page scrolls); the heights are fixed, so showing one more plot never resizes the others. Plots that join the grid
are revealed one per event-loop turn (each first paint of a plot costs tens of ms on a busy machine). Which plots
and in which order is explorer.ui.curves.curves_model.CurvesModel.visible_keys.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QGridLayout, QScrollArea, QWidget

from explorer.core.specs.metrics import drawn_by_default
from explorer.ui.curves.plot import PlotPanel
from explorer.ui.runs.state import DEV_PREFIX, TRAIN_SERIES

__all__ = ["COLUMNS", "MIN_PANEL_HEIGHT", "PlotGrid"]

COLUMNS = 2
MIN_PANEL_HEIGHT = 190     # px: a plot row never gets less (a data area of 120 px: layout_check); else it scrolls


class PlotGrid(QScrollArea):
    """The plots by series key (``panels``), laid out in ``grid`` on ``grid_host``. ``model``: the page's
    CurvesModel (which plots, the runs and colours); ``wire(panel)``: called once for each new plot (the page
    connects its signals). ``layout_keys``: the laid-out plots in grid order; ``reveal``: laid-out plots still
    hidden, shown one per turn by the page."""

    def __init__(self, model, wire: Callable[[PlotPanel], None], parent=None):
        super().__init__(parent)
        self.model = model
        self._wire = wire
        self._panels: dict[str, PlotPanel] | None = None   # built at the first use (the panels property)
        self.layout_keys: list[str] = []
        self.reveal: list[str] = []
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 8)   # room below the last row's axis label
        self.grid.setSpacing(6)
        self.setWidgetResizable(True)
        self.setMinimumHeight(MIN_PANEL_HEIGHT)   # one row at least; the splitter may give it all the rest
        self.setWidget(self.grid_host)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)   # no width jump
        self.viewport().installEventFilter(self)   # a new viewport height shares it among the rows again

    @property
    def panels(self) -> dict[str, PlotPanel]:
        """The plots by series key. The fixed ones (training series, the metric table's default dev metrics)
        are built at the first use, not with the page (12 pyqtgraph plots were 69% of the main window's start)."""
        if self._panels is None:
            self._panels = {}
            for key in TRAIN_SERIES + tuple(DEV_PREFIX + m for m in drawn_by_default()):
                self.panel(key)
            self.relayout()
        return self._panels

    def built(self) -> bool:
        """Whether the plots exist yet (asking :attr:`panels` builds them)."""
        return self._panels is not None

    def panel(self, key: str) -> PlotPanel:
        """The plot of series ``key``, built (and wired) when there is none yet."""
        panel = self.panels.get(key)
        if panel is not None:
            return panel
        panel = PlotPanel(key)
        self.panels[key] = panel
        self._wire(panel)
        return panel

    def relayout(self) -> set[str]:
        """Lay out the plots to show; returns the keys that just joined (revealed one per event-loop turn)."""
        keys = self.model.visible_keys()
        old = self.layout_keys
        if keys == old:
            return set()
        self.layout_keys = keys
        for panel in self.panels.values():
            self.grid.removeWidget(panel)
        for row in range(self.grid.rowCount()):
            self.grid.setRowStretch(row, 0)
        pairs = self.model.pairs()
        for i, key in enumerate(keys):
            panel = self.panel(key)
            if key not in old:
                panel.set_runs(pairs)
            self.grid.addWidget(panel, i // COLUMNS, i % COLUMNS)
        self.grid.setRowStretch((len(keys) + COLUMNS - 1) // COLUMNS, 1)   # free space goes below the plots
        self.fit_rows()
        for key, panel in self.panels.items():
            if key not in keys:
                panel.setVisible(False)
            elif panel.isHidden() and key not in self.reveal:
                self.reveal.append(key)
        self.reveal = [k for k in self.reveal if k in keys]
        return set(keys) - set(old)

    def hide_for_reveal(self) -> bool:
        """Hide the shown plots, to be revealed one per turn (the page coming into view); whether any are to be."""
        panels = self.panels
        for key in self.layout_keys:
            panel = panels[key]
            if not panel.isHidden():
                panel.setVisible(False)
                self.reveal.append(key)
        return bool(self.reveal)

    def row_height(self) -> int:
        """The height of each plot row, in px: the scroll area's visible height shared among the rows (grid
        margins and spacing taken off), never under MIN_PANEL_HEIGHT (then the page scrolls)."""
        rows = max((len(self.layout_keys) + COLUMNS - 1) // COLUMNS, 1)
        margins = self.grid.contentsMargins()
        avail = (self.viewport().height() - margins.top() - margins.bottom()
                 - self.grid.verticalSpacing() * (rows - 1))
        return max(MIN_PANEL_HEIGHT, avail // rows)

    def fit_rows(self) -> None:
        """Give every laid-out plot the row height (fixed heights: showing a plot never resizes the others)."""
        height = self.row_height()
        for key in self.layout_keys:
            panel = self.panels[key]
            if panel.height() != height or panel.minimumHeight() != height:
                panel.setFixedHeight(height)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if obj is self.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_rows()
        return super().eventFilter(obj, event)
