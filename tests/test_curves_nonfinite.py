"""Curves show non-finite values as gaps with a marker on the step, never as a bridging line
(cases README "Also seen": loss [2.1, 1.9, nan, 1.7, inf, 1.5])."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from explorer.ui.curves.plotmath import IncrementalEMA, ema_smooth, finite_gaps, nonfinite_markers  # noqa: E402
from explorer.ui.runs.state import RunState  # noqa: E402

LOSS = [2.1, 1.9, math.nan, 1.7, math.inf, 1.5]


def _events(run_id="nf", values=LOSS, encode=lambda v: v):
    ev = [{"event": "started", "run_id": run_id, "time": 0.0, "config": {"model": "m", "task": "squad"},
           "device": "cpu", "num_parameters": 1, "steps_total": len(values)}]
    for i, v in enumerate(values, start=1):
        ev.append({"event": "step", "run_id": run_id, "time": float(i), "step": i, "epoch": 0.1 * i,
                   "loss": encode(v), "lr": 1e-4, "grad_norm": 1.0, "samples_per_second": 8.0, "elapsed": float(i)})
    return ev


# ---------------------------------------------------------------------------------- plotmath
def test_ema_skips_non_finite_points_and_leaves_gaps():
    y = np.array(LOSS)
    sm = ema_smooth(y, 0.6)
    assert np.isnan(sm[2]) and np.isnan(sm[4])
    np.testing.assert_allclose(sm[[0, 1, 3, 5]], ema_smooth(np.array([2.1, 1.9, 1.7, 1.5]), 0.6))
    inc = IncrementalEMA()
    inc.update(y[:3], 0.6)
    np.testing.assert_allclose(inc.update(y, 0.6), sm, equal_nan=True)


def test_finite_gaps_and_markers():
    g = finite_gaps(np.array(LOSS))
    assert np.isnan(g[[2, 4]]).all() and np.isfinite(g[[0, 1, 3, 5]]).all()
    xs, ys, labels = nonfinite_markers(np.arange(1, 7), np.array(LOSS), "loss")
    assert xs.tolist() == [3.0, 5.0] and ys.tolist() == [1.9, 1.7]
    assert labels == ["loss was nan at step 3", "loss was inf at step 5"]
    xs, ys, labels = nonfinite_markers(np.array([1.0, 2.0]), np.array([-math.inf, 4.0]), "grad_norm")
    assert ys.tolist() == [4.0] and labels == ["grad_norm was -inf at step 1"]
    assert nonfinite_markers(np.arange(3), np.ones(3), "loss")[2] == []


@pytest.mark.parametrize("encode", [lambda v: v, lambda v: None if not math.isfinite(v) else v,
                                    lambda v: str(v) if not math.isfinite(v) else v])
def test_run_state_keeps_non_finite_steps(encode):
    s = RunState.from_events("nf", _events(encode=encode))
    loss = s.series["loss"]
    assert loss.x.tolist() == [1, 2, 3, 4, 5, 6]
    assert np.isfinite(loss.y).tolist() == [True, True, False, True, False, True]


# ---------------------------------------------------------------------------------- widget
@pytest.fixture
def curves(qtbot):
    from helpers import shown_curves_panel

    return shown_curves_panel(qtbot, 900, 700)


def _segments(x, y):
    """The runs of consecutive finite points a connect="finite" curve draws (lists of x)."""
    segs, cur = [], []
    for a, b in zip(x, y):
        if np.isfinite(b):
            cur.append(float(a))
        elif cur:
            segs.append(cur)
            cur = []
    return segs + ([cur] if cur else [])


def test_curve_has_gaps_and_markers_not_a_bridging_line(curves, tmp_path):
    state = RunState.from_events("nf", _events())
    curves.smooth.setValue(60)
    curves.set_runs([state])
    curves.redraw_now()
    panel = curves.panels["loss"]
    for item in (panel.items["nf"], panel.raw_items["nf"]):
        assert item.opts["connect"] == "finite"
        x, y = np.asarray(item.xData), np.asarray(item.yData)
        assert x.tolist() == [1, 2, 3, 4, 5, 6]
        assert _segments(x, y) == [[1.0, 2.0], [4.0], [6.0]]    # nothing drawn across steps 3 and 5
        assert not np.isinf(y).any()                            # inf never stretches the y range
        dx, dy = item.curve.getData()                           # what the curve item was given to draw
        assert np.isnan(dy).sum() >= 2
    assert panel.nonfinite_labels("nf") == ["loss was nan at step 3", "loss was inf at step 5"]
    marker = panel.markers["nf"]
    mx, my = marker.getData()
    crosses = np.asarray(marker.data["symbol"]) == "x"
    assert mx[crosses].tolist() == [3.0, 5.0] and marker.isVisible()
    assert sorted(mx[~crosses].tolist()) == [4.0, 6.0]          # lone points between gaps get a dot
    assert "loss was nan at step 3" in marker.toolTip()
    assert "lr" in curves.panels and not curves.panels["lr"].nonfinite_labels("nf")
    curves.grab().save(str(tmp_path / "curves_nonfinite.png"))
    assert (tmp_path / "curves_nonfinite.png").stat().st_size > 0


def test_an_undefined_dev_metric_is_a_marked_gap_that_says_undefined(curves):
    """A regression run whose Pearson was undefined at steps 4 and 6 (constant predictions; null in its eval
    events): its dev curve has gaps there, marked "pearson undefined at step 4", never "nan" nor a bridging line; a null
    that no evaluation declares undefined (best_f1_thresh of a v1.1 evaluation) is no point at all."""
    events = _events(values=[2.0] * 6)
    events[0]["config"] = {"model": "m", "task": "regression"}
    for step, r in ((2, 0.4), (4, None), (6, None)):
        metrics = {"pearson": r, "mse": 1.0}
        if r is None:   # as the worker writes it: the value null and the reason under "undefined"
            metrics["undefined"] = {"pearson": "the predictions are constant"}
        events.append({"event": "eval", "run_id": "nf", "time": float(step), "step": step, "metrics": metrics})
    curves.set_runs([RunState.from_events("nf", events)])
    curves.redraw_now()
    assert curves.panels["dev/pearson"].nonfinite_labels("nf") == ["pearson undefined at step 4",
                                                                    "pearson undefined at step 6"]


def test_markers_follow_the_data(curves):
    state = RunState.from_events("nf", _events())
    curves.set_runs([state])
    curves.redraw_now()
    clean = RunState.from_events("nf", _events(values=[2.0, 1.0, 0.5]))
    curves.set_runs([clean])
    curves.redraw_now()
    assert curves.panels["loss"].nonfinite_labels("nf") == []
    curves.set_runs([])
    curves.redraw_now()
    assert "nf" not in curves.panels["loss"].markers


def test_downsampled_curve_keeps_the_gap(curves):
    """pyqtgraph's peak decimation (50k points -> about a thousand drawn) keeps a single NaN as a gap."""
    values = list(np.linspace(5, 1, 50_000))
    values[25_000] = math.nan
    curves.smooth.setValue(0)
    curves.set_runs([RunState.from_events("big", _events("big", values=values))])
    curves.redraw_now()
    item = curves.panels["loss"].items["big"]
    dx, dy = item.getData()          # the decimated data handed to the curve
    assert len(dx) < 10_000 and np.isnan(dy).any()
    assert curves.panels["loss"].nonfinite_labels("big") == ["loss was nan at step 25001"]
