"""The registry's pages built when first needed, not at start (built at start they were 76% of
``MainWindow()``).

At start the main window puts a cheap, empty :class:`PendingPage` in each registry tab. A provider's page
set (explorer.ui.inspectors.registry) is built, and its placeholders swapped for the real pages at the same
tab index, the first time any of these asks for it:

- the tab is shown (the window's ``_tab_changed``, before the tab is painted);
- code reads ``window.pages[title]``, ``window.page_sets[provider]`` (both :class:`PageMap`) or one of the
  attributes a provider keeps on the window (``window.hub``, ``window.groups_tab``, ...:
  :class:`PageSetAttribute`);
- the idle chain: after the window's first paint, one provider per event-loop turn
  (:meth:`LazyPages.start_idle_builds`), so the pages are ready before the user gets to them.

A provider that fails leaves placeholders that show the page's help and the reason (as before). What the
window must do for a built page (its shortcuts, the status bar's busy sign) runs in ``on_built(provider,
page_set)``; what must work before any page is built (the Runs dock's group rows) is wired at start by the
registry's ``wiring()`` hooks, which reach the pages through the same lazy attributes.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from typing import Callable, Iterator

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTabWidget, QWidget

from explorer.ui.inspectors.registry import InspectorPage, pages, providers
from explorer.ui.shell.tooltips import tooltip_wrapper_paused

_UNSET = object()


class PendingPage(QWidget):
    """The empty stand-in of a registry page in its tab until the page is built (never painted: the build
    replaces it before its tab is shown)."""

    def __init__(self, title: str):
        super().__init__()
        self.setObjectName("pendingPage")
        self.title = title


class LazyPages:
    """The registry's page sets of one main window, each built on first need (module docstring).

    ``window``: the main window (handed to each provider); ``tabs``: its tab widget, where ``add_tabs``
    puts the placeholders; ``placeholder(title, why)``: the widget a failed provider's pages show;
    ``on_built(provider, page_set)``: called once a provider's pages are in their tabs (not for a failed one).

    ``build_seconds`` holds the wall-clock seconds each provider's build took (for the start-up figures)."""

    def __init__(self, window, tabs: QTabWidget, placeholder: Callable[[str, str], QWidget],
                 on_built: Callable[[str, object], None]):
        self.window, self.tabs = window, tabs
        self._placeholder, self._on_built = placeholder, on_built
        self.page_sets: dict[str, object] = {}     # provider -> its page set (built ones only)
        self.widgets: dict[str, QWidget] = {}      # title -> the tab's widget (pending, real or failure page)
        self._done: set[str] = set()               # providers built or failed
        self._building: set[str] = set()
        self._idle_started = False
        self.idle_done: Callable[[], None] | None = None   # called when the idle chain has built the last one
        self.build_seconds: dict[str, float] = {}
        self.attributes: dict[str, object] = {}    # what providers keep on the window (PageSetAttribute)

    # ---- start ---------------------------------------------------------------------------------
    def add_tabs(self) -> None:
        """One pending tab per registry page, in registry order, after the tabs already there."""
        for spec in pages():
            self.widgets[spec.title] = PendingPage(spec.title)
            self.tabs.addTab(self.widgets[spec.title], spec.title)

    def start_idle_builds(self) -> None:
        """Build the providers not built yet, one per event-loop turn (a zero timer each), in registry order;
        input and paints are handled between two builds. Called once after the window's first paint."""
        if not self._idle_started:
            self._idle_started = True
            QTimer.singleShot(0, self.tabs, self._build_next)

    def _build_next(self) -> None:
        left = [p for p in providers() if p not in self._done]
        if left:
            self.build(left[0])
        if len(left) > 1:
            QTimer.singleShot(0, self.tabs, self._build_next)
        elif self.idle_done is not None:
            self.idle_done()

    # ---- questions that never build --------------------------------------------------------------
    def is_built(self, provider: str) -> bool:
        """Has ``provider`` been built (or failed)?"""
        return provider in self._done

    def all_built(self) -> bool:
        """Is every registry provider built (or failed)?"""
        return all(p in self._done for p in providers())

    def spec_of(self, widget: QWidget | None) -> InspectorPage | None:
        """The registry page whose tab holds ``widget`` (pending or built), or None."""
        return next((p for p in pages() if widget is not None and self.widgets.get(p.title) is widget), None)

    # ---- building ------------------------------------------------------------------------------
    def ensure_widget(self, widget: QWidget | None) -> QWidget | None:
        """``widget``, or the real page when ``widget`` is a pending placeholder (built now)."""
        if isinstance(widget, PendingPage):
            self.build(next(p.provider for p in pages() if p.title == widget.title))
            return self.widgets.get(widget.title)
        return widget

    def build(self, provider: str) -> object | None:
        """Build ``provider``'s page set now (once) and put its pages in their tabs; its page set, or None
        when the provider failed (its pages then show why), is not in the registry, or is being built (a
        provider that asks for itself while it builds)."""
        if provider in self._done or provider in self._building or provider not in providers():
            return self.page_sets.get(provider)
        self._building.add(provider)
        t0 = time.perf_counter()
        specs = [spec for spec in pages() if spec.provider == provider]
        try:
            module, _, function = provider.partition(":")
            with tooltip_wrapper_paused():
                page_set = getattr(importlib.import_module(module), function)(self.window)
            built = dict(page_set.pages)
            missing = [spec.title for spec in specs if spec.title not in built]
            if missing:
                raise LookupError(f"its page set has no page {', '.join(missing)}")
        except Exception as exc:  # noqa: BLE001 - any failure of one provider: its pages become placeholders
            page_set = None
            built = {spec.title: self._placeholder(spec.title, f"Not available: {exc}") for spec in specs}
        finally:
            self._building.discard(provider)
        self._done.add(provider)
        if page_set is not None:
            self.page_sets[provider] = page_set
        for spec in specs:
            self._swap(spec.title, built[spec.title])
        self.build_seconds[provider] = time.perf_counter() - t0
        if page_set is not None:
            self._on_built(provider, page_set)
        return page_set

    def build_all(self) -> None:
        """Build every provider not built yet (in registry order)."""
        for provider in providers():
            self.build(provider)

    def _swap(self, title: str, widget: QWidget) -> None:
        """Put ``widget`` in the tab of ``title`` in place of its pending page: same index, text and tooltip;
        the current tab stays current (the real page when the pending one was). The tab widget's signals are
        blocked meanwhile (the current page does not change for its listeners)."""
        old = self.widgets.get(title)
        self.widgets[title] = widget
        index = self.tabs.indexOf(old) if old is not None else -1
        if index < 0:
            return
        was_current = self.tabs.currentIndex() == index
        text, tip = self.tabs.tabText(index), self.tabs.tabToolTip(index)
        blocked = self.tabs.blockSignals(True)
        try:
            self.tabs.insertTab(index, widget, text)     # the pending page moves to index + 1
            self.tabs.setTabToolTip(index, tip)
            if was_current:
                self.tabs.setCurrentIndex(index)
            self.tabs.removeTab(index + 1)
        finally:
            self.tabs.blockSignals(blocked)
        old.deleteLater()


class PageMap(Mapping):
    """A read-only mapping over the registry that builds what it is asked for: ``kind="pages"``: title ->
    the tab's widget (the real page, or the failure placeholder); ``kind="page_sets"``: provider -> its
    page set (KeyError, so ``.get`` gives None, for a failed provider). Iterating lists the keys without
    building; :meth:`built` answers without building."""

    def __init__(self, lazy: LazyPages, kind: str):
        self._lazy, self._kind = lazy, kind

    def _keys(self) -> list[str]:
        return [p.title for p in pages()] if self._kind == "pages" else list(providers())

    def __getitem__(self, key: str):
        if self._kind == "pages":
            spec = next((p for p in pages() if p.title == key), None)
            if spec is None:
                raise KeyError(key)
            self._lazy.build(spec.provider)
            return self._lazy.widgets[key]
        if key not in providers():
            raise KeyError(key)
        page_set = self._lazy.build(key)
        if page_set is None:
            raise KeyError(f"{key} is not available (its pages say why)")
        return page_set

    def built(self, key: str):
        """The entry when it is built, else None (builds nothing)."""
        if self._kind == "pages":
            widget = self._lazy.widgets.get(key)
            return None if isinstance(widget, PendingPage) else widget
        return self._lazy.page_sets.get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())


class PageSetAttribute:
    """A main-window attribute that a registry provider sets when it builds (``window.hub``,
    ``window.groups_tab``, ...): reading it builds that provider first. ``default``: what it reads when the
    provider failed (``_UNSET``: AttributeError, as an attribute never set). The window must have a
    ``lazy_pages`` (:class:`LazyPages`)."""

    def __init__(self, provider: str, default=_UNSET):
        self.provider, self.default = provider, default

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, window, owner=None):
        if window is None:
            return self
        lazy: LazyPages = window.lazy_pages
        if self.name not in lazy.attributes:
            lazy.build(self.provider)
        value = lazy.attributes.get(self.name, self.default)
        if value is _UNSET:
            raise AttributeError(f"{self.name}: the page set {self.provider} is not available")
        return value

    def __set__(self, window, value) -> None:
        window.lazy_pages.attributes[self.name] = value
