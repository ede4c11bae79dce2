"""Issue 25, the eighth trial's small fixes: one test per finding that a test can hold (the Runs dock's
columns, the launcher's banner, HF Trainer folders and predict's interrupt are tested beside their kin in
test_ui_runs_groups / test_ui_runs_dock, test_ui_launcher, test_hf_trainer_runs and test_predict)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

# the page's room at 1280x800: the window less the title and frame (1264x760), the menu bar, the tabs and the
# status bar; beside the Runs dock
PAGE_AT_1280 = (884, 660)


def test_the_tau_page_keeps_four_rows_of_each_table_at_1280x800(qtbot):
    """Eighth trial: the τ table and the questions near τ were each one row tall at 1280x800."""
    from PySide6.QtWidgets import QTableWidgetItem

    from explorer.ui.inspectors.dev_view import TABLE_MIN_ROWS, DevTauView

    view = DevTauView()
    qtbot.addWidget(view)
    assert view.minimumSizeHint().height() <= PAGE_AT_1280[1]   # the page never makes the window taller
    view.resize(*PAGE_AT_1280)
    view.show()
    qtbot.waitExposed(view)
    view.table.setRowCount(20)
    for r in range(20):
        view.table.setItem(r, 0, QTableWidgetItem(f"+{r}.0"))
    view.result_tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: view.table.isVisible())
    rows = view.table.viewport().height() // view.table.verticalHeader().defaultSectionSize()
    assert rows >= TABLE_MIN_ROWS
    view.result_tabs.setCurrentIndex(0)
    view.tau_table.setVisible(True)
    view.tau_table.setRowCount(4)
    view.tau_table.setFixedHeight(view.tau_table.horizontalHeader().sizeHint().height()
                                  + 4 * view.tau_table.verticalHeader().defaultSectionSize() + 2)
    qtbot.waitUntil(lambda: view.tau_table.isVisible())
    area = view.result_tabs.currentWidget()
    assert area.viewport().height() >= view.tau_table.height()   # the four τ rows in view, not scrolled
