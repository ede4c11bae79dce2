"""Observable models without Qt: a tiny callback list per event (as napari's evented models).

napari's ``Dims`` (napari/components/dims.py) is a plain model that emits one event per field
(``dims.events.ndim``, ``dims.events.current_step``) and its widget (``_qt/widgets/qt_dims.py``)
subscribes; the model never knows there is a widget. :class:`EventEmitter` is that callback list and
:class:`EmitterGroup` holds one emitter per event name (``store.events.changed.connect(cb)``).

Callbacks run synchronously, in connection order, on the thread that emits; a UI that must run on its
GUI thread connects through a Qt bridge (explorer/ui/runs/bridge.py). A callback that raises is not
swallowed: the exception reaches the emitter (errors stay visible).
"""

from __future__ import annotations

from typing import Any, Callable


class EventEmitter:
    """One event: ``connect(callback)``, ``disconnect(callback)``, ``emit(*args)``.

    ``emit`` calls every connected callback with the same positional arguments, in connection order.
    Connecting the same callback twice connects it once.
    """

    def __init__(self, name: str = ""):
        self.name = name
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Call ``callback(*args)`` on every emit; returns it (usable as a decorator)."""
        if callback not in self._callbacks:
            self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., Any] | None = None) -> None:
        """Stop calling ``callback`` (all callbacks when None). Unknown callbacks are ignored."""
        if callback is None:
            self._callbacks.clear()
        elif callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):   # a callback may disconnect itself
            callback(*args)

    def __len__(self) -> int:
        return len(self._callbacks)


class EmitterGroup:
    """Named emitters as attributes: ``EmitterGroup("added", "changed").changed.connect(cb)``."""

    def __init__(self, *names: str):
        self.names = tuple(names)
        for name in names:
            setattr(self, name, EventEmitter(name))

    def __getitem__(self, name: str) -> EventEmitter:
        if name not in self.names:
            raise KeyError(f"no event {name!r}; events: {', '.join(self.names)}")
        return getattr(self, name)
