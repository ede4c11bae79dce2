"""The head-masking controls of the Spans & τ, Classify and Tag pages: type heads or layers to switch off, and the
input in view runs again with them off (in the inspector child, op ``mask_heads``), shown beside the result with
every head. What a selection names and what the table says: explorer.ui.inspectors.components.head_masking.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from .components.head_masking import (MASK_DEV_CAP, SELECTION_HELP, comparison_html, parse_selection,
                                      with_class_names)
from .latest import LatestOnly

TYPICAL_SELECTION = "5.3, 6.1, 2.4, L4"   # the selection the field shows whole
FIELD_PADDING = 16                         # the line edit's frame and text margins, px


class HeadMaskBar(QWidget):
    """"Switch heads off" with a selection field, Compare and Clear, and the comparison under them.

    ``inputs()`` gives the page's input in view as mask_heads fields (``text``, ``text_pair``, ``tau``, window
    settings), or None when there is none; ``slot`` is the page's model slot in the inspector child.
    ``size`` (layers, heads per layer) checks typed indices once the model (:meth:`model_in`) or a result has told
    them. ``dev()``, when given,
    names a dev set (components.head_masking.dev_fields, or None when none is chosen) that "and on the dev set"
    also scores; ``dev_where`` names the place where the user chooses it (messages and tooltip).
    ``class_names(names)``, when given, gives the class names the page shows for the head's output names."""

    def __init__(self, client, slot: str, inputs: Callable[[], dict | None], parent=None,
                 dev: Callable[[], dict | None] | None = None,
                 class_names: Callable[[list[str]], list[str]] | None = None,
                 dev_where: str = "the Attention page's Head importance tab"):
        super().__init__(parent)
        self.class_names = class_names
        self.slot = slot
        self.inputs = inputs
        self.dev = None
        self.size: tuple[int, int] | None = None
        self.result: dict | None = None
        self._runner = LatestOnly.in_child(client, f"{slot}.mask_heads", self)
        self._runner.finished.connect(lambda _id, res: self.show_result(res))
        self._runner.failed.connect(lambda _id, msg, _tb: self._say(msg))
        self.field = QLineEdit()
        self.field.setPlaceholderText("e.g. 5.3, 6.*, L2")
        self.field.setToolTip(SELECTION_HELP)
        self.field.returnPressed.connect(self.compare)
        # wide enough for a typical selection ("5.3, 6.1, 2.4, L4") wherever the row sits; the short button name
        # leaves it that room in the Spans & τ pane at 1280x800 without widening the window
        self.field.setMinimumWidth(self.field.fontMetrics().horizontalAdvance(TYPICAL_SELECTION) + FIELD_PADDING)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("run the input in view again with these heads switched off, beside the "
                                       "result with every head")
        self.compare_button.clicked.connect(self.compare)
        clear = QPushButton("Clear")
        clear.clicked.connect(self.clear)
        self.on_dev = QCheckBox("and on the dev set")
        self.dev_where = ""
        self.attach_dev(dev, dev_where)
        row = QHBoxLayout()
        for w in (QLabel("Heads off"), self.field, self.compare_button, self.on_dev, clear):
            row.addWidget(w)
        row.setStretchFactor(self.field, 1)
        self.table = QLabel()
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setWordWrap(True)
        self.table.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table.hide()   # shown with its first words: empty, it kept a blank line over the page's plots
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.table)

    def attach_dev(self, dev: Callable[[], dict | None] | None, where: str) -> None:
        """Let "and on the dev set" score the dev set ``dev()`` names, chosen in ``where`` (None: no checkbox)."""
        self.dev, self.dev_where = dev, where
        self.on_dev.setToolTip(f"also score the dev set named in {where} with and without these heads (its first "
                               f"examples, {MASK_DEV_CAP} when it says all; one dev pass per comparison)")
        self.on_dev.setVisible(dev is not None)

    def model_in(self, loaded) -> None:
        """A new model (ModelInfo: ``num_layers``, ``num_heads``): typed heads are checked against its size at
        once, and a comparison of the previous model is cleared."""
        layers, heads = int(getattr(loaded, "num_layers", 0) or 0), int(getattr(loaded, "num_heads", 0) or 0)
        self.size = (layers, heads) if layers and heads else None
        self.clear()

    def compare(self) -> int | None:
        """Ask the child for the input in view with the typed heads off; the request id, or None (said why)."""
        layers, heads = self.size if self.size else (None, None)
        sel = parse_selection(self.field.text(), layers, heads)
        if sel.error or sel.empty:
            self._say(sel.error or f"Type the heads to switch off: {SELECTION_HELP}")
            return None
        data = self.inputs()
        if data is None:
            self._say("Nothing in view to compare: run the page's input first")
            return None
        if self.dev is not None and self.on_dev.isChecked():
            dev = self.dev()
            if dev is None:
                self._say(f"Choose a dev file in {self.dev_where} first")
                return None
            data = {**data, **dev}
        self._say(f"running with {sel.describe()} off …")
        return self._runner.submit("mask_heads", {"slot": self.slot, **data, **sel.request()})

    def show_result(self, result: dict) -> None:
        """Show a mask_heads result (explorer.core.ablation.one_input.Masked.to_dict plus the model's size)."""
        if self.class_names is not None and result.get("base", {}).get("names"):
            result = with_class_names(result, self.class_names(result["base"]["names"]))
        self.result = result
        self.size = (int(result["layers"]), int(result["heads_per_layer"]))
        self._say(comparison_html(result))

    def clear(self) -> None:
        """Forget the comparison (a new input or model makes it stale)."""
        self.result = None
        self._say("")

    def _say(self, text: str) -> None:
        """Show ``text`` (rich text) under the row; "" hides the line."""
        self.table.setText(text)
        self.table.setVisible(bool(text))
