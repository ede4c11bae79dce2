"""The Embeddings page's panes, each drawing what it is given (explorer.ui.inspectors.embeddings_view decides
what): the scatter plot of one map with the static embedding's star and the selected point, and the side panel
(the hovered point, the legend, the nearest neighbours, notes and exports).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget


class EmbeddingsPlot(pg.PlotWidget):
    """One point per occurrence (or text) in 2-D (``scatter``, pixel mode, hoverable), the word's static input
    embedding as a star (``static_item``, ``static_label``), and the selected point's ring (``selected_item``)."""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.setMenuEnabled(False)
        self.hideAxis("left")
        self.hideAxis("bottom")
        self.setAspectLocked(False)
        self.scatter = pg.ScatterPlotItem(pxMode=True, size=7, hoverable=True, hoverSize=11,
                                          hoverPen=pg.mkPen("k", width=1.5), tip=None)
        self.addItem(self.scatter)
        self.static_item = pg.ScatterPlotItem(pxMode=True, size=20, symbol="star", pen=pg.mkPen("k", width=1.5),
                                              brush=pg.mkBrush("#ffd400"))
        self.addItem(self.static_item)
        self.static_label = pg.TextItem("", color="k", anchor=(0, 1))
        self.addItem(self.static_label)
        self.selected_item = pg.ScatterPlotItem(pxMode=True, size=14, symbol="o", pen=pg.mkPen("r", width=2.5),
                                                brush=pg.mkBrush(0, 0, 0, 0))
        self.addItem(self.selected_item)

    def draw(self, projection, colours: list[str], word: str, show_static: bool) -> None:
        """The points of ``projection`` (an explorer.core.embeddings.projection map) in ``colours``; with ``show_static``, the
        static input embedding of ``word`` starred and named when the map has one; no selection."""
        self.scatter.setData(pos=projection.coords, brush=[pg.mkBrush(c) for c in colours], pen=pg.mkPen(None),
                             data=np.arange(len(colours)))
        self.selected_item.clear()
        if projection.static is not None and show_static:
            self.static_item.setData(pos=projection.static[None])
            self.static_label.setText(f"'{word}' input embedding")
            right = float(projection.static[0]) > float(np.median(projection.coords[:, 0]))
            self.static_label.setAnchor((1.05, 1.0) if right else (-0.05, 1.0))
            self.static_label.setPos(float(projection.static[0]), float(projection.static[1]))
        else:
            self.static_item.clear()
            self.static_label.setText("")
        self.getPlotItem().enableAutoRange()
        self.getViewBox().setDefaultPadding(0.06)

    def clear_points(self) -> None:
        """No map: the points, the star and the selection removed."""
        for item in (self.scatter, self.static_item, self.selected_item):
            item.clear()
        self.static_label.setText("")

    def mark(self, position) -> None:
        """Ring the point at ``position`` (x, y)."""
        self.selected_item.setData(pos=np.asarray(position)[None])

    def save_image(self, path: str) -> str:
        """The plot as PNG (pyqtgraph's ImageExporter) or SVG (by the suffix); returns the path. SVG tries
        pyqtgraph's SVGExporter first; its path parser fails on the SVG that Qt 6.11 writes (ValueError), and
        then the plot's scene is rendered into a QSvgGenerator (vector shapes and text as well)."""
        from pyqtgraph import exporters

        item = self.getPlotItem()
        if not path.lower().endswith(".svg"):
            exporters.ImageExporter(item).export(path)
        else:
            try:
                exporters.SVGExporter(item).export(path)
            except ValueError:
                self._render_svg(path)
        return path

    def _render_svg(self, path: str) -> None:
        from PySide6.QtCore import QRectF, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        rect = self.sceneRect() if self.sceneRect().isValid() else QRectF(self.rect())
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(QSize(int(rect.width()), int(rect.height())))
        generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        generator.setTitle("BERT Explorer embeddings")
        painter = QPainter(generator)
        try:
            self.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
        finally:
            painter.end()


class EmbeddingsSide(QWidget):
    """Beside the plot: the hovered point (``hover``), the colours' legend (``legend``), the clicked point's
    nearest neighbours (``neighbours``, each item's user data its drawn point), notes, and the export buttons
    (``export_projector``, ``export_csv``, ``export_png``, ``export_svg``, on once a map is drawn)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hover = QLabel("Hover over a point to read its sentence; click it for its nearest neighbours.")
        self.hover.setWordWrap(True)
        self.hover.setTextFormat(Qt.TextFormat.RichText)
        self.hover.setMinimumHeight(90)
        self.hover.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.legend = QLabel("")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.neighbours = QListWidget()
        self.neighbours.setWordWrap(True)
        self.neighbours.setToolTip("the 10 points nearest the clicked one by cosine similarity in the original "
                                   "space (not in the 2-D map); double-click one to select it")
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        self.export_projector = QPushButton("Projector TSVs…")
        self.export_projector.setToolTip("vectors.tsv + metadata.tsv (+ projector_config.pbtxt, coordinates.csv) of "
                                         "the layer shown: open them in TensorBoard or projector.tensorflow.org")
        self.export_csv = QPushButton("CSV…")
        self.export_csv.setToolTip("the 2-D coordinates shown, with each point's text and columns")
        self.export_png = QPushButton("PNG…")
        self.export_svg = QPushButton("SVG…")
        self.set_exports(False)
        exports = QHBoxLayout()
        for b in self.exports():
            exports.addWidget(b)
        sl = QVBoxLayout(self)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.hover)
        sl.addWidget(self.legend)
        sl.addWidget(QLabel("Nearest neighbours (cosine, original space)"))
        sl.addWidget(self.neighbours, 1)
        sl.addWidget(self.notes)
        sl.addLayout(exports)

    def exports(self) -> tuple[QPushButton, ...]:
        return self.export_projector, self.export_csv, self.export_png, self.export_svg

    def set_exports(self, on: bool) -> None:
        for b in self.exports():
            b.setEnabled(on)

    def show_neighbours(self, items: list[tuple[str, int]]) -> None:
        """The neighbours list: (text, drawn point) each (components.embeddings.neighbour_items)."""
        self.neighbours.clear()
        for text, drawn in items:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, drawn)
            self.neighbours.addItem(item)
