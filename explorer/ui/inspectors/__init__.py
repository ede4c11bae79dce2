"""The inspectors: Attention, Spans & τ, and τ on a dev set, behind one InspectorHub; Classify and its
dev set; the page registry (``registry.py``) the main window builds its tabs from.

    from explorer.ui.inspectors import InspectorHub
    hub = InspectorHub(parent=None)
    for title, widget in hub.tabs():   # "Attention", "Spans && τ", "τ on dev set"
        tabs.addTab(widget, title)
    hub.open_model("bundled:minilm")
    hub.open_example(question, passage)

The hub is imported on first use, so that ``explorer.ui.inspectors.registry`` stays light.
"""

__all__ = ["InspectorHub", "TAB_TITLES"]


def __getattr__(name: str):
    if name in __all__:
        from . import hub

        return getattr(hub, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
