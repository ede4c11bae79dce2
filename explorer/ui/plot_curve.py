"""A pyqtgraph curve item whose points are replaced for less (the Curves panel's decimated curves).

``PlotDataItem.setData`` re-reads its arguments' types and then re-applies every style option (pen,
shadow pen, fill, brush, antialias, connect, step mode) to its curve item, copying the pen each time,
even when only the points changed. The Curves panel replaces the points of 20-30 curves per full redraw
and of several per live tick, with the style fixed, so :meth:`FastCurve.set_points` hands the new points
to the curve item alone. Everything else (log mode, symbols, getData, xData) is pyqtgraph's own.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

try:   # pyqtgraph >= 0.13: the container PlotDataItem keeps its data in
    from pyqtgraph.graphicsItems.PlotDataItem import PlotDataset
except ImportError:  # pragma: no cover - older pyqtgraph: set_points falls back to setData
    PlotDataset = None


class FastCurve(pg.PlotDataItem):
    """A ``PlotDataItem`` with :meth:`set_points` for data-only updates."""

    _styled = False   # the curve item holds this item's style (a setData with points has run since)

    def updateItems(self, styleUpdate: bool = True):  # noqa: N802 - pyqtgraph API
        super().updateItems(styleUpdate)
        self._styled = getattr(self, "_dataset", None) is not None   # without points pyqtgraph passes no style on

    def set_points(self, x: np.ndarray, y: np.ndarray, all_finite: bool) -> None:
        """Show points (x, y): float64 arrays of shape (n,), x finite, y NaN where not finite
        (``all_finite``: y has no NaN). The same result as ``setData(x, y, skipFiniteCheck=all_finite)``
        for an item with a pen and no symbols; otherwise (or when empty) that is what runs."""
        if PlotDataset is None or not len(x) or self.opts["symbol"] is not None or not self._styled:
            self.setData(x, y, skipFiniteCheck=all_finite)
            return
        self.opts["skipFiniteCheck"] = all_finite
        self._dataset = PlotDataset(x, y, True, all_finite)
        self._datasetMapped = None
        self._datasetDisplay = None
        shown = self._getDisplayDataset()   # log mapping, when the plot is in log mode
        self.curve.setData(x=shown.x, y=shown.y, skipFiniteCheck=all_finite)   # as updateItems passes it
        self.curve.show()
        self.informViewBoundsChanged()
        self.sigPlotChanged.emit(self)
