"""Curves with a run selected at 1280x800 and 1920x1080: the training loss and the run's main dev
metric (the one that picks its best checkpoint, f_avg when the run picks by it) share the first row and are both
on screen without scrolling;
the plot rows share the page height; the attention flow under them starts folded on a low page and small on a
high one, its splitter moves both ways, and where the user left it is remembered."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from explorer.ui.runs.state import RunState

SIZES = ((1280, 800), (1920, 1080))


def _events(task: str, metrics, steps: int = 40, evals=(0, 10, 20, 30, 40), watch: bool = True) -> list[dict]:
    """A finished run of ``task``: a step event per step, an eval event (``metrics(i)``, with a watch flow for
    QA) at ``evals``."""
    ev = [{"event": "started", "run_id": "r", "time": 1000.0, "steps_total": steps,
           "config": {"model": "m", "task": task}}]
    for i in range(steps + 1):
        if i:
            ev.append({"event": "step", "run_id": "r", "time": 1000.0 + i, "step": i, "epoch": i / steps,
                       "loss": 5 - 0.05 * i, "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0,
                       "elapsed": float(i)})
        if i in evals:
            e = {"event": "eval", "run_id": "r", "time": 1000.0 + i, "step": i, "metrics": metrics(i)}
            if watch:
                e["watch"] = [{"question": "Where was Ada born?",
                               "flow": {"question->passage": [0.1 + i / 1000, 0.2], "passage->question": [0.3, 0.4]}}]
            ev.append(e)
    ev.append({"event": "finished", "run_id": "r", "time": 1100.0, "metrics": {}, "seconds": 10.0})
    return ev


def _qa_run(task: str = "squad_v1") -> RunState:
    return RunState.from_events("r", _events(task, lambda i: {"f1": 10.0 + i, "exact_match": 5.0 + i}))


def _inside_viewport(curves, key: str) -> bool:
    """Whether the plot of ``key`` is shown and lies wholly inside the plots' visible area."""
    panel, viewport = curves.panels[key], curves.scroll.viewport()
    rect = QRect(panel.mapTo(viewport, QPoint(0, 0)), panel.size())
    return panel.isVisible() and viewport.rect().contains(rect)


def _drag(handle, dy: int) -> None:
    """Drag the splitter handle ``dy`` px down (negative: up) with the left button, as a hand does."""
    start = QPointF(handle.width() / 2, handle.height() / 2)
    end = start + QPointF(0, dy)
    for kind, pos, buttons in ((QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseMove, end, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(handle, QMouseEvent(kind, pos, handle.mapToGlobal(pos), Qt.MouseButton.LeftButton,
                                                   buttons, Qt.KeyboardModifier.NoModifier))


def _settle(app) -> None:
    for _ in range(3):
        app.processEvents()


def _curves_window(qtbot, tmp_path, settings):
    """A shown MainWindow (no runs started) on its Curves page, closed with the test."""
    from explorer.ui.shell.main_window import MainWindow

    w = MainWindow(tmp_path / "runs", settings, probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)
    w.tabs.setCurrentWidget(w.curves)
    return w


def test_loss_and_dev_f1_on_screen_and_the_splitter_moves_at_both_sizes(qtbot, tmp_path):
    """In the main window at 1280x800 and 1920x1080 with a QA run selected: loss and dev F1 fully in view,
    rows that fill the height, a flow panel of at most ~30 % of it, and a splitter that moves and is kept."""
    from explorer.ui.shell.settings import AppSettings

    app = QApplication.instance()
    settings = AppSettings(tmp_path / "s.ini")
    w = _curves_window(qtbot, tmp_path, settings)
    curves, split = w.curves, w.curves.curves_split
    run = _qa_run()
    assert curves.main_metrics() == set() and run.primary_metric() == "f1"   # the task's (TaskFacts) choice
    from explorer.ui.curves.panel import MIN_PANEL_HEIGHT

    flow = curves.flow_view
    for size in SIZES:   # the defaults, as a new user sees them
        w.resize(*size)
        _settle(app)
        curves.set_runs([run])
        curves.redraw_now()
        _settle(app)
        # the plots are revealed one per event-loop turn after the page is shown
        qtbot.waitUntil(lambda: all(curves.panels[k].isVisible() for k in curves.layout_keys))
        where = f"{size[0]}x{size[1]}"
        assert curves.layout_keys[:2] == ["loss", "dev/f1"], where
        assert _inside_viewport(curves, "loss") and _inside_viewport(curves, "dev/f1"), where
        assert flow.isVisible(), where
        flow_height, total = split.sizes()[1], sum(split.sizes())
        # the default share of the height, or the flow view's own minimum where the page is narrower (the Runs
        # dock follows the window's width unless its width was set otherwise)
        assert flow_height <= max(0.31 * total + 1, flow.minimumHeight()), (where, split.sizes())
        assert flow.is_collapsed() == (curves.height() < 900), (where, curves.height())
        if flow.is_collapsed():   # the header line alone, with a button that opens it
            assert flow_height == flow.header_height() and flow.toggle.text() == "Show"
        # the rows share the height: all 3 rows (6 plots) on screen when their minimum fits, else the minimum
        viewport = curves.scroll.viewport().height()
        if 3 * MIN_PANEL_HEIGHT + 20 <= viewport:
            assert all(_inside_viewport(curves, k) for k in curves.layout_keys), where
            assert curves.row_height() * 3 + 20 >= viewport - 3, where   # no free band below the plots
        else:
            assert curves.row_height() == MIN_PANEL_HEIGHT, where
    # the user's turn (at 1280x800): open the flow, drag the splitter up and down, drag it shut
    w.resize(*SIZES[0])
    _settle(app)
    flow.toggle.click()
    _settle(app)
    assert not flow.is_collapsed() and flow.plot.isVisible() and flow.toggle.text() == "Hide"
    before = split.sizes()
    _drag(split.handle(1), -80)           # up: the flow grows, the plots get less
    _settle(app)
    moved = split.sizes()
    assert moved[1] > before[1] and moved[0] < before[0], (before, moved)
    _drag(split.handle(1), 40)            # down: the flow gets smaller again
    _settle(app)
    assert moved[1] > split.sizes()[1] > before[1] - 1, (moved, split.sizes())
    _drag(split.handle(1), 2000)          # dragged shut: it folds to its header line
    _settle(app)
    assert flow.is_collapsed() and split.sizes()[1] == flow.header_height(), split.sizes()
    assert '"collapsed": true' in settings.layout_value("curves/flow")
    flow.toggle.click()                   # and opens again where it was
    _settle(app)
    assert not flow.is_collapsed() and split.sizes()[1] >= flow.minimumHeight()
    _drag(split.handle(1), -30)
    _settle(app)
    kept = split.sizes()
    share = kept[1] / sum(kept)
    assert '"collapsed": false' in settings.layout_value("curves/flow")
    # a new window with the same settings puts the splitter where it was left
    w2 = _curves_window(qtbot, tmp_path, settings)
    w2.resize(*SIZES[-1])
    _settle(app)
    w2.curves.set_runs([run])
    w2.curves.redraw_now()
    _settle(app)
    sizes2 = w2.curves.curves_split.sizes()
    assert abs(sizes2[1] / sum(sizes2) - share) < 0.02, (kept, sizes2)
    w2.curves.flow_view.toggle.click()   # folded: kept too
    assert '"collapsed": true' in settings.layout_value("curves/flow")
    assert w2.curves.curves_split.sizes()[1] == w2.curves.flow_view.header_height()


def test_the_main_dev_metric_comes_right_after_the_loss(qtbot):
    """The order is the metric table's and TaskFacts': loss, the metric that ranks the run, the other dev metrics,
    then learning rate, gradient norm, samples/s (a classifier: accuracy; SQuAD v2: best F1)."""
    from helpers import shown_curves_panel

    from explorer.ui.curves.panel import series_sort_key

    curves = shown_curves_panel(qtbot, 900, 700)
    single = RunState.from_events("r", _events("single", lambda i: {"accuracy": 0.5 + i / 100,
                                                                     "macro_f1": 0.4 + i / 100}, watch=False))
    curves.set_runs([single])
    curves.redraw_now()
    assert curves.layout_keys == ["loss", "dev/accuracy", "dev/macro_f1", "lr", "grad_norm", "samples_per_second"]
    v2 = RunState.from_events("r", _events("squad_v2", lambda i: {"f1": 10.0 + i, "exact_match": 5.0 + i,
                                                                   "best_f1": 12.0 + i}))
    curves.set_runs([v2])
    curves.redraw_now()
    assert v2.primary_metric() == "best_f1"
    assert curves.layout_keys[:3] == ["loss", "dev/best_f1", "dev/f1"]
    assert curves.layout_keys[-3:] == ["lr", "grad_norm", "samples_per_second"]
    # other step scalars after the optimiser's plots; without a ranking metric, the table's order
    assert series_sort_key("loss_scale") > series_sort_key("samples_per_second") > series_sort_key("dev/f1")
    assert series_sort_key("dev/f1") < series_sort_key("dev/accuracy")
    assert series_sort_key("dev/accuracy", {"accuracy"}) < series_sort_key("dev/f1", {"accuracy"})


def test_a_run_picked_by_f_avg_heads_its_curves_with_f_avg(qtbot):
    """The run's config says f_avg: its ranking metric (Best dev, the Curves' first dev plot, ticked in Dev
    metrics) is f_avg, not accuracy."""
    from explorer.ui.runs.state import RunState

    state = RunState(run_id="stance", config={"task": "single", "metric_for_best": "f_avg",
                                              "f1_classes": ["FAVOR", "AGAINST"]})
    state.apply({"event": "eval", "step": 10, "metrics": {"accuracy": 0.6, "macro_f1": 0.5, "f_avg": 0.4}})
    state.apply({"event": "eval", "step": 20, "metrics": {"accuracy": 0.7, "macro_f1": 0.55, "f_avg": 0.3}})
    assert state.primary_metric() == "f_avg"
    assert state.best_metric()[:2] == ("f_avg", 40.0)
