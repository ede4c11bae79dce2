"""The Curves page's x-axis selector bound to its model: the choice goes to CurvesModel.x_unit (which decides what
the axis counts, explorer.core.runs.x_units), is remembered in the app's settings, and the note says when the axis
stayed in steps."""

from __future__ import annotations

from explorer.core.runs.x_units import X_UNITS

SETTING_KEY = "curves/x_unit"


class XUnitControl:
    """Binds ``panel.toolbar.x_unit`` (a QComboBox of X_UNITS) and ``x_note`` to ``panel.model``; ``redraw()``:
    what the panel does after the unit changed (every curve redrawn, the x range fitted again)."""

    def __init__(self, panel, redraw):
        self.panel, self._redraw = panel, redraw
        self.combo, self.note = panel.toolbar.x_unit, panel.toolbar.x_note
        settings = getattr(panel, "settings", None)
        saved = settings.layout_value(SETTING_KEY) if settings is not None else ""
        if saved in X_UNITS:
            self.combo.setCurrentIndex(X_UNITS.index(saved))
            panel.model.set_x_unit(saved)
        self.combo.currentIndexChanged.connect(self._chosen)

    def _chosen(self, index: int) -> None:
        unit = X_UNITS[index]
        settings = getattr(self.panel, "settings", None)
        if settings is not None:
            settings.set_layout_value(SETTING_KEY, unit)
        if self.panel.model.set_x_unit(unit):
            self._redraw()

    def choose(self, unit: str) -> None:
        """Pick ``unit`` in the selector (as the user would)."""
        self.combo.setCurrentIndex(X_UNITS.index(unit))

    def axis(self):
        """The x axis now (CurvesModel.x_axis), with the note shown beside the selector."""
        axis = self.panel.model.x_axis()
        if self.note.text() != axis.note:
            self.note.setText(axis.note)
            self.note.setToolTip(axis.note)
        self.note.setVisible(bool(axis.note))
        return axis
