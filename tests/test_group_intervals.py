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
