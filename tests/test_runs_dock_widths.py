"""The Runs dock at 1280x800 and 1920x1080: every run's Best dev whole (its marks too) beside the "vs BoW" column, the run names
given the rest of the width (whole at 1920x1080, where the dock is wider; a long name elided at its end at
1280x800, whole in its tooltip)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from layout_shots import settle  # noqa: E402

NAMES = {"a": ("minilm · single · Tweets-plus-corrected-new_texts", "single", ("accuracy", 81.51)),
         "b": ("Twitter airline lr2e-5 seed 1", "single", ("accuracy", 55.46)),
         "c": ("minilm · regression · stsb 20:21", "stsb", ("pearson", 0.4061)),
         "d": ("stance-4", "squad_v2", ("best_f1", 37.32)),
         # a live run's only evaluation, on the dev sample: "≈50.80% acc ¹"
         "e": ("minilm · single · glue_sst2", "single", ("accuracy", 50.80)),
         # a run that predicted one class for every dev row: "32.29% F_avg !"
         "f": ("minilm · single · stance_semeval2016", "single", ("f_avg", 32.29))}


def _bow(run_dir: Path) -> None:
    from explorer.core.runs.layout import bag_of_words_file

    doc = {"run_id": run_dir.name, "checkpoint": "last", "n_train": 80, "n_dev": 40, "lines": ["x"],
           "difference": {"metric": "accuracy", "baseline": 0.6, "model": 0.5, "difference": -0.092, "low": -0.16,
                          "high": -0.03, "level": 0.95, "mcnemar_p": 0.007},
           "name": "bag-of-words (TF-IDF + linear)", "metrics": {"accuracy": 0.6}, "detail": ""}
    bag_of_words_file(run_dir).write_text(json.dumps(doc), encoding="utf-8")


def _room(table, index) -> int:
    """Pixels a cell has beyond its text (negative: the text is cut)."""
    from PySide6.QtWidgets import QStyle

    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    return table.visualRect(index).width() - margin - table.fontMetrics().horizontalAdvance(index.data())


def test_best_dev_is_whole_and_names_take_the_rest_at_both_sizes(qtbot, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from explorer.ui.runs import run_cells

    # the marks after a figure, as a live run's only evaluation and a one-class run read them
    monkeypatch.setattr(run_cells, "only_evaluation", lambda s: s.run_id == "e")
    monkeypatch.setattr(run_cells.RunCells, "judged", lambda self, s: (
        s.best_metric(), SimpleNamespace(kind="one class") if s.run_id == "f" else None))

    from explorer.ui.runs.baseline_row import reveal_baseline_column
    from explorer.ui.runs.dock import COLUMNS
    from explorer.ui.runs.state import RunState
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    app = QApplication.instance()
    apply_style(app)
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitUntil(lambda: not w.runs.loading, timeout=10_000)
    for rid, (_name, task, best) in NAMES.items():
        run_dir = tmp_path / "runs" / rid
        run_dir.mkdir(parents=True)
        state = RunState(run_id=rid, path=run_dir, status="finished", config={"task": task})
        state.declared_best = (best[0], best[1], 10)
        if rid == "e":   # evaluated on a 401-row sample of 872 dev rows
            state.evals = [{"event": "eval", "step": 10, "dev_rows": 401, "dev_total": 872}]
        if task == "single":
            _bow(run_dir)
        w.runs.upsert(state)
    w.runs.set_names({rid: name for rid, (name, _t, _b) in NAMES.items()})
    reveal_baseline_column(w.runs)
    table = w.runs.table
    assert not table.isColumnHidden(COLUMNS.index("vs BoW"))
    docks, shown = {}, {}
    for size in ((1280, 800), (1920, 1080)):
        w.resize(*size)
        settle(app)
        qtbot.waitUntil(lambda: not w.runs._fit_timer.isActive())
        settle(app)
        docks[size] = w.runs_dock.width()
        cells = {}
        for row in range(table.model().rowCount()):
            run = table.model().index(row, COLUMNS.index("Run"))
            best = run.siblingAtColumn(COLUMNS.index("Best dev"))
            assert _room(table, best) >= 0, (size, best.data(), _room(table, best))   # never "0.406 pe…"
            shown[best.data()] = size
            assert run.data() in run.data(Qt.ItemDataRole.ToolTipRole)                   # the whole name
            cells[run.data()] = _room(table, run)
        from explorer.ui.shell.layout_check import layout_offenders

        assert [o for o in layout_offenders(table) if o.kind == "cell"] == [], size   # the project's layout check
        if size == (1920, 1080):
            assert all(room >= 0 for room in cells.values()), cells                      # every name whole
        else:

            assert cells["stance-4"] >= 0, cells
        assert table.textElideMode() == Qt.TextElideMode.ElideRight                       # "Twitter airl…"
    assert docks[(1920, 1080)] >= docks[(1280, 800)] + 120, docks                        # wider on a wide window
    assert {"≈50.80% acc ¹", "32.29% F_avg !"} <= set(shown), shown   # checked whole above
