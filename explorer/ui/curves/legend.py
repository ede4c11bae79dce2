"""A plot legend that never covers the data: a row of entries under the x axis (pyqtgraph).

pyqtgraph's ``addLegend`` floats the legend over the view box, where it hides curves (the block-flow
plots: shares near 1.0 run right under a top-right legend). :func:`legend_below` puts the entries in
the plot's own layout, below the axis label, on an opaque background; curves added with a ``name``
join it as with ``addLegend``.
"""

from __future__ import annotations

import pyqtgraph as pg

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
