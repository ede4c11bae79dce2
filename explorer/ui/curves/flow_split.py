"""The Curves page's splitter between the plots and the watched questions' attention flow over training.

The splitter really moves: the flow's minimum is its header line, and dragged below it the flow folds to that
line. Where the user puts it (the flow's share of the height, and whether it is folded) is remembered
(AppSettings.layout_value under SPLIT_KEY); until the user moves it, the flow opens with FLOW_SHARE of the height
on a page at least FLOW_OPEN_FROM px high and starts folded on a lower one.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget

from explorer.ui.curves.flow_training import FlowOverTraining

__all__ = ["FLOW_OPEN_FROM", "FLOW_SHARE", "FlowSplit", "SPLIT_KEY"]

FLOW_SHARE = 0.3           # the attention flow's default share of the plots + flow height
FLOW_OPEN_FROM = 900       # px: a page at least this high opens the flow; a lower one starts with it collapsed
SPLIT_KEY = "curves/flow"  # AppSettings.layout_value key: {"share": flow share of the splitter, "collapsed": bool}


class FlowSplit(QSplitter):
    """``plots`` above ``flow_view`` (a FlowOverTraining, hidden until a shown run has watched questions);
    ``settings``: the app's AppSettings (None remembers nothing)."""

    def __init__(self, plots: QWidget, settings=None, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.settings = settings
        self._flow_share = FLOW_SHARE     # the flow's share of the splitter while open (the user's, once moved)
        self._flow_user_set = False       # the user moved the splitter or pressed Hide / Show (or it was saved)
        self.flow_view = FlowOverTraining()
        self.flow_view.setVisible(False)
        self.flow_view.collapsed_changed.connect(self._flow_collapsed)
        self.addWidget(plots)
        self.addWidget(self.flow_view)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 0)
        self.setCollapsible(0, False)
        self.setCollapsible(1, True)   # dragged below its minimum, the flow folds to its header
        self.splitterMoved.connect(lambda _pos, _i: self._split_moved())

    def show_flow(self, show: bool, page_height: int) -> None:
        """Show or hide the flow view; one that appears takes the remembered place, else folded on a low page
        and FLOW_SHARE of the height otherwise."""
        appears = show and self.flow_view.isHidden()
        self.flow_view.setVisible(show)
        if appears:
            self._place_flow(page_height)

    def page_resized(self, page_height: int) -> None:
        """Until the user moves the splitter, the flow view takes its default place for the new page height."""
        if not self._flow_user_set and not self.flow_view.isHidden():
            self._place_flow(page_height)

    def _saved_split(self) -> dict | None:
        """The remembered {"share": float, "collapsed": bool}, or None (nothing saved, or unreadable)."""
        raw = self.settings.layout_value(SPLIT_KEY) if self.settings is not None else ""
        try:
            data = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("share"), (int, float)):
            return None
        return {"share": min(max(float(data["share"]), 0.05), 0.95), "collapsed": bool(data.get("collapsed"))}

    def _place_flow(self, page_height: int) -> None:
        """Size the splitter for the flow view: the remembered position, else collapsed to its header on a page
        lower than FLOW_OPEN_FROM px and FLOW_SHARE of the height otherwise."""
        saved = self._saved_split()
        if saved is not None:
            self._flow_share = saved["share"]
            collapsed = saved["collapsed"]
        else:
            collapsed = page_height < FLOW_OPEN_FROM
        self.flow_view.set_collapsed(collapsed)
        self._size_split()

    def _size_split(self) -> None:
        total = sum(self.sizes()) or self.height()
        if self.flow_view.is_collapsed():
            flow = self.flow_view.header_height()
        else:
            flow = max(int(self._flow_share * total), self.flow_view.minimumHeight())
        self.setSizes([max(total - flow, 0), flow])

    def _flow_collapsed(self, _collapsed: bool) -> None:
        """The user pressed the flow view's Hide / Show: size the splitter for it and remember it."""
        self._size_split()
        self._remember_split()

    def _split_moved(self) -> None:
        """The user dragged the splitter: a flow dragged shut (size 0) folds to its header line."""
        if self.sizes()[1] == 0 and not self.flow_view.is_collapsed():
            self.flow_view.set_collapsed(True)
            self._size_split()
        self._remember_split()

    def _remember_split(self) -> None:
        """Keep the splitter position (the flow's share while open) and whether the flow is collapsed."""
        self._flow_user_set = True
        sizes = self.sizes()
        if not self.flow_view.is_collapsed() and sum(sizes) > 0:
            self._flow_share = sizes[1] / sum(sizes)
        if self.settings is not None:
            self.settings.set_layout_value(SPLIT_KEY, json.dumps(
                {"share": round(self._flow_share, 4), "collapsed": self.flow_view.is_collapsed()}))
