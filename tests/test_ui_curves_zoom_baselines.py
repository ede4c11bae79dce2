"""Curves: wheel scrolls the page and Ctrl+wheel zooms, a "Reset view" per plot,
baselines drawn as labelled dashed lines (the label over no point, the majority-class baseline sent in the
worker's started event), percent labels, one "best" rule, and no leftovers when other (empty, new, failed) runs
are shown."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import write_file
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

from explorer.ui.runs.state import RunState


def _events(run_id="r", steps=20, evals=(0, 10, 20), f1=lambda i: 10.0 + i, config=None, finish=True):
    ev = [{"event": "started", "run_id": run_id, "time": 1000.0, "steps_total": steps,
           "config": config or {"model": "m", "task": "squad_v2"}}]
    for i in range(0, steps + 1):
        if i:
            ev.append({"event": "step", "run_id": run_id, "time": 1000.0 + i, "step": i, "epoch": i / steps,
                       "loss": 5 - 0.1 * i, "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0,
                       "elapsed": float(i)})
        if i in evals:
            ev.append({"event": "eval", "run_id": run_id, "time": 1000.0 + i, "step": i,
                       "metrics": {"f1": f1(i), "exact_match": 0.0, "HasAns_f1": 0.0, "best_f1": f1(i)}})
    if finish:
        ev.append({"event": "finished", "run_id": run_id, "time": 1100.0, "metrics": {}, "seconds": 10.0})
    return ev


@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    return shown_curves_panel(qtbot, 1000, 600)


def _wheel(widget, ctrl: bool, delta: int = -240) -> None:
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    glob = QPointF(widget.mapToGlobal(pos.toPoint()))
    mods = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    ev = QWheelEvent(pos, glob, QPoint(0, 0), QPoint(0, delta), Qt.MouseButton.NoButton, mods,
                     Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


def test_wheel_scrolls_page_and_ctrl_wheel_zooms(curves, qtbot):
    curves.set_runs([RunState.from_events("a", _events("a"))])
    curves.redraw_now()
    scroll = curves.findChild(QScrollArea)
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(0)
    panel = curves.panels["loss"]
    vb = panel.plot.getViewBox()
    before = [v for r in vb.viewRange() for v in r]
    _wheel(panel.widget.viewport(), ctrl=False)
    assert [v for r in vb.viewRange() for v in r] == pytest.approx(before)   # no zoom
    assert bar.value() > 0                                             # the page scrolled
    scrolled = bar.value()
    _wheel(panel.widget.viewport(), ctrl=True)
    after = vb.viewRange()
    assert after[0][1] - after[0][0] != pytest.approx(before[1] - before[0])   # zoomed
    assert bar.value() == scrolled
    assert panel.user_zoomed
    # both are said where a person looks: the toolbar and the panel help
    from explorer.glossary import panel_help

    assert "Ctrl+wheel: zoom" in curves.toolbar.mouse_hint.text()
    assert "Ctrl+wheel zooms" in panel_help("Curves") and "Reset view" in panel_help("Curves")
    # "Reset view" brings the fitted range back
    panel.reset_button.click()
    curves.redraw_now()
    assert not panel.user_zoomed
    assert vb.viewRange()[0] == pytest.approx(before[:2], abs=0.5)


def test_percent_titles_and_best_rule(curves):
    s = RunState.from_events("flat", _events("flat", f1=lambda i: 34.29))
    curves.set_runs([s])
    curves.redraw_now()
    assert curves.panels["dev/f1"].title == "dev F1 (%)"
    assert curves.panels["dev/exact_match"].title == "dev EM (%)"
    # flat from step 0: checkpoints/best holds the first saved evaluation (step 10), not step 0
    assert s.best_metric() == ("best_f1", 34.29, 10)
    assert "@10" in curves.legend.text()


def test_classification_fractions_shown_as_percent():
    ev = [{"event": "started", "run_id": "c", "config": {"task": "single"}, "steps_total": 2},
          {"event": "eval", "run_id": "c", "step": 2, "metrics": {"accuracy": 0.875, "matthews_corrcoef": 0.5}}]
    s = RunState.from_events("c", ev)
    assert s.series["dev/accuracy"].y[-1] == pytest.approx(87.5)
    assert s.series["dev/matthews_corrcoef"].y[-1] == pytest.approx(0.5)
    assert s.best_text() == "accuracy (%) 87.50 @2"


def test_baseline_line_on_dev_plots(curves, tmp_path, qtbot):
    from helpers import tiny_squad_dict

    dev = tmp_path / "dev.json"
    data = tiny_squad_dict(v2=True)
    dev.write_text(json.dumps(data), encoding="utf-8")
    qs = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    share = 100 * sum(1 for q in qs if not q["answers"]) / len(qs)
    s = RunState.from_events("a", _events("a", config={"task": "squad_v2", "dev": str(dev), "model": "m"}))
    curves.set_runs([s])
    curves.redraw_now()
    lines = curves.panels["dev/f1"].baseline_lines
    assert len(lines) == 1 and lines[0].value() == pytest.approx(share)
    assert f"all no-answer baseline (all {len(qs)} dev rows)" in lines[0].label.toPlainText()
    assert curves.panels["dev/HasAns_f1"].baseline_lines == [] or \
        curves.panels["dev/HasAns_f1"].baseline_lines[0].value() == 0.0
    assert f"· all no-answer {share:.2f}" in s.best_text() and "baseline" not in s.best_text()   # not "vs BoW"'s
    curves.grab().save(str(tmp_path / "curves_baseline.png"))


def test_other_runs_leave_no_readouts_or_ranges(curves):
    a = RunState.from_events("a", _events("a", steps=400, evals=(100, 200)))
    curves.set_runs([a])
    curves.redraw_now()
    curves.set_crosshair(150)
    assert "@" in curves.panels["loss"].header.text()
    empty = RunState(run_id="new", status="failed")
    curves.set_runs([empty])
    curves.redraw_now()
    for key in ("loss", "lr"):
        panel = curves.panels[key]
        assert panel.header.text() == f"<b>{panel.title}</b>"          # no readout from run a
        (x0, x1), (y0, y1) = panel.plot.getViewBox().viewRange()
        assert x1 <= 10 and y0 >= -0.01 and y1 <= 10                  # not run a's 0..400 steps


def test_flat_series_axis_non_negative(curves):
    s = RunState.from_events("z", _events("z", f1=lambda i: 0.0))
    curves.set_runs([s])
    curves.redraw_now()
    y0, y1 = curves.panels["dev/f1"].plot.getViewBox().viewRange()[1]
    assert y0 >= 0 and y1 > 0
    from explorer.ui.curves.plot import y_range

    assert y_range([np.array([34.29, 34.29])], non_neg=True)[0] > 30
    assert y_range([np.array([0.0, 0.0])], non_neg=True) == (0.0, 1.0)
    assert y_range([np.array([-2.0, 1.0])], non_neg=False)[0] < -2.0
    assert y_range([], non_neg=True) is None


def test_ner_runs_name_their_f1_entity_f1(curves):
    """An NER run's dev F1 is seqeval's entity-level F1: the Curves title and the Runs list say so; a QA run
    beside it keeps the plain 'F1' (one shared metric row, the task's own name only when all runs are NER)."""
    ev = [{"event": "started", "run_id": "n", "config": {"task": "ner"}, "steps_total": 2},
          {"event": "eval", "run_id": "n", "step": 2, "metrics": {"f1": 0.4778, "precision": 0.46, "recall": 0.5}}]
    ner = RunState.from_events("n", ev)
    curves.set_runs([ner])
    curves.redraw_now()
    assert curves.panels["dev/f1"].title == "dev entity F1 (%)"
    assert ner.best_text() == "entity F1 (%) 47.78 @2"
    qa = RunState.from_events("flat", _events("flat", f1=lambda i: 34.29))
    curves.set_runs([ner, qa])
    curves.redraw_now()
    assert curves.panels["dev/f1"].title == "dev F1 (%)"


def test_the_majority_class_baseline_travels_in_the_started_event(tmp_path):
    """The worker computes the majority-class baseline where the data is and sends it in its started event, so a
    remote run, whose dev_split.csv stays on the host, has the line too: a mirror folder holding only config.json
    and events.jsonl draws the same line as the run folder."""
    import contextlib
    import io
    import shutil

    from helpers import save_tiny_model

    from explorer.core.metrics.baselines import dev_baseline
    from explorer.core.protocol.events import iter_events
    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.state import RunState
    from explorer.worker.train import main as train_main

    data = write_file(tmp_path / "stance.tsv", "Tweet\tStance\n" + "".join(
        f"tweet {i}\t{['AGAINST', 'AGAINST', 'FAVOR', 'NONE'][i % 4]}\n" for i in range(40)))
    model = save_tiny_model(tmp_path / "cls3", "classification", num_labels=3)
    argv = ["--task", "single", "--model", model, "--train", data, "--text-columns", "Tweet", "--label-column",
            "Stance", "--max-steps", 1, "--batch-size", 4, "--max-seq-length", 16, "--mixed-precision", "no",
            "--no-save-checkpoints", "--eval-every", 0, "--output-dir", tmp_path / "host-runs", "--run-id", "held"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert train_main([str(a) for a in argv]) == 0
    started = next(e for e in iter_events(buf.getvalue().splitlines()) if e["event"] == "started")
    run = tmp_path / "host-runs" / "held"
    assert (run / "dev_split.csv").is_file() and not started["config"]["dev"]
    expected = dev_baseline(started["config"], run)
    assert expected is not None and started["dev_baseline"] == expected.to_dict()
    assert started["dev_baseline"]["metrics"]["accuracy"] == 0.5       # AGAINST: half of every stratified split

    mirror = tmp_path / "mirror" / "held"                                # what a remote run's mirror folder holds
    mirror.mkdir(parents=True)
    for name in ("config.json", "events.jsonl"):
        shutil.copy(run / name, mirror / name)
    state = RunState.from_events("held", load_run(mirror).events)
    state.path = str(mirror)
    assert state.baseline() == expected and "· majority class 50.00" in RunState.from_events(
        "held", load_run(mirror).events + [{"event": "eval", "run_id": "held", "time": 2.0, "step": 1,
                                            "metrics": {"accuracy": 0.25}}]).best_text()


def _sst2_events(last_eval: int, finish: bool) -> list[dict]:
    """An SST-2 run of 80 steps, a majority-class baseline of 50.50% and dev accuracy at 52.5, 49.5,
    49.5 and 51.5% for the first four evaluations (on and near the baseline, at the bottom of the view)."""
    acc = {0: 0.525, 10: 0.495, 20: 0.495, 30: 0.515, 40: 0.725, 50: 0.74, 60: 0.735, 70: 0.74, 80: 0.74}
    ev = [{"event": "started", "run_id": "sst2", "time": 1000.0, "steps_total": 80,
           "config": {"model": "m", "task": "single"},
           "dev_baseline": {"name": "majority class", "metrics": {"accuracy": 0.505}}}]
    for i in range(0, 81):
        if i > last_eval:
            break
        if i:
            ev.append({"event": "step", "run_id": "sst2", "time": 1000.0 + i, "step": i, "epoch": i / 40,
                       "loss": 0.7 - 0.004 * i, "lr": 5e-5, "grad_norm": 1.0, "samples_per_second": 8.0,
                       "elapsed": float(i)})
        if i in acc:
            ev.append({"event": "eval", "run_id": "sst2", "time": 1000.0 + i, "step": i,
                       "metrics": {"accuracy": acc[i], "f1": acc[i]}})
    if finish:
        ev.append({"event": "finished", "run_id": "sst2", "time": 1100.0, "metrics": {}, "seconds": 100.0})
    return ev


def test_the_baseline_label_covers_no_point_and_not_the_axis(qtbot, tmp_path):
    """"majority class baseline 50.50" sits where it covers no point and stays above the axis, in the live view (x
    up to the planned steps) and in the finished one, never below the dashed line at the left end, over the x axis
    and the points of the first evaluations."""
    from PySide6.QtCore import QPointF, QRectF
    from PySide6.QtWidgets import QApplication

    from helpers import shown_curves_panel

    from explorer.ui.runs.state import RunState

    for width, height in ((900, 600), (1600, 900)):
        for last, finish in ((50, False), (80, True)):
            curves = shown_curves_panel(qtbot, width, height)
            state = RunState.from_events("sst2", _sst2_events(last, finish))
            curves.set_runs([state])
            curves.redraw_now()
            QApplication.processEvents()
            panel = curves.panels["dev/accuracy"]
            (line,) = panel.baseline_lines
            assert line.value() == 50.5 and "majority class baseline 50.50" in line.label.toPlainText()
            label = line.label.sceneBoundingRect()
            vb = panel.plot.getViewBox()
            data = panel.data["sst2"]
            for x, y in zip(data.x, data.shown):
                at = vb.mapViewToScene(QPointF(float(x), float(y)))
                assert not label.intersects(QRectF(at.x() - 3, at.y() - 3, 6, 6)), (width, last, x, y)
            assert not label.intersects(panel.plot.getAxis("bottom").sceneBoundingRect()), (width, last)
            assert vb.sceneBoundingRect().contains(label), (width, last)
            curves.grab().save(str(tmp_path / f"baseline_{width}_{last}.png"))


def test_the_majority_warning_and_the_baseline_line_each_say_their_rows():
    """A run evaluating a 200-row dev sample warns against the majority class of those rows while the plot's line is
    the majority class of all dev rows: each says the rows it is counted on."""
    from explorer.core.metrics.baselines import at_majority_what, majority_class_baseline

    per_class = {"a": {"support": 41, "predicted": 200}, "b": {"support": 159, "predicted": 0}}
    assert at_majority_what({"accuracy": 0.795, "per_class": per_class}) == (
        "scores 79.50% accuracy on the 200 rows evaluated, answering 'a' for 200 of them: no better than the 79.50% "
        "of always answering the majority class 'b'")
    base = majority_class_baseline(["b"] * 670 + ["a"] * 177)
    assert base.label == "majority class baseline (all 847 dev rows)"
    assert type(base).from_dict(base.to_dict()) == base
