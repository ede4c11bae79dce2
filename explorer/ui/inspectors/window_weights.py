"""The raw attention weights of a window a probe did not keep (the attention memory budget), fetched when an
AttentionView shows that window (its ``weights_requested``): asked of the inspector child, which kept the probe
(``lazy_attention.ref``), or computed on a thread of this process for a result probed here (scripts). The QA hub
and the Tag page share it.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject

from .latest import LatestOnly


class WindowWeights(QObject):
    """Fetches window weights for ``view`` (an AttentionView with ``async_weights``) on ``channel`` of ``client``;
    ``on_error(message)`` says why a fetch failed. The weights are stored in the result (its lazy attention, under
    the same budget rule) and the view is told (``weights_ready``)."""

    def __init__(self, client, channel: str, view, on_error: Callable[[str], None], parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self.on_error = on_error
        self.requests = LatestOnly.in_child(client, channel, self)
        self.requests.finished.connect(self._arrived)
        self.requests.failed.connect(lambda _id, msg, _tb: self.on_error(msg))
        self._asked: tuple | None = None     # (result, window) asked of the child
        view.async_weights = True
        view.weights_requested.connect(self.fetch)

    def fetch(self, index: int) -> None:
        """Ask for window ``index`` of the view's result (once while the same request is outstanding)."""
        result = self.view.result
        lazy = getattr(result, "lazy_attention", None)
        if result is None or lazy is None:
            return
        if getattr(lazy, "ref", None) is None:   # a result probed in this process (scripts): its own model
            from explorer.ui.shell.threads import start_worker

            start_worker(result.attention_weights, index, on_done=lambda _w: self.view.weights_ready(result, index),
                         on_error=lambda msg, _tb: self.on_error(msg))
            return
        if self._asked is not None and self._asked[0] is result and self._asked[1] == index \
                and self.requests._outstanding:
            return   # already asked
        self._asked = (result, index)
        self.requests.submit("attention_weights", {"ref": lazy.ref, "window": index})

    def _arrived(self, _request_id: int, weights) -> None:
        result, index = self._asked
        result.lazy_attention.store(result.attention, index, weights)
        self._asked = None
        self.view.weights_ready(result, index)
