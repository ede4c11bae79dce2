"""Group statistics (core/studies/group_stats.py) and the group report (core/studies/reports.py): hand-computed values."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from explorer.core.studies.group_stats import MemberData, group_table, heat_map, mean_band, stats


def test_mean_band_minmax_on_common_grid():
    a = (np.array([0, 10, 20]), np.array([1.0, 3.0, 5.0]))
    b = (np.array([0, 20]), np.array([3.0, 7.0]))     # at step 10 interpolated: 5.0
    band = mean_band([a, b], "minmax")
    assert band.steps.tolist() == [0, 10, 20]
    assert band.mean.tolist() == [2.0, 4.0, 6.0]
    assert band.low.tolist() == [1.0, 3.0, 5.0] and band.high.tolist() == [3.0, 5.0, 7.0]
    assert band.n.tolist() == [2, 2, 2]


def test_mean_band_sd_and_a_member_killed_early():
    a = (np.array([0, 10]), np.array([1.0, 2.0]))
    b = (np.array([0, 10]), np.array([3.0, 4.0]))
    c = (np.array([0]), np.array([5.0]))               # killed after its first point: counts at step 0 only
    band = mean_band([a, b, c], "sd")
    assert band.n.tolist() == [3, 2]
    assert band.mean[0] == pytest.approx(3.0) and band.mean[1] == pytest.approx(3.0)
    assert band.high[0] - band.mean[0] == pytest.approx(2.0)            # sd of 1, 3, 5 (ddof=1) = 2
    assert band.high[1] - band.mean[1] == pytest.approx(math.sqrt(2.0))  # sd of 2, 4 = sqrt(2)
    assert mean_band([(np.zeros(0), np.zeros(0))]).steps.size == 0
    with pytest.raises(ValueError, match="band mode"):
        mean_band([a], "iqr")


def test_stats_sample_sd_best_worst_skip_nan():
    s = stats([80.0, 82.0, 84.0, float("nan"), None])
    assert (s.mean, s.best, s.worst, s.n) == (82.0, 84.0, 80.0, 3)
    assert s.sd == pytest.approx(2.0)
    assert s.text() == "82.00 ± 2.00 (best 84.00, worst 80.00, n 3)"
    one = stats([5.0])
    assert one.sd == 0.0 and stats([]).n == 0 and stats([]).text() == "-"


def _member(run_id, evals, **params):
    steps, values = zip(*evals) if evals else ((), ())
    return MemberData(run_id=run_id, status="finished", params=params, metric_name="f1",
                      eval_steps=np.array(steps, float), eval_values=np.array(values, float))


def test_group_table_final_best_and_sorting():
    ms = [_member("g-01", [(0, 50.0), (5, 80.0), (10, 70.0)], learning_rate=3e-5, epochs=2),
          _member("g-02", [(0, 50.0), (10, 90.0)], learning_rate=2e-5, epochs=3),
          _member("g-03", [], learning_rate=5e-5, epochs=2)]
    t = group_table(ms, ["learning_rate", "epochs"])
    assert t.columns == ["run_id", "status", "learning_rate", "epochs", "final", "best"]
    assert [r["final"] for r in t.rows][:2] == [70.0, 90.0] and [r["best"] for r in t.rows][:2] == [80.0, 90.0]
    assert math.isnan(t.rows[2]["best"])
    assert (t.final.mean, t.best.mean, t.best.best, t.best.worst, t.best.n) == (80.0, 85.0, 90.0, 80.0, 2)
    assert [r["run_id"] for r in t.sorted_by("learning_rate")] == ["g-02", "g-01", "g-03"]
    assert [r["run_id"] for r in t.sorted_by("best", descending=True)] == ["g-02", "g-01", "g-03"]
    with pytest.raises(KeyError, match="no column"):
        t.sorted_by("seed")


def test_heat_map_cells_and_restart_spread():
    rows = [{"run_id": str(i), "learning_rate": lr, "epochs": ep, "seed": s, "best": v}
            for i, (lr, ep, s, v) in enumerate([(2e-5, 2, 1, 80.0), (2e-5, 2, 2, 84.0), (3e-5, 2, 1, 70.0),
                                                (2e-5, 3, 1, 90.0), (2e-5, 3, 2, float("nan"))])]
    h = heat_map(rows, "learning_rate", "epochs")
    assert h.x_values == [2e-5, 3e-5] and h.y_values == [2, 3]
    assert h.mean[0, 0] == 82.0 and h.sd[0, 0] == pytest.approx(math.sqrt(8.0)) and h.n[0, 0] == 2
    assert (h.low[0, 0], h.high[0, 0]) == (80.0, 84.0)
    assert h.mean[0, 1] == 70.0 and h.n[1, 0] == 1 and h.mean[1, 0] == 90.0
    assert h.n[1, 1] == 0 and math.isnan(h.mean[1, 1])
    assert h.tooltip(0, 0) == "learning_rate 2e-05, epochs 2: 82.00 ± 2.83 (80.00..84.00, n 2)"
    assert "no finished evaluation" in h.tooltip(1, 1)


def test_group_report_folder(tmp_path):
    from explorer.core.studies.groups import plan_restarts
    from explorer.core.studies.reports import write_group_report
    from explorer.core.specs.train_config import TrainConfig

    group, _ = plan_restarts(TrainConfig(task="pair"), "r", [1, 2])
    ms = [_member("r-01", [(0, 50.0), (10, 80.0)], seed=1), _member("r-02", [(0, 60.0), (10, 90.0)], seed=2)]
    ms[0].final_metrics, ms[1].final_metrics = {"f1": 80.0, "exact_match": 70.0}, {"f1": 90.0, "exact_match": 75.0}
    for m in ms:
        m.task = "squad_v1"          # SQuAD: percent already; the labels say so
    table = group_table(ms, ["seed"])
    folder = write_group_report(tmp_path / "rep", group, ms, table, notes=["r-03: missing"])
    text = (folder / "report.md").read_text()
    assert "# Group r" in text and "85.00 ± 7.07" in text and "r-03: missing" in text
    assert "- final EM (%): 72.5000 ± 3.5355 (best 75.0000, worst 70.0000, n 2)" in text   # every final metric
    summary = {r["metric"]: r for r in csv.DictReader(open(folder / "summary.csv"))}
    assert summary["final EM (%)"]["mean"] == "72.5" and list(summary) == ["final F1 (%)", "best F1 (%)",
                                                                            "final EM (%)"]
    rows = list(csv.DictReader(open(folder / "runs.csv")))
    assert [r["best"] for r in rows] == ["80", "90"]
    curve = list(csv.DictReader(open(folder / "curves.csv")))
    assert [float(r["mean"]) for r in curve] == [55.0, 85.0]
