"""core/metrics/calibration.py: reliability bins, ECE / MCE / Brier by hand, temperature scaling held out both ways."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.core.metrics import calibration as C


def test_ece_mce_brier_by_hand():
    r = C.reliability([0.95, 0.95, 0.95, 0.55, 1.0], [1, 1, 0, 1, 1])
    # bin 9 (0.9..1.0, 1.0 included): 0.95 x3 + 1.0 -> conf 0.9625, acc 0.75; bin 5: 0.55 -> acc 1
    assert r.counts == [0, 0, 0, 0, 0, 1, 0, 0, 0, 4] and r.n == 5
    assert r.confidence[9] == pytest.approx(0.9625) and r.accuracy[9] == pytest.approx(0.75)
    assert r.ece == pytest.approx(0.8 * 0.2125 + 0.2 * 0.45)
    assert r.mce == pytest.approx(0.45)
    assert r.brier == pytest.approx((0.05**2 * 2 + 0.95**2 + 0.45**2 + 0) / 5)
    assert np.isnan(r.accuracy[0]) and "ECE 0.260" in r.text()
    with pytest.raises(ValueError, match="not a probability"):
        C.reliability([1.2], [1])


def test_bins_agree_with_sklearn_calibration_curve():
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(0)
    c, y = rng.random(300), rng.random(300) < 0.5
    r = C.reliability(c, y)
    acc, conf = calibration_curve(y, c, n_bins=10, strategy="uniform")
    full = [i for i, k in enumerate(r.counts) if k]
    assert np.allclose([r.accuracy[i] for i in full], acc) and np.allclose([r.confidence[i] for i in full], conf)


def _overconfident(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    z = rng.normal(0, 1, (n, 3))
    z[np.arange(n), y] += 1.0                       # informative, but scaled 5x: far too sure
    return 5.0 * z, y


def test_temperature_scaling_lowers_nll_on_held_out_halves():
    z, y = _overconfident()
    cal = C.honest_temperature(z, y, seed=3)
    a, b = set(cal.half_a.indices), set(cal.half_b.indices)
    assert not a & b and len(a | b) == len(y) == cal.n              # disjoint halves covering dev
    for h in (cal.half_a, cal.half_b):
        assert h.temperature > 2.0                                   # it cools the overconfident logits
        assert h.nll_after < h.nll_before and h.after.ece < h.before.ece
    assert cal.half_a.before.n + cal.half_a.after.n == len(y)
    acc_before = np.mean(np.argmax(z, 1) == y)
    assert cal.after.n == len(y) and sum(cal.after.counts) == len(y)
    assert np.nansum(np.array(cal.after.accuracy) * cal.after.counts) / len(y) == pytest.approx(acc_before)
    assert C.nll(z, y, cal.temperature) < C.nll(z, y)
    assert any("ECE" in line and "->" in line for line in cal.lines())


def test_fit_temperature_recovers_a_known_scale():
    rng = np.random.default_rng(1)
    true = rng.normal(0, 2, (4000, 2))
    y = np.array([rng.choice(2, p=p) for p in C.softmax(true)])
    assert C.fit_temperature(3.0 * true, y) == pytest.approx(3.0, rel=0.15)


def test_save_load_and_the_run_folder(tmp_path):
    z, y = _overconfident(40)
    cal = C.honest_temperature(z, y)
    run = tmp_path / "r-01"
    (run / "checkpoints" / "best").mkdir(parents=True)
    C.save_calibration(run, cal)
    assert C.load_temperature(run / "checkpoints" / "best") == pytest.approx(cal.temperature)
    again = C.calibration_from_dict(json.loads((run / C.CALIBRATION_FILE).read_text()))
    assert again.half_b.after.ece == pytest.approx(cal.half_b.after.ece)
    assert C.load_temperature(tmp_path / "elsewhere") is None
    (run / C.CALIBRATION_FILE).write_text('{"temperature": -1}')
    with pytest.raises(ValueError, match="calibration.json: not a calibration file"):
        C.load_temperature(run / "checkpoints" / "best")


def test_squad_span_and_answer_reliability():
    r = C.squad_reliability([0.9, 0.9, 0.2], [1.0, 0.0, 0.0])
    assert r.counts[9] == 2 and r.accuracy[9] == 0.5 and r.counts[2] == 1
    a = C.answer_reliability([5.0, -5.0, 0.0], [True, False, True])
    assert a.counts[9] == 1 and a.counts[0] == 1 and a.counts[5] == 1
