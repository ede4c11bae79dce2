"""Eleventh trial: after a restart the Predictions page the user had open was gone, also from "Tabs ▾"; the
predictions files shown are kept in the settings and opened again at start (a file gone since is skipped with a
status note), and the × on a Predictions tab closes it for good."""

from __future__ import annotations

from PySide6.QtWidgets import QTabBar

COLS = ["question", "context", "answer", "score_diff", "decision", "error"]


def _predictions(path):
    from explorer.core.predict.writing import write_table

    rows = [{"question": f"where was person {i} born?", "context": "ada was born in london.",
             "answer": "london" if d > 0 else "", "score_diff": d, "decision": "answer" if d > 0 else "abstain",
             "error": ""} for i, d in enumerate([3.0, -0.2, 1.1])]
    out = write_table(path, COLS, rows)
    return {"out": str(out), "kind": "qa", "tau": 1.0, "input_columns": COLS[:2], "text_columns": COLS[:2]}


def _window(qtbot, tmp_path, ini):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(ini), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    return w


def _titles(w) -> list[str]:
    return [w.tabs.tabText(i) for i in range(w.tabs.count())]


def test_predictions_pages_come_back_after_a_restart_and_a_closed_one_does_not(qtbot, tmp_path):
    kept, gone = _predictions(tmp_path / "kept.predictions.csv"), _predictions(tmp_path / "gone.predictions.csv")
    ini = tmp_path / "s.ini"
    w = _window(qtbot, tmp_path, ini)
    w.open_predictions(kept)
    w.open_predictions(gone)
    w.close()
    w.settings.sync()
    (tmp_path / "gone.predictions.csv").unlink()

    again = _window(qtbot, tmp_path, ini)
    again.show()
    first = again.tabs.currentIndex()
    qtbot.waitUntil(lambda: "Predictions: kept.predictions.csv" in _titles(again), timeout=10_000)
    assert "Predictions: gone.predictions.csv" not in _titles(again)
    assert again.tabs.currentIndex() == first                      # restored behind, not brought to the front
    listed = [a.text() for a in again.tab_list.fill()]
    assert "Predictions: kept.predictions.csv" in listed          # and in Tabs ▾
    page = again.tabs.widget(_titles(again).index("Predictions: kept.predictions.csv"))
    assert page.review.kind == "qa" and page.review.tau == 1.0 and len(page.table_data) == 3
    note = "1 predictions file shown before no longer exists and was skipped: " + str(tmp_path / "gone.predictions.csv")
    assert note in again.settings_note
    assert again.settings.predictions_pages() == [str(tmp_path / "kept.predictions.csv")]

    close = again.tabs.tabBar().tabButton(again.tabs.indexOf(page), QTabBar.ButtonPosition.RightSide)
    close.click()
    assert "Predictions: kept.predictions.csv" not in _titles(again)
    assert again.settings.predictions_pages() == []
    again.close()
    again.settings.sync()
    third = _window(qtbot, tmp_path, ini)
    third.show()
    qtbot.waitExposed(third)
    assert not any(t.startswith("Predictions") for t in _titles(third))
