"""A freshly read run's curves decimated where the run is read (the reader thread), not on the GUI thread.

Drawing a long series decimates it to the pixel columns of its plot (explorer.ui.curves.decimate); for a run
of 100k steps that is most of the GUI thread's work in a full redraw. The reader thread
(explorer.ui.curves.plotmath.prepare_curves) knows the run's points but not the plots, so each Curves plot
publishes the pixel-column count it last drew with (:data:`PLOT_COLUMNS`), and :func:`predecimate` folds
each long series into the columns of the x range the Curves page would show for this run alone (its own
x axis, padded as the page pads it). The columns are kept in the series' own decimators
(explorer.ui.curves.decimate.kept_decimator), keyed by their exact grid ``(x0, x1, columns)``: when the plot
then draws the run on that grid (the run shown alone, or the longest of those shown) it finds the columns
done; on any other grid (another width, range, unit or smoothing) the decimator folds the points itself,
so what is drawn is always what the GUI thread alone would draw.
"""

from __future__ import annotations

import threading

from explorer.ui.curves.curves_model import CurvesModel
from explorer.ui.curves.decimate import RAW_FACTOR, kept_decimator, series_points
from explorer.ui.curves.plotmath import shown_values

X_PADDING = 0.02   # the share of its x range the Curves page pads it with on each side (CurvesPanel._set_x)


class PlotColumns:
    """The pixel-column count each Curves plot (series key -> columns) last drew with: written by the GUI
    thread (explorer.ui.curves.plot.PlotPanel), read by the reader thread (:func:`predecimate`)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._columns: dict[str, int] = {}

    def publish(self, key: str, columns: int) -> None:
        """The plot of ``key`` draws on ``columns`` device pixel columns."""
        if self._columns.get(key) != columns:
            with self._lock:
                self._columns[key] = columns

    def get(self, key: str) -> int | None:
        """The columns the plot of ``key`` last drew with (None: not drawn yet)."""
        with self._lock:
            return self._columns.get(key)

    def clear(self) -> None:
        """Forget every plot's columns (nothing is then decimated ahead)."""
        with self._lock:
            self._columns.clear()


PLOT_COLUMNS = PlotColumns()


def padded_range(lo: float, hi: float, padding: float = X_PADDING) -> tuple[float, float] | None:
    """The x range a pyqtgraph ViewBox shows after ``setXRange(lo, hi, padding=padding)`` without limits or
    aspect lock (ViewBox.setRange: each end moved out by ``padding`` times the span, the same float
    arithmetic). A span too small for that arithmetic returns None: such a view is not decimated ahead."""
    mn, mx = min(lo, hi), max(lo, hi)
    if mx - mn < 2 * (mn + mx) * 1.5e-15:   # pyqtgraph widens such a range first
        return None
    p = (mx - mn) * padding
    return mn - p, mx + p


def predecimate(state, weight: float, columns: PlotColumns = PLOT_COLUMNS) -> int:
    """Fold ``state``'s series of more than RAW_FACTOR points per column (explorer.ui.runs.state.RunState) into the columns its plots would draw
    it with when shown alone in steps (CurvesModel.target_x of this run, following the data, padded) at the
    smoothing ``weight``; returns how many curves were decimated. Run it before the state reaches the GUI
    thread (the decimators are the GUI thread's from then on)."""
    model = CurvesModel()
    model.set_runs([state])
    target = model.target_x(0)
    grid_x = padded_range(*target) if target is not None else None
    if grid_x is None:
        return 0
    done = 0
    for key, series in state.series.items():
        ncols = columns.get(key)
        if ncols is None or len(series) <= RAW_FACTOR * ncols or not series.steps_sorted:   # short: drawn as is
            continue
        grid = (float(grid_x[0]), float(grid_x[1]), ncols)
        y, shown, version = shown_values(series, key, weight)
        curves = [("main", shown, version)] + ([("raw", y, "raw")] if version != "raw" else [])
        for role, values, vers in curves:
            series_points(kept_decimator(series, role), series, series.x, values, vers, grid)
            done += 1
    return done
