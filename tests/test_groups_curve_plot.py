"""The learning curve group drawn in the Groups page: what the Qt-free model decides to draw from
curve_result.json (log2 rows, intervals, the baseline beside, the fitted curve and the next doubling), and the
page drawing it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer.ui.groups.curve_plot_model import BASELINE_SHIFT, learning_curve_plot


def _fig(v: float, half: float = 0.05) -> dict:
    return {"value": v, "low": v - half, "high": v + half, "se": half / 2, "n": 100, "level": 0.95,
            "resamples": 200, "seed": 0}


def _data(fit: bool = True) -> dict:
    rows, model, base = [100, 200, 400, 800], [0.40, 0.50, 0.56, 0.60], [0.45, 0.48, 0.50, 0.52]
    data = {"group": "lc", "metric": "macro_f1", "n_dev": 100,
            "points": [{"fraction": r / 800, "train_rows": r, "run_id": f"lc-{i}", "model": _fig(m),
                        "baseline": _fig(b), "versus": {}} for i, (r, m, b) in enumerate(zip(rows, model, base))],
            "fit": None, "fit_note": "1 size(s) scored; the curve needs 3", "baseline_fit": None}
    if fit:
        data["fit"] = {"params": [3.0, 0.5, 0.7], "next_rows": 1600, "prediction": 0.625, "low": 0.58, "high": 0.67}
        data["baseline_fit"] = {"params": [1.0, 0.5, 0.55], "next_rows": 1600, "prediction": 0.53, "low": 0.5,
                                "high": 0.56}
    return data


def test_sizes_go_on_a_log2_axis_with_their_intervals_and_the_baseline_beside_them():
    plot = learning_curve_plot(_data(), "macro F1 (%)", 100.0)
    assert list(plot.model.x) == [math.log2(r) for r in (100, 200, 400, 800)]
    assert list(plot.model.value) == pytest.approx([40, 50, 56, 60])
    assert list(plot.model.low) == pytest.approx([35, 45, 51, 55])
    assert list(plot.baseline.x) == pytest.approx([math.log2(r) + BASELINE_SHIFT for r in (100, 200, 400, 800)])
    assert list(plot.baseline.high) == pytest.approx([50, 53, 55, 57])
    assert [label for _, label in plot.x_ticks] == ["100", "200", "400", "800", "1,600"]
    assert plot.y_label == "macro F1 (%)" and "same 100 dev rows" in plot.title


def test_the_fitted_curve_runs_to_the_next_doubling_where_its_interval_is_drawn():
    plot = learning_curve_plot(_data(), "macro F1 (%)", 100.0)
    assert plot.fit_x[0] == pytest.approx(math.log2(100)) and plot.fit_x[-1] == pytest.approx(math.log2(1600))
    n = 2.0 ** plot.fit_x
    assert plot.fit_y == pytest.approx(100 * (0.7 - 3.0 * n ** -0.5))   # c - a n^-b on the display scale
    assert plot.next.x[0] == math.log2(1600)
    assert (plot.next.value[0], plot.next.low[0], plot.next.high[0]) == pytest.approx((62.5, 58, 67))
    assert plot.baseline_next.value[0] == pytest.approx(53)
    low, high = plot.y_range()
    assert low < 35 and high > 67


def test_without_a_fit_the_plot_says_why_and_draws_no_curve():
    data = _data(fit=False)
    data["points"][3]["model"] = None
    plot = learning_curve_plot(data, "macro F1", 1.0)
    assert len(plot.fit_x) == 0 and plot.next is None and len(plot.model) == 3
    assert plot.notes == ["no fitted curve: 1 size(s) scored; the curve needs 3", "1 size(s) not scored yet"]
    assert [label for _, label in plot.x_ticks] == ["100", "200", "400", "800"]


def test_the_groups_page_draws_the_learning_curve(qtbot):
    from explorer.ui.groups.curve_plot import LearningCurvePlotWidget

    w = LearningCurvePlotWidget()
    qtbot.addWidget(w)
    w.show_curve(learning_curve_plot(_data(), "macro F1 (%)", 100.0))
    assert np.allclose(w.value_points()[:, 1], [40, 50, 56, 60])
    legend = [label.text for _, label in w.getPlotItem().legend.items]
    assert legend == ["bag-of-words (TF-IDF)", "fitted c - a n^-b", "fine-tuned (checkpoints/last)",
                      "next doubling (predicted, 95%)"]
    w.show_curve(None, "not scored yet")
    assert w.drawn is None and not w.getPlotItem().legend.items
