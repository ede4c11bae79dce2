"""A plot legend that never covers the data: a row of entries under the x axis, or a column of them right of the
view box (pyqtgraph).

pyqtgraph's ``addLegend`` floats the legend over the view box, where it hides curves (the block-flow
plots: shares near 1.0 run right under a top-right legend). :func:`legend_below` puts the entries in
the plot's own layout, below the axis label, on an opaque background; curves added with a ``name``
join it as with ``addLegend``.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt

LEGEND_ROW = 4   # PlotItem layout rows: 0 title, 1 top axis, 2 view box, 3 bottom axis


class LayoutLegend(pg.LegendItem):
    """A LegendItem sized by the layout it sits in (pyqtgraph's own one sets its geometry itself)."""

    def updateSize(self):  # noqa: N802 - pyqtgraph API
        width = height = 0.0
        for row in range(self.layout.rowCount()):
            row_w, row_h = 0.0, 0.0
            for col in range(self.layout.columnCount()):
                item = self.layout.itemAt(row, col)
                if item:
                    row_w += item.width() + 3
                    row_h = max(row_h, item.height())
            width, height = max(width, row_w), height + row_h
        left, top, right, bottom = self.layout.getContentsMargins()
        width, height = width + left + right, height + top + bottom
        self.setMinimumHeight(height)
        self.setMaximumHeight(height)
        self.setPreferredWidth(width)
        self.updateGeometry()


def legend_below(plot, columns: int = 3) -> pg.LegendItem:
    """Give ``plot`` (a PlotWidget or PlotItem) a legend under its bottom axis, ``columns`` entries per
    row, opaque white with a light frame. Returns the legend (also ``plot_item.legend``)."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    legend = LayoutLegend(colCount=columns, brush=pg.mkBrush(255, 255, 255, 255), pen=pg.mkPen("#ccc"),
                          labelTextColor="#222")
    legend.layout.setContentsMargins(4, 2, 4, 2)
    item.layout.addItem(legend, LEGEND_ROW, 1)
    item.legend = legend
    return legend


def legend_beside(plot) -> pg.LegendItem:
    """Give ``plot`` (a PlotWidget or PlotItem) a legend right of its view box, one entry per row, opaque white
    with a light frame, at the top of the view's height: it shows wherever the curves show, so a plot in a low
    pane keeps its key in view with the lines (under the axis it fell below the pane's fold). Returns the legend
    (also ``plot_item.legend``); the plot's minimum size holds it once its entries exist (``fit_legend_beside``)."""
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    legend = LayoutLegend(colCount=1, brush=pg.mkBrush(255, 255, 255, 255), pen=pg.mkPen("#ccc"),
                          labelTextColor="#222")
    legend.layout.setContentsMargins(4, 2, 4, 2)
    item.layout.addItem(legend, 2, 3, alignment=Qt.AlignmentFlag.AlignTop)
    item.legend = legend
    return legend


def hold_legend_beside(widget) -> None:
    """Make PlotWidget ``widget``'s minimum size hold its :func:`legend_beside` legend whole (call once the entries
    exist): the view box is as high as the legend at least."""
    item = widget.getPlotItem()
    legend = item.legend
    legend.updateSize()
    legend.setMinimumWidth(legend.preferredWidth())
    vb = item.getViewBox()
    vb.setMinimumHeight(max(vb.minimumHeight(), legend.minimumHeight()))
    item.layout.invalidate()
    need = item.effectiveSizeHint(Qt.SizeHint.MinimumSize)
    widget.setMinimumSize(int(need.width()) + 2, int(need.height()) + 2)


class _LegendFit(QObject):
    """Event filter of :func:`fit_legend_columns`."""

    def __init__(self, widget, legend: pg.LegendItem, max_columns: int):
        super().__init__(widget)
        self.widget, self.legend, self.max_columns = widget, legend, max_columns

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:
            self.fit(event.size().width())
        return False

    def fit(self, width: int) -> int:
        """Use the most columns (up to max_columns) whose row fits ``width`` less the left axis; returns them.
        Changes only the legend, never the widget's size (no resize loop)."""
        room = width - self.widget.getPlotItem().getAxis("left").width() - 12
        n = len(self.legend.items)
        entries = sorted((s.minimumWidth() + lab.minimumWidth() + 12 for s, lab in self.legend.items), reverse=True)
        cols = 1
        for cols in range(max(min(self.max_columns, n), 1), 0, -1):
            if sum(entries[:cols]) <= room:
                break
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)
        return cols

    def hold_one_column(self) -> None:
        """Make the widget's minimum size the plot's with a one-column legend (axis, view, every entry)."""
        before = self.legend.columnCount
        self.legend.setColumnCount(1)
        self.legend.updateSize()
        item = self.widget.getPlotItem()
        item.layout.invalidate()
        need = item.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        self.widget.setMinimumSize(int(need.width()) + 2, int(need.height()) + 2)
        self.legend.setColumnCount(before)


def fit_legend_columns(widget, legend: pg.LegendItem, max_columns: int = 3) -> _LegendFit:
    """Keep a :func:`legend_below` legend of PlotWidget ``widget`` as wide as the widget allows: on each
    resize it puts its entries on as many columns (up to ``max_columns``) as fit beside the left axis, so
    a narrow plot shows the whole legend (in more rows) instead of being pushed wider than its view. Call
    ``hold_one_column()`` on the result once the entries exist: the widget's minimum size then holds the
    plot with a one-column legend."""
    fit = _LegendFit(widget, legend, max_columns)
    widget.installEventFilter(fit)
    return fit
