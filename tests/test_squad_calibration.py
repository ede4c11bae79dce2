"""SQuAD calibration: the best span's probability against exact match and answering vs abstaining,
by hand on four questions (core/calibration.squad_calibration), and the view's two diagrams offscreen."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer.core.metrics.calibration import squad_calibration
from explorer.core.qa.decoding import ExampleDecoding, SpanCandidate
from explorer.core.qa.scores import QuestionScores


def _span(text, score):
    return SpanCandidate(text, 0, len(text), 1, 1, 0, score / 2, score / 2, score)


def _decoding(qid, spans, null_score):
    best = spans[0].score if spans else -math.inf
    return ExampleDecoding(qid, spans, null_score, null_score / 2, null_score / 2, 0, best, best - null_score)


def _study(v2=True):
    dec = {"q1": _decoding("q1", [_span("paris", 2.0), _span("france", 0.0)], 1.0),   # p = e²/(e²+1), right
           "q2": _decoding("q2", [_span("london", 1.0)], 0.5),                         # p = 1, wrong
           "q3": _decoding("q3", [_span("rome", 0.0)], 2.0),                           # no answer, diff -2
           "q4": _decoding("q4", [_span("oslo", 4.0)], 1.0)}                           # no answer, diff +3
    ids = ["q1", "q2", "q3", "q4"] if v2 else ["q1", "q2"]
    has = np.array([True, True, False, False])[: len(ids)]
    scores = QuestionScores(ids, np.array([dec[q].score_diff for q in ids]), has,
                            np.array([1.0, 0.0, 0.0, 0.0])[: len(ids)], np.zeros(len(ids)),
                            (~has).astype(float), (~has).astype(float))
    return dec, scores


def test_both_diagrams_by_hand():
    dec, scores = _study()
    cal = squad_calibration(dec, scores, tau=0.5)
    p1 = math.exp(2) / (math.exp(2) + 1)
    span = cal.best_span
    assert span.n == 2 and span.counts[8] == 1 and span.counts[9] == 1
    assert span.brier == pytest.approx(((p1 - 1) ** 2 + 1) / 2)
    assert span.ece == pytest.approx(0.5 * (1 - p1) + 0.5 * 1.0)
    diffs = np.array([1.0, 0.5, -2.0, 3.0]) - 0.5
    p = 1 / (1 + np.exp(-diffs))
    y = np.array([1.0, 1.0, 0.0, 0.0])
    assert cal.answering.n == 4 and cal.answering.brier == pytest.approx(float(np.mean((p - y) ** 2)))
    assert "answering vs abstaining" in cal.lines()[2] and "τ +0.50" in cal.lines()[2]
    v1 = squad_calibration(*_study(v2=False))
    assert v1.answering is None and v1.best_span.n == 2


def test_view_shows_both_diagrams(qtbot):
    from explorer.ui.inspectors.calibration_view import SquadCalibrationView

    view = SquadCalibrationView()
    qtbot.addWidget(view)
    cal = squad_calibration(*_study(), tau=0.5)
    view.set_calibration(cal)
    titles = [p.plotItem.titleLabel.text for p in view.plots]
    assert f"ECE {cal.best_span.ece:.3f}" in titles[0] and f"ECE {cal.answering.ece:.3f}" in titles[1]
    assert "answer vs abstain (τ +0.50)" in titles[1] and "best span's probability" in view.summary.text()
    view.set_calibration(squad_calibration(*_study(v2=False)))
    assert "every question has an answer" in view.plots[1].plotItem.titleLabel.text
