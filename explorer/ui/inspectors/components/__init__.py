"""The inspector pages' Qt-free models (as napari's ``components/`` beside its ``_qt/`` widgets): what a page shows
and decides, as plain Python and numpy that unit tests drive without a window; the widgets in
explorer.ui.inspectors render what these say.

No module here imports PySide6, pyqtgraph or a widget module (an import-linter contract in pyproject.toml,
checked by tests/test_layers.py).
"""
