"""What the statistics add to the UI (Compare view's verdict, group view's intervals), offscreen."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from test_compare_significance import _comparison


def test_compare_view_says_whether_b_is_better(qtbot, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextDocumentFragment

    from explorer.ui.groups.compare_view import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.set_comparison(_comparison())
    text = view.verdict.text()
    assert "B is better by 16.0 F1 points, 95% interval" in text and "p = 0.039 for exact match" in text
    assert "only A right 2, only B right 10" in text
    # shown as lines, not as a literal "<br>" (the real Compare screenshot had "for exact match<br>exact match")
    assert view.verdict.textFormat() == Qt.TextFormat.RichText and "&lt;br&gt;" not in text
    shown = QTextDocumentFragment.fromHtml(text).toPlainText()
    assert "<br>" not in shown and len(shown.splitlines()) >= 2
    view.set_comparison(_comparison(only_a=3, only_b=3))
    assert "no detectable difference in F1" in view.verdict.text()


def test_group_view_shows_the_t_interval(qtbot):
    import numpy as np

    from explorer.core.studies.group_stats import MemberData
    from explorer.core.studies.groups import plan_restarts
    from explorer.core.specs.train_config import TrainConfig
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


def _overconfident_report(n=200):
    import numpy as np

    from explorer.core.classify.dev_report import dev_report

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    z = rng.normal(0, 1, (n, 2))
    z[np.arange(n), y] += 0.8
    return dev_report(6.0 * z, y, [f"text {i}" for i in range(n)], label_names=["neg", "pos"])


def test_dev_logits_cross_the_inspector_pipe():
    import numpy as np

    from explorer.core.protocol import frames as wire

    rep = _overconfident_report(20)
    again = wire.decode(*wire.encode(rep))
    np.testing.assert_array_equal(again.logits, rep.logits)
    np.testing.assert_array_equal(again.labels, rep.labels)


def test_calibration_view_from_the_dev_tab_and_saved_with_the_run(qtbot, tmp_path):
    import json
    from types import SimpleNamespace

    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView

    ckpt = tmp_path / "r-01" / "checkpoints" / "best"
    ckpt.mkdir(parents=True)
    dev = ClassifyDevView(lambda: SimpleNamespace(source=str(ckpt), slot=0), lambda: "single")
    qtbot.addWidget(dev)
    assert not dev.calibrate.isEnabled()
    dev.show_report(_overconfident_report(), "single")
    assert dev.calibrate.isEnabled()
    view = dev.open_calibration()
    qtbot.addWidget(view)
    c = view.calibration
    assert c.half_a.after.ece < c.half_a.before.ece and c.half_b.after.ece < c.half_b.before.ece
    assert "half A (100 examples)" in view.summary.text() and "-&gt;" in view.summary.text() or \
        "->" in view.summary.text()
    assert view.plots[0].plotItem.titleLabel.text.startswith("before softmax(z): ECE")
    assert f"ECE {c.after.ece:.3f}" in view.plots[1].plotItem.titleLabel.text
    path = view.save()
    assert path == tmp_path / "r-01" / "calibration.json"
    assert json.loads(path.read_text())["temperature"] == pytest.approx(c.temperature)
    view.resize(1100, 520)
    assert view.export_png(tmp_path / "cal.png") and (tmp_path / "cal.png").stat().st_size > 1000
