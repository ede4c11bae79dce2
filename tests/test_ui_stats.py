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
