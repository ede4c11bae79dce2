"""Find what a window cuts at its current size: widgets outside their parent, elided labels and headers.

Used by tests/test_layout_sizes.py (every page at 1280x800 and 1920x1080) and scripts/layout_shots.py.
:func:`layout_offenders` walks the visible widgets of a top-level window and returns one
:class:`Offender` per problem, each naming the widget by its object path (class and object name or
text, from the window down) and the sizes compared, so a failing test lists all of them at once.

The rules, in pixels of the widget's own coordinates (1 px of slack for rounding):

- *outside*: a visible child whose geometry leaves its visible parent's rect; children of a scroll
  area's viewport are exempt when the scroll area can scroll in that direction (its scroll bar is not
  ``ScrollBarAlwaysOff``), and in width the buttons on the tabs of a tab bar (it scrolls its tabs).
- *elided*: a QLabel without word wrap (but an ElidedLabel of plain text: it cuts with "…" by design) whose text
  (rich text through its plain-text rendering, the longest line) is wider than its contents rect; a word-wrapped QLabel taller at its width than it is;
  a QAbstractButton narrower than its text plus the style's margins (sizeHint, which is never less; a tool
  button with an instant-popup menu also its menu arrow); a combo box (not editable) whose current text is wider
  than its text field.
- *header*: a horizontal QHeaderView section (not hidden, width > 0) narrower than its title's
  advance plus the style's header margins; a vertical one (a row's title: a class name) lower than its title's
  line plus the style's margins, which clips the line's foot: an underscore vanished ("gold Refund not showing up"
  for ``Refund_not_showing_up``).
- *cell*: a table's (or a tree's: the Runs list) column whose cells hold short text (at most ``SHORT_CELL`` characters) that does not
  fit the column; a column with longer text narrower than ``MIN_TEXT_COLUMN`` (an elided text column
  must still show words, not "Me…").
- *list*: a list (QListView in list mode) without word wrap whose item's text is wider than its viewport: the line
  runs off the box (the Spans & τ page's windows list at 1920x1080).
- *tabs*: a tab bar that shows its scroll arrows, or a tab outside it: a tab a person cannot see (the Attention
  page's Head importance behind the arrows at 1280x800).
- *plot*: a pyqtgraph plot item or legend inside a GraphicsView that lies outside the view; a plot whose data
  area (its view box, inside the axes) is less than ``MIN_PLOT_VIEW`` px wide or high (a colour bar excepted,
  and the height of a view given a maximum height: a strip on purpose): a 384-token attention map squeezed
  into a 90 px strip, block-flow curves 23 px high.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractScrollArea, QCheckBox, QComboBox,
                               QHeaderView, QLabel, QListView, QRadioButton, QStyle, QStyleOptionComboBox,
                               QStyleOptionHeader,
                               QTabBar, QTableView, QToolButton, QTreeView, QWidget)

from explorer.ui.shell.columns import MIN_TEXT_COLUMN, SHORT_CELL
from explorer.ui.shell.elided_label import ElidedLabel, ShortFormLabel
from explorer.ui.shell.tooltips import might_be_rich

SLACK = 1            # px of rounding allowed
CELL_ROWS = 30       # rows of a table that are measured
QWIDGETSIZE_MAX = (1 << 24) - 1   # Qt's "no maximum size"
MIN_PLOT_VIEW = 120  # px: the smallest width and height of a plot's data area worth reading


@dataclass(frozen=True)
class Offender:
    """One cut thing: ``kind`` (outside, elided, header, cell, list, tabs, plot), ``path`` (the widget from the
    window down), ``detail`` (what was compared, in px)."""

    kind: str
    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.path}: {self.detail}"


def _name(w: QWidget) -> str:
    name = type(w).__name__
    if w.objectName() and not w.objectName().startswith("qt_"):
        return f"{name}#{w.objectName()}"
    text = w.text() if isinstance(w, (QLabel, QAbstractButton)) else ""
    text = _plain(text, w)[:24] if text else ""
    title = w.title() if hasattr(w, "title") and callable(w.title) and isinstance(w.title(), str) else ""
    label = text or title
    return f"{name}[{label!r}]" if label else name


def widget_path(w: QWidget) -> str:
    """``MainWindow > QTabWidget > ... > QLabel['text']`` from the top-level window down to ``w``."""
    parts = []
    while w is not None:
        parts.append(_name(w))
        if QWidget.isWindow(w):
            break
        w = QWidget.parentWidget(w)
    return " > ".join(reversed(parts))


def _plain(text: str, label: QWidget | None = None) -> str:
    rich = isinstance(label, QLabel) and (label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and might_be_rich(text)))
    if rich:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&") if isinstance(label, QAbstractButton) \
        else text


def _scrollable(parent: QWidget, horizontal: bool) -> bool:
    """Is ``parent`` the viewport of a scroll area that can scroll in that direction?"""
    area = QWidget.parentWidget(parent)
    if not isinstance(area, QAbstractScrollArea) or area.viewport() is not parent:
        return False
    policy = area.horizontalScrollBarPolicy() if horizontal else area.verticalScrollBarPolicy()
    return policy != Qt.ScrollBarPolicy.ScrollBarAlwaysOff


def _outside(w: QWidget) -> list[Offender]:
    parent = QWidget.parentWidget(w)
    if parent is None or QWidget.isWindow(w) or not QWidget.isVisible(parent):
        return []
    g, r = w.geometry(), parent.rect()
    cut_x = g.left() < r.left() - SLACK or g.right() > r.right() + SLACK
    cut_y = g.top() < r.top() - SLACK or g.bottom() > r.bottom() + SLACK
    if cut_x and (_scrollable(parent, True) or isinstance(parent, QTabBar)):
        cut_x = False   # a tab bar scrolls too: the buttons of its tabs scrolled out of view lie outside it
    if cut_y and _scrollable(parent, False):
        cut_y = False
    if not (cut_x or cut_y) or g.width() <= 0 or g.height() <= 0:
        return []
    return [Offender("outside", widget_path(w),
                     f"geometry {_rect(g)} leaves its parent's rect {_rect(r)}")]


def _rect(r: QRect) -> str:
    return f"({r.x()},{r.y()} {r.width()}x{r.height()})"


def _label(w: QLabel) -> list[Offender]:
    text = w.text()
    if not text or w.pixmap() is not None and not w.pixmap().isNull():
        return []
    if isinstance(w, ShortFormLabel):   # its long text or its short form, whole: cut only where even that is
        return [Offender("elided", widget_path(w), f"short form {w.shown_text()!r} cut, has {w.width()} px")
                ] if w.is_cut() else []
    if isinstance(w, ElidedLabel) and w.elides_on_purpose():
        return []   # cut with "…" by design, the whole text in its tooltip (the status bar's message)
    avail = w.contentsRect().width() - 2 * max(w.margin(), 0) - max(w.indent(), 0) * (w.indent() > 0)
    if w.wordWrap():
        need = w.heightForWidth(w.width())
        if need > w.height() + SLACK + 2:
            return [Offender("elided", widget_path(w), f"wrapped text needs {need} px of height, has {w.height()}")]
        return []
    fm = QFontMetrics(w.font())
    need = max(fm.horizontalAdvance(line) for line in _plain(text, w).split("\n"))
    if need > avail + SLACK:
        return [Offender("elided", widget_path(w), f"text needs {need} px, has {avail}")]
    return []


def _button(w: QAbstractButton) -> list[Offender]:
    if not w.text():
        return []
    fm = QFontMetrics(w.font())
    need = fm.horizontalAdvance(_plain(w.text(), w))
    if isinstance(w, (QCheckBox, QRadioButton)):
        need = w.sizeHint().width()
    elif isinstance(w, QToolButton) and w.menu() is not None \
            and w.popupMode() == QToolButton.ToolButtonPopupMode.InstantPopup:
        # the style draws the menu arrow in the button's corner and QToolButton's size hint leaves no room for
        # it: "Export⌄" with the arrow over the "t" reads as cut
        need += 8 + w.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, None, w)
    else:
        need = min(w.sizeHint().width(), need + 8 + (w.iconSize().width() + 4 if not w.icon().isNull() else 0))
    if need > w.width() + SLACK:
        return [Offender("elided", widget_path(w), f"text needs {need} px, has {w.width()}")]
    return []


def _combo(w: QComboBox) -> list[Offender]:
    """A combo box (not editable: an edit field scrolls) whose shown text is wider than its text field: Qt
    clips it, mid-word ("1: 165 tokens, chars")."""
    text = w.currentText()
    if not text or w.isEditable():
        return []
    opt = QStyleOptionComboBox()
    w.initStyleOption(opt)
    field = w.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                     QStyle.SubControl.SC_ComboBoxEditField, w)
    icon = w.iconSize().width() + 4 if not w.itemIcon(w.currentIndex()).isNull() else 0
    need = QFontMetrics(w.font()).horizontalAdvance(text) + icon
    if need > field.width() + SLACK:
        return [Offender("elided", widget_path(w), f"text {text!r} needs {need} px, its field has {field.width()}")]
    return []


def header_need(header: QHeaderView, section: int, text: str, *, bold: bool = False) -> int:
    """The width, in pixels, a header section needs to show ``text`` whole: the title's advance, the style's
    margins, and the sort arrow where it is drawn (the section the view is sorted by; Qt draws none on the
    others). ``bold``: measured in the bold font Qt paints a highlighted section in (a table whose selected rows
    highlight every column's title: ``highlightSections``)."""
    return header_size_need(header, section, text, bold=bold).width()


def header_size_need(header: QHeaderView, section: int, text: str, *, bold: bool = False) -> QSize:
    """The size a header section needs to show ``text`` whole (header_need): its width, and its height (the
    title's line, descent included, plus the style's margins above and below)."""
    opt = QStyleOptionHeader()
    opt.initFrom(header)
    opt.section = section
    opt.text = text
    opt.orientation = header.orientation()
    if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
        opt.sortIndicator = QStyleOptionHeader.SortIndicator.SortDown
    font = header.font()
    font.setBold(bold or font.bold())
    opt.fontMetrics = QFontMetrics(font)   # the style measures the title with the option's metrics
    return header.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, opt, opt.fontMetrics.size(
        0, text), header)


def _header(h: QHeaderView) -> list[Offender]:
    if h.model() is None:
        return []
    if h.orientation() == Qt.Orientation.Vertical:
        return _row_titles(h)
    out = []
    model = h.model()
    for section in range(h.count()):
        if h.isSectionHidden(section) or h.sectionSize(section) <= 0:
            continue
        text = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        need = max(header_need(h, section, line) for line in str(text).split("\n"))
        if need > h.sectionSize(section) + SLACK:
            out.append(Offender("header", f"{widget_path(h)} section {section} {str(text)!r}",
                                f"title needs {need} px, section is {h.sectionSize(section)}"))
    return out


def _row_titles(h: QHeaderView) -> list[Offender]:
    """A vertical header's sections (the first CELL_ROWS) lower than their titles' line and the style's margins."""
    out = []
    model = h.model()
    for section in range(min(h.count(), CELL_ROWS)):
        if h.isSectionHidden(section) or h.sectionSize(section) <= 0:
            continue
        text = model.headerData(section, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole)
        if not text or "\n" in str(text):
            continue
        need = header_size_need(h, section, str(text)).height()
        if need > h.sectionSize(section) + SLACK:
            out.append(Offender("header", f"{widget_path(h)} row {section} {str(text)!r}",
                                f"title needs {need} px high, row is {h.sectionSize(section)}"))
    return out


def _cell_indexes(t: QAbstractItemView, col: int) -> list:
    """The first CELL_ROWS cells of column ``col``: a table's rows; a tree's top-level rows and the children of
    those it shows expanded (a group's members in the Runs list)."""
    model = t.model()
    out = []
    for row in range(min(model.rowCount(), CELL_ROWS)):
        index = model.index(row, col)
        out.append(index)
        if isinstance(t, QTreeView) and t.isExpanded(index.siblingAtColumn(0)):
            parent = index.siblingAtColumn(0)
            out += [model.index(r, col, parent) for r in range(min(model.rowCount(parent), CELL_ROWS))]
    return out[:CELL_ROWS]


def _cells(t: QAbstractItemView) -> list[Offender]:
    model = t.model()
    if model is None or model.rowCount() == 0:
        return []
    out = []
    fm = QFontMetrics(t.font())
    pad = 2 * (t.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, t) + 1) + 2
    header = t.horizontalHeader() if isinstance(t, QTableView) else t.header()
    for col in range(model.columnCount()):
        if t.isColumnHidden(col) or t.columnWidth(col) <= 0:
            continue
        width = t.columnWidth(col)
        short_need, long_seen = 0, False
        for index in _cell_indexes(t, col):
            text = model.data(index, Qt.ItemDataRole.DisplayRole)
            if text is None or text == "":
                continue
            text = str(text)
            if len(text) <= SHORT_CELL and "\n" not in text:
                short_need = max(short_need, fm.horizontalAdvance(text) + pad)
            else:
                long_seen = True
        stretched = header.sectionResizeMode(col) == QHeaderView.ResizeMode.Stretch or (
            col == model.columnCount() - 1 and header.stretchLastSection())
        if stretched and width >= MIN_TEXT_COLUMN:
            continue   # the text column that takes the free width: it elides, at a readable width
        if short_need > width + SLACK:
            out.append(Offender("cell", f"{widget_path(t)} column {col}",
                                f"short cell text needs {short_need} px, column is {width}"))
        elif long_seen and width < MIN_TEXT_COLUMN:
            out.append(Offender("cell", f"{widget_path(t)} column {col}",
                                f"text column is {width} px, under {MIN_TEXT_COLUMN}"))
    return out


def _list_items(v: QListView) -> list[Offender]:
    """The first CELL_ROWS items of a list in list mode that does not wrap, whose text is wider than the viewport."""
    model = v.model()
    if model is None or v.viewMode() != QListView.ViewMode.ListMode or v.wordWrap():
        return []
    fm = QFontMetrics(v.font())
    pad = 2 * (v.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, v) + 1)
    width = v.viewport().width()
    out = []
    for row in range(min(model.rowCount(), CELL_ROWS)):
        text = model.data(model.index(row, v.modelColumn()), Qt.ItemDataRole.DisplayRole)
        need = max((fm.horizontalAdvance(line) for line in str(text or "").splitlines()), default=0) + pad
        if need > width + SLACK:
            out.append(Offender("list", f"{widget_path(v)} row {row}", f"text needs {need} px, list is {width}"))
    return out


def _plots(view: QWidget) -> list[Offender]:
    try:
        import pyqtgraph as pg
    except ImportError:     # pragma: no cover - pyqtgraph is a dependency
        return []
    if not isinstance(view, pg.GraphicsView) or view.scene() is None:
        return []
    out = []
    bounds = view.viewport().rect().adjusted(-SLACK - 1, -SLACK - 1, SLACK + 1, SLACK + 1)
    for item in view.scene().items():
        if not isinstance(item, (pg.PlotItem, pg.LegendItem)) or not item.isVisible():
            continue
        if isinstance(item, pg.LegendItem) and not item.items:
            continue
        rect = item.sceneBoundingRect()
        tl = view.mapFromScene(QPointF(rect.left(), rect.top()))
        br = view.mapFromScene(QPointF(rect.right(), rect.bottom()))
        r = QRect(tl, br)
        if r.width() <= 0 or r.height() <= 0:
            continue
        if not bounds.contains(r):
            out.append(Offender("plot", f"{widget_path(view)} > {type(item).__name__}",
                                f"item at {_rect(r)} leaves the view {_rect(view.viewport().rect())}"))
        if isinstance(item, pg.PlotItem) and not isinstance(item, pg.ColorBarItem):
            data = item.getViewBox().size()
            strip = view.maximumHeight() < QWIDGETSIZE_MAX
            if min(data.width(), math.inf if strip else data.height()) + SLACK < MIN_PLOT_VIEW:
                out.append(Offender("plot", f"{widget_path(view)} > {type(item).__name__}",
                                    f"data area {data.width():.0f}x{data.height():.0f} px, under {MIN_PLOT_VIEW}"))
    return out


def layout_offenders(window: QWidget) -> list[Offender]:
    """Every cut widget (module docstring) among the visible descendants of ``window``; [] = none."""
    out: list[Offender] = []
    for w in [window, *window.findChildren(QWidget)]:
        if not QWidget.isVisible(w) or w.width() <= 0 or w.height() <= 0:
            continue
        if QWidget.window(w) is not window:
            continue
        out += _outside(w)
        if isinstance(w, QLabel):
            out += _label(w)
        elif isinstance(w, QAbstractButton) and not isinstance(w, QHeaderView):
            out += _button(w)
        elif isinstance(w, QComboBox):
            out += _combo(w)
        if isinstance(w, QHeaderView):
            out += _header(w)
        if isinstance(w, (QTableView, QTreeView)):   # a tree too: the Runs list's Best dev
            out += _cells(w)
        if isinstance(w, QListView):
            out += _list_items(w)
        if isinstance(w, QTabBar) and (hidden := hidden_tabs(w)):
            out.append(Offender("tabs", widget_path(w), f"{', '.join(hidden)} behind the scroll arrows "
                                                        f"({w.width()} px wide)"))
        out += _plots(w)
    return out


def out_of_view(w: QWidget, *, top: int | None = None) -> str:
    """Why ``w`` is not in view as the window stands, or "" when it is: hidden, or a part of it lies outside an
    ancestor's rect (a scroll area's viewport scrolled or too short, a splitter pane too small). ``top``: only the
    first ``top`` px of its height must be in view (the top of a tall table or plot).

    The rule behind "X, Y and Z in view together without scrolling" at a screen size: each one's rect, mapped
    to the window, lies inside every ancestor's rect mapped the same way."""
    if not QWidget.isVisible(w):
        return f"{widget_path(w)} is hidden"
    window = QWidget.window(w)
    height = w.height() if top is None else min(top, w.height())
    want = QRect(w.mapTo(window, QPoint(0, 0)), QSize(w.width(), height))
    parent = QWidget.parentWidget(w)
    while parent is not None and not QWidget.isWindow(parent):
        room = QRect(parent.mapTo(window, QPoint(0, 0)), parent.size())
        if not room.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(want):
            return (f"{widget_path(w)} at {_rect(want)} (window coordinates) is cut by "
                    f"{_name(parent)} at {_rect(room)}")
        parent = QWidget.parentWidget(parent)
    return ""


def hidden_tabs(bar: QTabBar) -> list[str]:
    """The titles of ``bar``'s tabs a person cannot see without its scroll arrows: a tab whose rect leaves the
    bar's rect, and every tab while the arrows are shown (they take the end of the bar). [] when all show."""
    arrows = any(QWidget.isVisible(b) for b in bar.findChildren(QToolButton) if QWidget.parentWidget(b) is bar)
    r = bar.rect().adjusted(-SLACK, -SLACK, SLACK, SLACK)
    return [bar.tabText(i) for i in range(bar.count())
            if bar.isTabVisible(i) and (arrows or not r.contains(bar.tabRect(i)))]


def size_offenders(window: QWidget, width: int, height: int) -> list[Offender]:
    """An offender when ``window`` could not take ``width`` x ``height`` (its minimum size is larger, so
    a screen of that size cuts it), naming the largest pages' minimum sizes."""
    if window.width() <= width and window.height() <= height:
        return []
    return [Offender("window", widget_path(window),
                     f"asked for {width}x{height}, its minimum size is {window.width()}x{window.height()}")]
