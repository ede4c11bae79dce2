"""The desktop app (PySide6 + pyqtgraph). See explorer/ui/shell/pyside_fix.py for why it is imported first."""

from explorer.ui.shell import pyside_fix as _pyside_fix

_pyside_fix.apply()
