"""What the statistics add to the UI (Compare view's verdict, group view's intervals), offscreen."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from test_compare_significance import _comparison


def test_compare_view_says_whether_b_is_better(qtbot, tmp_path):
    from explorer.ui.groups.compare_view import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.set_comparison(_comparison())
    text = view.verdict.text()
    assert "B is better by 16.0 F1 points, 95% interval" in text and "p = 0.039 for exact match" in text
    assert "only A right 2, only B right 10" in text
    view.set_comparison(_comparison(only_a=3, only_b=3))
    assert "no detectable difference in F1" in view.verdict.text()


def test_group_view_shows_the_t_interval(qtbot):
    import numpy as np

    from explorer.core.group_stats import MemberData
    from explorer.core.groups import plan_restarts
    from explorer.core.training.config import TrainConfig
    from explorer.ui.groups.view import GroupView

    group, _ = plan_restarts(TrainConfig(task="pair"), "r", [1, 2, 3])
    members = [MemberData(run_id=m.run_id, status="finished", params=m.params, metric_name="accuracy", task="pair",
                          eval_steps=np.array([0.0, 10.0]), eval_values=np.array([50.0, v]),
                          final_metrics={"accuracy": v}) for m, v in zip(group.members, [80.0, 82.0, 84.0])]
    view = GroupView()
    qtbot.addWidget(view)
    view.set_group(group, members)
    assert "95% t interval of each final mean: accuracy (%) 82.00 ± 2.00, 95% interval 77.03 to 86.97 (n 3)" \
        in view.summary.text()
