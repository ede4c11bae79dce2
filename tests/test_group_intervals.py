"""Groups: each final metric's 95% t interval and Welch's test between two groups (core/studies/group_stats.py,
`group --summary [--versus OTHER]`)."""

from __future__ import annotations

import math

import pytest
from scipy.stats import ttest_ind
from test_groups import _fake_run

from explorer.core.studies import groups
from explorer.core.studies.group_stats import MemberData, final_metric_intervals, welch_lines
from explorer.core.specs.train_config import TrainConfig


def _m(run_id, acc):
    return MemberData(run_id=run_id, status="finished", metric_name="accuracy", task="pair",
                      final_metrics={"accuracy": acc})


def test_final_metric_intervals_by_hand():
    ci = final_metric_intervals([_m("a", 80.0), _m("b", 82.0), _m("c", 84.0)])["accuracy"]
    half = 4.302652729911275 * 2.0 / math.sqrt(3)
    assert (ci.mean, ci.n) == (82.0, 3) and ci.low == pytest.approx(82 - half) and ci.high == pytest.approx(82 + half)


def test_an_interval_of_a_bounded_metric_is_clipped_to_its_range_and_says_so():
    """A t interval is symmetric about the mean: macro F1 of 22, 37 and 52 % gives -0.26 to 74.26, a Matthews
    correlation near 1 runs past 1; both are clipped to the values the metric can take, marked; a loss is not."""
    def member(run_id, **finals):
        return MemberData(run_id=run_id, status="finished", metric_name="macro_f1", task="single",
                          final_metrics=finals)

    members = [member("a", macro_f1=22.0, matthews_corrcoef=0.90, loss=0.1),
               member("b", macro_f1=37.0, matthews_corrcoef=0.50, loss=2.0),
               member("c", macro_f1=52.0, matthews_corrcoef=0.99, loss=4.0)]
    ci = final_metric_intervals(members)
    half = 4.302652729911275 * 15.0 / math.sqrt(3)
    f1 = ci["macro_f1"]
    assert (f1.low, f1.low_clipped, f1.high_clipped) == (0.0, True, False) and f1.high == pytest.approx(37 + half)
    assert f1.text(2) == f"37.00 ± 15.00, 95% interval 0.00 (clipped) to {37 + half:.2f} (n 3)"
    mcc = ci["matthews_corrcoef"]
    assert (mcc.high, mcc.high_clipped, mcc.low_clipped) == (1.0, True, False)
    assert mcc.bounds_text(3).endswith("to 1.000 (clipped)")
    loss = ci["loss"]
    assert loss.low < 0 and not loss.low_clipped and "clipped" not in loss.text(2)


def test_welch_lines_match_scipy():
    a = [_m("a1", 80.0), _m("a2", 81.0), _m("a3", 82.0)]
    b = [_m("b1", 83.0), _m("b2", 85.0), _m("b3", 87.0)]
    ref = ttest_ind([83.0, 85.0, 87.0], [80.0, 81.0, 82.0], equal_var=False)
    (line,) = welch_lines(a, b, "lr2e-5", "lr3e-5")
    assert line.startswith("accuracy (%): lr3e-5 - lr2e-5 = +4.00 (lr2e-5 81.00, n 3; lr3e-5 85.00, n 3)")
    assert f"Welch t {ref.statistic:.2f}" in line and f"p = {ref.pvalue:.3f}" in line
    assert "needs at least 2 runs" in welch_lines(a[:1], b)[0]


def test_group_summary_prints_intervals_and_welch(tmp_path):
    from explorer.commands.group import summary_lines

    for name, accs in (("lo", (0.70, 0.72, 0.71)), ("hi", (0.80, 0.83, 0.81))):
        g, _ = groups.plan_restarts(TrainConfig(task="pair"), name, [1, 2, 3])
        groups.write_group(tmp_path, g)
        for i, acc in enumerate(accs, 1):
            _fake_run(tmp_path, f"{name}-0{i}", [(0, 0.5), (10, acc)])
    lines = summary_lines(tmp_path, "hi", versus="lo")
    i = lines.index("final accuracy (%): 81.3333 ± 1.5275 (best 83.0000, worst 80.0000, n 3)")
    half = 4.302652729911275 * 1.5275252316519468 / math.sqrt(3)
    assert lines[i + 1] == f"  95% t interval of the mean: {81.3333333 - half:.4f} to {81.3333333 + half:.4f} (n 3)"
    assert "Welch's t test, hi (B) against lo (A):" in lines
    welch = next(ln for ln in lines if ln.startswith("  accuracy (%): hi - lo"))
    ref = ttest_ind([80.0, 83.0, 81.0], [70.0, 72.0, 71.0], equal_var=False)
    assert f"p = {ref.pvalue:.3f}" in welch or "p < 0.001" in welch
