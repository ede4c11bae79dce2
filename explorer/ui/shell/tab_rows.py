"""The main window's tabs as buttons in rows that wrap: every tab in view at 1280 px, none behind scroll arrows.

A QTabBar keeps one row: at 1280x800 beside the Runs dock thirteen pages need about 1,150 px of its 780, so "Tag:"
was cut, the rest sat behind scroll arrows, and opening a Predictions page scrolled the bar so that the next
click landed on another tab. :class:`RowTabWidget` is a QTabWidget whose own bar is hidden; :class:`TabRows` shows
one button per tab in a :class:`~explorer.ui.shell.flow_layout.FlowLayout` (a second row when one does not fit),
a new tab at the end, so the others never move. A tab's close button (the Predictions pages') is offered beside
its button. The QTabWidget stays the model: titles, tooltips, the current page and the pages' order.

The rows are at most ``MAX_ROWS``: Predictions pages restored at start-up wrapped the buttons onto four rows at
1280x800, taking the height of every page. The tabs that do not fit stay in the "Tabs ▾" list at the end, which then
counts them ("Tabs (+3) ▾"); the current tab's button is always shown (:func:`shown_tabs` decides which).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractButton, QHBoxLayout, QTabBar, QTabWidget, QToolButton, QVBoxLayout, QWidget

from explorer.ui.shell.flow_layout import FlowLayout

__all__ = ["MAX_ROWS", "RowTabWidget", "TabRows", "row_count", "shown_tabs"]

MAX_ROWS = 2   # rows of tab buttons at most; the others are reached through the "Tabs ▾" list
MIN_ELIDED_PX = 100   # the narrowest a current Predictions tab's button is elided to before it takes a row of its own


def row_count(widths: list[int], width: int, spacing: int) -> int:
    """Rows that items of ``widths`` (px) take in a flow of ``width`` px with ``spacing`` px between items: an item
    that does not fit after the last one in its row starts a new row (FlowLayout's rule); 0 for no items."""
    return _flow(widths, width, spacing)[0]


def _flow(widths: list[int], width: int, spacing: int) -> tuple[int, int]:
    """(rows, px used in the last row) of FlowLayout's rule."""
    rows, x = 0, 0
    for w in widths:
        if rows == 0 or x + w > width:
            rows, x = rows + 1, 0
        x += w + spacing
    return rows, max(x - spacing, 0)


def shown_tabs(widths: list[int], optional: set[int], current: int, trailing: tuple[int, int], width: int,
               spacing: int, max_rows: int = MAX_ROWS, recent: int = -1) -> tuple[list[int], int | None]:
    """Which tab buttons to show so that they and the trailing button fit ``max_rows`` rows of ``width`` px.

    All, when they fit beside it at ``trailing[0]`` px. Else (beside it at ``trailing[1]`` px, wide enough for a
    count) every tab not in ``optional`` (the fixed pages), the optional ones in order while they fit, and
    ``current`` (-1: none) always. Returns (the indices shown, in order; None, or the px the current button must be
    narrowed to when it does not fit whole beside the fixed ones: its text is then elided).

    ``recent``: the optional tab used last (-1: none). With a fixed page current and no optional button whole in
    the rows, its button is shown narrowed (the px returned are its) where MIN_ELIDED_PX fit: a page to go back to,
    rather than every optional page behind the list."""
    def fits(indices: list[int], room_for: int) -> bool:
        return row_count([widths[i] for i in indices] + [room_for], width, spacing) <= max_rows

    everything = list(range(len(widths)))
    if fits(everything, trailing[0]):
        return everything, None
    shown = [i for i in everything if i not in optional or i == current]
    for i in everything:
        if i in optional and i != current:
            wanted = sorted(shown + [i])
            if not fits(wanted, trailing[1]):
                break
            shown = wanted
    if current not in optional:
        if recent in optional and not any(i in optional for i in shown):
            rows, used = _flow([widths[i] for i in shown], width, spacing)
            counted = len(optional) > 1   # the others stay behind the list, which counts them
            room = width - used - 2 * spacing - trailing[1 if counted else 0]
            if rows <= max_rows and room >= MIN_ELIDED_PX:
                return sorted(shown + [recent]), min(room, widths[recent])
        return shown, None
    if fits(shown, trailing[1]):
        return shown, None
    others = [i for i in shown if i != current]
    rows, used = _flow([widths[i] for i in others], width, spacing)
    counted = any(i in optional and i not in shown for i in everything)   # the trailing list shows a count
    room = width - used - 2 * spacing - trailing[1 if counted else 0]
    return shown, (room if rows <= max_rows and room >= MIN_ELIDED_PX else None)


class RowTabWidget(QTabWidget):
    """A QTabWidget that says when its tabs change (``tabs_changed``) and hides its one-row bar."""

    tabs_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tabBar().hide()

    def tabInserted(self, index: int) -> None:  # noqa: N802 - Qt's name
        super().tabInserted(index)
        self.tabs_changed.emit()

    def tabRemoved(self, index: int) -> None:  # noqa: N802 - Qt's name
        super().tabRemoved(index)
        self.tabs_changed.emit()


class TabRows(QWidget):
    """Above ``tabs`` (a RowTabWidget): a button per tab, checked for the current one, in rows that wrap, and
    ``trailing`` (the "Tabs ▾" list, a TabList) at the end, in at most MAX_ROWS rows. ``buttons``: the tab buttons in
    tab order (rebuilt one event-loop turn after a tab is added or removed, when its tooltip and close button are set
    too); ``hidden``: the indices of the tabs whose buttons do not fit now."""

    def __init__(self, tabs: RowTabWidget, trailing: QWidget | None = None, parent=None):
        super().__init__(parent)
        self.tabs, self.trailing = tabs, trailing
        self.buttons: list[QToolButton] = []
        self._cells: list[QWidget] = []
        self.hidden: list[int] = []
        self._closable: set[int] = set()   # the tabs with a close button (the Predictions pages): they may give way
        self._recent_page: QWidget | None = None   # the optional page shown last (_recent_optional)
        self.flow = FlowLayout(self, spacing=2)
        self.flow.setContentsMargins(4, 2, 4, 0)
        self._refresh = QTimer(self, singleShot=True, interval=0)
        self._refresh.timeout.connect(self.rebuild)
        tabs.tabs_changed.connect(self._refresh.start)
        tabs.currentChanged.connect(self._check_current)
        self.rebuild()

    def rebuild(self) -> None:
        """One button per tab (title, tooltip, close button), the current one checked."""
        for cell in self._cells:
            self.flow.removeWidget(cell)
            cell.deleteLater()
        if self.trailing is not None:
            self.flow.removeWidget(self.trailing)
        self.buttons, self._cells, self._closable = [], [], set()
        bar = self.tabs.tabBar()
        for i in range(self.tabs.count()):
            cell = QWidget(self)
            row = QHBoxLayout(cell)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(0)
            button = QToolButton(cell)
            button.setObjectName("tabRowButton")
            button.setText(self.tabs.tabText(i))
            button.setToolTip(self.tabs.tabToolTip(i))
            button.setCheckable(True)
            button.setChecked(i == self.tabs.currentIndex())
            # by position, not by page: a lazy page's placeholder is replaced by the built page at the same index
            button.clicked.connect(lambda _=False, b=button: self._show_at(self.buttons.index(b)))
            row.addWidget(button)
            close = bar.tabButton(i, QTabBar.ButtonPosition.RightSide)
            if isinstance(close, QAbstractButton):   # the page's own close button, clicked from here
                shown = QToolButton(cell)
                shown.setObjectName("tabRowClose")
                shown.setText(close.text() or "×")
                shown.setToolTip(close.toolTip())
                shown.setAutoRaise(True)
                shown.clicked.connect(close.click)
                row.addWidget(shown)
                self._closable.add(i)
            self.flow.addWidget(cell)
            self.buttons.append(button)
            self._cells.append(cell)
        if self.trailing is not None:
            self.flow.addWidget(self.trailing)
        self._fit_rows()
        self.updateGeometry()

    def _fit_rows(self) -> None:
        """Show the buttons that fit MAX_ROWS rows at this width (the fixed pages' and the current one always, the
        current one elided when it must be); count the others on the trailing list."""
        m = self.flow.contentsMargins()
        width = self.width() - m.left() - m.right()
        for i, button in enumerate(self.buttons):   # measured whole
            button.setText(self.tabs.tabText(i))
            button.setToolTip(self.tabs.tabToolTip(i))
        widths = [cell.sizeHint().width() for cell in self._cells]
        trailing = (0, 0)
        if self.trailing is not None:   # its width without a count and with the longest count it may show
            trailing = (self.trailing.widest_hint(0), self.trailing.widest_hint(len(widths)))
        current, recent = self.tabs.currentIndex(), self._recent_optional()
        shown, narrowed = (shown_tabs(widths, self._closable, current, trailing, width, self.flow.spacing_px(),
                                      recent=recent) if width > 0 else (list(range(len(widths))), None))
        self.hidden = [i for i in range(len(widths)) if i not in shown]
        for i, cell in enumerate(self._cells):
            cell.setVisible(i not in self.hidden)
        if narrowed is not None:
            self._narrow(current if current in self._closable else recent, narrowed, widths)
        if self.trailing is not None:
            self.trailing.show_hidden(len(self.hidden))

    def _narrow(self, index: int, px: int, widths: list[int]) -> None:
        """Elide tab ``index``'s button text (in the middle: the file's name keeps its start and end) so that its
        cell is at most ``px`` wide; ``widths``: the cells' widths with whole texts."""
        button, title = self.buttons[index], self.tabs.tabText(index)
        fm = button.fontMetrics()
        room = px - (widths[index] - fm.horizontalAdvance(title))
        while True:
            button.setText(fm.elidedText(title, Qt.TextElideMode.ElideMiddle, room))
            if self._cells[index].sizeHint().width() <= px or room <= 10:
                break
            room -= 8
        button.setToolTip("\n".join(t for t in (title, self.tabs.tabToolTip(index)) if t))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_rows()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Rows that wrap to a third row must not push the window past the screen: the pages give way
        (explorer.ui.shell.screen_fit.ScreenGuard on the window)."""
        super().showEvent(event)
        if self.window() is not self:
            from explorer.ui.shell.screen_fit import guard_screen

            guard_screen(self.window(), self.tabs)

    def _show_at(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)
        self._check_current()

    def _recent_optional(self) -> int:
        """The optional tab (a Predictions page) used last, or the newest one when none was used yet (pages
        restored at start-up); -1 when there is none."""
        index = self.tabs.indexOf(self._recent_page) if self._recent_page is not None else -1
        return index if index in self._closable else max(self._closable, default=-1)

    def _check_current(self, *_args) -> None:
        current = self.tabs.currentIndex()
        if current in self._closable:
            self._recent_page = self.tabs.widget(current)
        for i, button in enumerate(self.buttons):
            button.setChecked(i == current)
        if self.hidden:   # the current tab's button is always in view: another may give way to it
            self._fit_rows()


def tabs_with_rows(tabs: RowTabWidget, trailing: QWidget | None = None) -> tuple[QWidget, TabRows]:
    """(a widget holding the tab rows above ``tabs``, the rows)."""
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    rows = TabRows(tabs, trailing, holder)
    layout.addWidget(rows)
    layout.addWidget(tabs, 1)
    return holder, rows
