"""The inspectors: Attention, Spans & τ, and τ on a dev set, behind one InspectorHub.

    from explorer.ui.inspectors import InspectorHub
    hub = InspectorHub(parent=None)
    for title, widget in hub.tabs():   # "Attention", "Spans && τ", "τ on dev set"
        tabs.addTab(widget, title)
    hub.open_model("bundled:minilm")
    hub.open_example(question, passage)
"""

from .hub import TAB_TITLES, InspectorHub

__all__ = ["InspectorHub", "TAB_TITLES"]
