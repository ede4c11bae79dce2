"""The run store's events as Qt signals (the small Qt side of explorer.core.runs.store.RunStore).

As napari's ``QtDims`` listens to the Qt-free ``Dims`` model, the Runs dock and Curves listen to the
Qt-free run store through this bridge: each store event is re-emitted as the Qt signal of the same
name. Qt delivers a signal emitted on another thread to receivers on the GUI thread (queued
connection), so a store changed from a worker thread still updates the widgets on the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.core.runs.store import RunStore


class StoreBridge(QObject):
    """Signals ``added(state)``, ``changed(run_id, series)``, ``ended(run_id, status)``, ``removed(run_id)``,
    ``message(text)``: the store's events (explorer.core.runs.store.RunStore). ``store``: the model itself."""

    added = Signal(object)
    changed = Signal(str, object)
    ended = Signal(str, str)
    removed = Signal(str)
    message = Signal(str)

    def __init__(self, store: RunStore, parent: QObject | None = None):
        super().__init__(parent)
        self.store = store
        for name in store.events.names:
            store.events[name].connect(getattr(self, name).emit)
