"""The Curves plots' crosshair: the values of every shown run at the step under the pointer, in each plot's header.

The readout follows the pointer over any plot and goes when the pointer leaves that plot; a plot refreshed under
a still pointer shows the readout again with its new data (a live run).
"""

from __future__ import annotations

from typing import Callable

__all__ = ["Crosshair"]


class Crosshair:
    """``plots()``: the laid-out PlotPanels; ``pairs()``: (RunState, colour) of the shown runs."""

    def __init__(self, plots: Callable[[], list], pairs: Callable[[], list]):
        self._plots, self._pairs = plots, pairs
        self._hover: tuple[object, object] | None = None   # (plot, scene position) of a still pointer
        self._step: float | None = None                     # the step the readouts show (None: none)

    def mouse_moved(self, panel, pos) -> None:
        """The pointer moved to scene position ``pos`` of ``panel``'s scene."""
        if panel.plot.sceneBoundingRect().contains(pos):
            self._hover = (panel, pos)
            self.show(panel.plot.getViewBox().mapSceneToView(pos).x())
        elif self._hover is not None and self._hover[0] is panel:
            self.mouse_left(panel)

    def mouse_left(self, panel) -> None:
        """The pointer left the plot it was over: no readout is left standing."""
        if self._hover is not None and self._hover[0] is panel:
            self._hover = None
            self.show(None)

    def forget(self) -> None:
        """Other runs are shown: no readout and no pointer position left over."""
        self._hover = self._step = None

    def step(self) -> float | None:
        """The step under a still pointer, for the plots' current x range (None: no readout)."""
        if self._hover is None:
            return self._step
        panel, pos = self._hover
        return panel.plot.getViewBox().mapSceneToView(pos).x()

    def refreshed(self, panel) -> None:
        """``panel`` was redrawn: its readout follows the new data under a still pointer."""
        step = self.step()
        if step is not None:
            self._step = step
            panel.show_crosshair(step, self._pairs())

    def show(self, step: float | None) -> None:
        """Show the values of every shown run at ``step`` in each plot header (None hides)."""
        self._step = step
        pairs = self._pairs()
        for panel in self._plots():
            panel.show_crosshair(step, pairs)
