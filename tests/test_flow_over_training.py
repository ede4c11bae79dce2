"""Attention flow over training (explorer.core.attention.flow_history, the Curves area's FlowOverTraining): drawn from the
events.jsonl of a real short QA run, one line per layer, per block pair."""

from __future__ import annotations

import contextlib
import io
import os

import numpy as np
import pytest

from explorer.core.protocol.events import read_events
from explorer.core.attention.flow_history import flow_history

SHOTS = os.environ.get("EXPLORER_SHOTS")   # a folder: the test also saves its screenshot there


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    """A real 6-step QA run of the tiny model, evaluated every 2 steps (watch: the first 2 dev questions)."""
    from helpers import save_tiny_model, write_tiny_squad

    from explorer.worker.train import EXIT_OK, main as train_main

    d = tmp_path_factory.mktemp("flow-run")
    model, data = save_tiny_model(d / "qa", "qa"), write_tiny_squad(d / "sq.json", v2=True)
    with contextlib.redirect_stdout(io.StringIO()):
        rc = train_main(["--model", str(model), "--task", "squad_v2", "--train", str(data), "--dev", str(data),
                         "--max-steps", "6", "--batch-size", "8", "--learning-rate", "5e-3", "--eval-every", "2",
                         "--dev-cap", "4", "--output-dir", str(d / "runs"), "--run-id", "flow"])
    assert rc == EXIT_OK
    return d / "runs" / "flow"


def test_history_from_the_run_events(short_run):
    events = read_events(short_run / "events.jsonl")
    evals = [e for e in events if e["event"] == "eval"]
    h = flow_history(events)
    assert list(h.steps) == [e["step"] for e in evals] == [0, 2, 4, 6]
    assert h.layers == 2 and len(h.pairs) == 9 and "question->passage" in h.pairs
    assert h.questions == [w["question"] for w in evals[0]["watch"]]
    lines = h.lines("question->passage", 1)
    assert [layer for layer, _, _ in lines] == [1, 2]
    for layer, x, y in lines:
        assert list(x) == [0, 2, 4, 6]
        assert list(y) == [e["watch"][1]["flow"]["question->passage"][layer - 1] for e in evals]
    mean = h.lines("passage->special")
    want = [np.mean([w["flow"]["passage->special"][0] for w in e["watch"]]) for e in evals]
    np.testing.assert_allclose(mean[0][2], want)
    assert not flow_history([{"event": "eval", "step": 1, "metrics": {}}])   # a run without watch rows


def test_drawn_in_the_curves_area(qtbot, short_run):
    from helpers import shown_curves_panel

    from PySide6.QtWidgets import QApplication

    from explorer.ui.runs.state import RunState

    state = RunState(run_id="flow", status="running")
    for ev in read_events(short_run / "events.jsonl"):
        state.apply(ev)
    panel = shown_curves_panel(qtbot, 1280, 800)
    assert not panel.flow_view.isVisible()
    panel.set_runs([state])
    panel.redraw_now()
    view = panel.flow_view
    assert view.isVisible() and view.run_box.currentText() == "flow"
    assert view.pair_box.currentData() == "question->passage"
    items = [c for c in view.plot.plotItem.listDataItems()]
    assert len(items) == 2                                   # one line per layer
    h = flow_history(state.evals)
    for item, (layer, x, y) in zip(items, h.lines("question->passage")):
        xs, ys = item.getData()
        np.testing.assert_allclose(xs, x)
        np.testing.assert_allclose(ys, y)
    view.pair_box.setCurrentIndex(h.pairs.index("passage->question"))
    view.question_box.setCurrentIndex(2)                     # the second watched question alone
    xs, ys = view.plot.plotItem.listDataItems()[1].getData()
    np.testing.assert_allclose(ys, h.lines("passage->question", 1)[1][2])
    if SHOTS:
        view.pair_box.setCurrentIndex(h.pairs.index("question->passage"))
        view.question_box.setCurrentIndex(0)
        QApplication.processEvents()   # the splitter lays the new view out
        assert view.height() >= 220
        panel.grab().save(os.path.join(SHOTS, "flow_over_training.png"))
    # a new evaluation of the same layers: the same line items get the new points (no plot or legend rebuild)
    view.pair_box.setCurrentIndex(h.pairs.index("question->passage"))
    view.question_box.setCurrentIndex(0)
    before = view.plot.plotItem.listDataItems()
    legend_rows = len(view.plot.plotItem.legend.items)
    last = dict(state.evals[-1])
    last["step"] = last["step"] + 2
    state.apply(last)
    view.refresh("flow")
    after = view.plot.plotItem.listDataItems()
    assert [id(i) for i in after] == [id(i) for i in before] and len(view.plot.plotItem.legend.items) == legend_rows
    h2 = flow_history(state.evals)
    for item, (_layer, x, y) in zip(after, h2.lines("question->passage")):
        xs, ys = item.getData()
        assert len(xs) == len(h.steps) + 1
        np.testing.assert_allclose(xs, x)
        np.testing.assert_allclose(ys, y)
    panel.set_runs([RunState(run_id="other", status="running")])   # a run without watch: the view goes
    assert not view.isVisible()
