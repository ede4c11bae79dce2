"""scripts/group_screens.py on a tiny runs folder and a tiny comparison: the three PNGs and the report folders."""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("pytestqt")

from helpers import REPO_ROOT, save_tiny_model  # noqa: E402


def _script():
    spec = importlib.util.spec_from_file_location("group_screens", REPO_ROOT / "scripts" / "group_screens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_group_screens_writes_group_compare_and_pair_images(qtbot, tmp_path, capsys):
    from test_groups import _fake_run
    from test_ui_compare_pair import _comparison

    from explorer.core.studies.groups import plan_restarts, write_group
    from explorer.core.studies.reports import write_comparison_report
    from explorer.core.specs.train_config import TrainConfig

    runs = tmp_path / "runs"
    group, _ = plan_restarts(TrainConfig(task="pair"), "r", [1, 2])
    write_group(runs, group)
    _fake_run(runs, "r-01", [(0, 0.5), (10, 0.8)])
    _fake_run(runs, "r-02", [(0, 0.5), (10, 0.7)])
    comparison, _row = _comparison(save_tiny_model(tmp_path / "a", seed=0), save_tiny_model(tmp_path / "b", seed=1))
    report = write_comparison_report(tmp_path / "cmp", comparison)
    out = tmp_path / "out"
    assert _script().main([str(out), "--runs", str(runs), "--group", "r", "--compare", str(report)]) == 0
    printed = capsys.readouterr().out
    for name in ("group.png", "compare.png", "compare_pair.png"):
        assert (out / name).stat().st_size > 5000, name
    assert "accuracy (%) 75.00 ± 7.07" in printed                       # the dock's group row: mean ± sd of 80 and 70
    assert "probed" in printed and "score_diff" in printed
    assert (out / "group-report" / "report.md").is_file() and (out / "compare-report" / "report.md").is_file()
