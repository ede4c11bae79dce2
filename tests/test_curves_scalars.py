"""Curves draws any scalar a worker reports (accelerate's GeneralTracker.log(values, step) idea): a new
numeric step field or dev metric gets a plot with no change to the GUI, labelled by the metric table when
it knows the name; nested values (per_class) and counts are not scalars; a known metric that is not drawn
by default (matthews_corrcoef, dev loss) waits in the "Dev metrics" menu."""

from __future__ import annotations

import pytest

from explorer.ui.runs.state import RunState


def _events():
    ev = [{"event": "started", "run_id": "s", "time": 1.0, "steps_total": 4,
           "config": {"model": "m", "task": "single"}}]
    for i in range(1, 5):
        ev.append({"event": "step", "run_id": "s", "time": 1.0 + i, "step": i, "epoch": i / 4, "loss": 1.0 / i,
                   "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0, "elapsed": float(i),
                   "loss_scale": 2.0 ** i, "note": "text is no scalar", "flag": True})
    ev.append({"event": "step", "run_id": "s", "time": 6.0, "step": 5, "loss": 0.2, "loss_scale": None})
    ev.append({"event": "eval", "run_id": "s", "time": 7.0, "step": 4, "metrics": {
        "accuracy": 0.75, "matthews_corrcoef": 0.5, "loss": 0.6, "macro_f1": 0.7, "weighted_f1": 0.72, "bleu_like": 0.25,
        "total": 8,
        "per_class": {"neg": {"precision": 1.0, "recall": 0.5, "f1": 0.67, "support": 4}}}})
    return ev


def test_run_state_keeps_every_scalar_and_skips_nested_values():
    s = RunState.from_events("s", _events())
    assert s.series["loss_scale"].x.tolist() == [1, 2, 3, 4, 5]
    assert s.series["loss_scale"].y[3] == 16.0 and str(s.series["loss_scale"].y[4]) == "nan"   # null: a gap
    for key in ("note", "flag", "epoch", "elapsed", "time", "dev/per_class", "dev/total"):
        assert key not in s.series, key
    assert s.series["dev/bleu_like"].y[-1] == pytest.approx(0.25)      # no row: stored as reported


def test_a_new_scalar_shows_up_as_a_curve(qtbot):
    from helpers import shown_curves_panel

    curves = shown_curves_panel(qtbot, 1000, 700)
    curves.set_runs([RunState.from_events("s", _events())])
    curves.redraw_now()
    keys = curves.visible_keys()
    # loss, then the run's main dev metric (TaskFacts), the other dev metrics, the optimiser's plots, other scalars
    assert keys[:2] == ["loss", "dev/" + curves.runs[0].primary_metric()]
    assert keys.index("samples_per_second") < keys.index("loss_scale")
    assert "loss_scale" in keys and curves.point_count("s", "loss_scale") == 5
    assert curves.panels["loss_scale"].title == "loss_scale"
    assert "dev/bleu_like" in keys and curves.panels["dev/bleu_like"].title == "dev bleu_like"
    assert curves.panels["dev/accuracy"].title == "dev accuracy (%)"
    for hidden in ("dev/matthews_corrcoef", "dev/loss", "dev/weighted_f1", "dev/total", "dev/per_class"):
        assert hidden not in keys, hidden
    assert "dev/macro_f1" in keys and curves.panels["dev/macro_f1"].title == "dev macro F1 (%)"   # drawn: own data
    # the table orders the dev plots: accuracy before the unknown name
    assert keys.index("dev/accuracy") < keys.index("dev/bleu_like")
    curves._fill_metrics_menu()
    titles = [a.text() for a in curves.toolbar.metrics_menu.actions()]
    assert "matthews_corrcoef" in titles and "weighted_f1" in titles and "step: loss_scale" in titles
    assert "f1" not in titles and "pearson" not in titles   # only what the shown run reports (no SQuAD, no regression)
    curves.show_dev_metric("weighted_f1")
    curves.show_series("loss_scale", False)
    curves.redraw_now()
    keys = curves.visible_keys()
    assert "dev/weighted_f1" in keys and curves.panels["dev/weighted_f1"].title == "dev weighted F1 (%)"
    assert "loss_scale" not in keys
